// `warpsort generate`: a dataset file from one of the distributions. CPU only: works without a
// GPU, and dispatches over every key type of the dataset module itself (no sort involved).
#include "cli/bench_config.hpp"
#include "cli/commands.hpp"
#include "cli/memory_check.hpp"
#include "data/dataset_io.hpp"
#include "data/distributions.hpp"
#include "data/key_types.hpp"

#include <warpsort/error.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <vector>

namespace warpsort::cli {
namespace {

template <class Key>
void generate_and_write(const generate_options& o, data::key_type type, std::size_t n) {
  const std::vector<Key> keys = data::generate<Key>(o.distribution, o.seed, n);
  data::write_dataset(o.output, type, keys.data(), n);
}

}  // namespace

int run_generate(const generate_options& o) {
  if (!data::is_distribution(o.distribution))
    throw input_error("unknown distribution '" + o.distribution +
                      "'; valid: " + join(data::distribution_names()));
  const data::key_type type = data::parse_key_type(o.type);
  const std::size_t n = parse_size(o.n);
  if (o.output.empty()) throw input_error("--output is required");
  require_host_memory(n, n * data::key_type_size(type) + (std::size_t{256} << 20));
  switch (type) {
    case data::key_type::uint32: generate_and_write<std::uint32_t>(o, type, n); break;
    case data::key_type::int32: generate_and_write<std::int32_t>(o, type, n); break;
    case data::key_type::float32: generate_and_write<float>(o, type, n); break;
    case data::key_type::uint64: generate_and_write<std::uint64_t>(o, type, n); break;
    case data::key_type::int64: generate_and_write<std::int64_t>(o, type, n); break;
    case data::key_type::float64: generate_and_write<double>(o, type, n); break;
  }
  fmt::print("wrote {}: {} {} keys, distribution {}, seed {}\n", o.output, n,
             data::key_type_name(type), o.distribution, o.seed);
  return 0;
}

}  // namespace warpsort::cli

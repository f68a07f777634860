// `warpsort generate`: a dataset file from one of the distributions. CPU only: works without a
// GPU, and dispatches over every key type of the dataset module itself (no sort involved).
#include "cli/bench_config.hpp"
#include "cli/commands.hpp"
#include "cli/key_dispatch.hpp"
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
  with_key_type(type, [&](auto tag) {
    generate_and_write<typename decltype(tag)::type>(o, type, n);
  });
  fmt::print("wrote {}: {} {} keys, distribution {}, seed {}\n", o.output, n,
             data::key_type_name(type), o.distribution, o.seed);
  return 0;
}

}  // namespace warpsort::cli

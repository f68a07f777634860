#include "cli/fuzz_case.hpp"

#include "cli/key_dispatch.hpp"
#include "data/distributions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace warpsort::cli {

std::uint64_t fuzz_rng::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t fuzz_rng::below(std::uint64_t bound) {
  if (bound == 0) return 0;
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * bound) >> 64);
}

double fuzz_rng::unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

std::size_t draw_fuzz_size(fuzz_rng& rng, std::size_t max_n) {
  auto clamp = [max_n](long double v) -> std::size_t {
    if (v <= 0) return 0;
    if (v >= static_cast<long double>(max_n)) return max_n;
    return static_cast<std::size_t>(v);
  };
  const std::uint64_t kind = rng.below(100);
  if (kind < 35) return static_cast<std::size_t>(rng.below(std::min<std::size_t>(max_n, 300) + 1));
  if (kind < 55 && max_n >= 1) {  // 2^k - 1, 2^k, 2^k + 1, k up to log2(max_n)
    int log2_max = 0;
    while (log2_max < 62 && (std::size_t{2} << log2_max) <= max_n) ++log2_max;
    const std::size_t power = std::size_t{1} << rng.below(static_cast<std::uint64_t>(log2_max) + 1);
    return clamp(static_cast<long double>(power) + static_cast<long double>(rng.below(3)) - 1);
  }
  if (kind < 65 && max_n >= 128) {  // chunk boundaries: 128 m - 1, 128 m, 128 m + 1
    const std::size_t m = 1 + static_cast<std::size_t>(rng.below(max_n / 128));
    return clamp(static_cast<long double>(128 * m) + static_cast<long double>(rng.below(3)) - 1);
  }
  // Log-uniform in [1, max_n].
  const long double v = std::exp(static_cast<long double>(rng.unit()) *
                                 std::log(static_cast<long double>(max_n) + 1));
  return std::max<std::size_t>(1, clamp(v));
}

fuzz_case draw_fuzz_case(fuzz_rng& rng, std::size_t max_n) {
  static const std::vector<data::key_type> types = supported_key_types();
  const std::vector<std::string>& dists = data::distribution_names();
  fuzz_case c;
  c.type = types[rng.below(types.size())];
  c.n = draw_fuzz_size(rng, max_n);
  c.distribution = dists[rng.below(dists.size())];
  c.descending = rng.below(2) == 1;
  c.out_of_place = rng.below(4) != 0;
  c.seed = rng.below(std::uint64_t{1} << 32);
  const std::uint64_t pairs = rng.below(6);  // 0, 1: pairs (one in three); 0: uint32, 1: uint64
  if (pairs < 2 && c.n <= max_pairs) c.values = pairs == 0 ? value_type::uint32 : value_type::uint64;
  return c;
}

std::string describe(const fuzz_case& c) {
  return fmt::format("{} {} n={} {} seed {} {}{}", data::key_type_name(c.type), c.distribution, c.n,
                     c.descending ? "descending" : "ascending", c.seed,
                     c.out_of_place ? "out-of-place" : "in-place",
                     c.values == value_type::none ? "" : " pairs " + value_type_name(c.values));
}

std::string repro_command(const fuzz_case& c) {
  return fmt::format("warpsort sort --dist {} --n {} --seed {} --type {}{}{}{}", c.distribution, c.n,
                     c.seed, data::key_type_name(c.type), c.descending ? " --descending" : "",
                     c.out_of_place ? " --out-of-place" : "",
                     c.values == value_type::none ? "" : " --values " + value_type_name(c.values));
}

std::uint64_t clock_seed() {
  fuzz_rng mix(static_cast<std::uint64_t>(
      std::chrono::system_clock::now().time_since_epoch().count()));
  return mix.next() >> 16;  // 48 bits: short enough to retype
}

}  // namespace warpsort::cli

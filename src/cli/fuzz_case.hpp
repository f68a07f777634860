// The cases of `warpsort fuzz`: a seeded 64-bit generator, the random draw of a case, and the
// `warpsort sort` command line that reproduces one. Pure C++ (the unit tests run anywhere); the
// draw is fully specified here (no std:: distributions, whose output differs between standard
// libraries), so a seed names the same sequence of cases everywhere.
#pragma once

#include "cli/value_type.hpp"
#include "data/key_types.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace warpsort::cli {

/// splitmix64: a 64-bit state, every seed valid.
class fuzz_rng {
 public:
  explicit fuzz_rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  /// Uniform in [0, bound); 0 for bound 0.
  std::uint64_t below(std::uint64_t bound);
  /// Uniform in [0, 1).
  double unit();

 private:
  std::uint64_t state_;
};

/// One sort to check: the input is data::generate<Key>(distribution, seed, ptr, n).
struct fuzz_case {
  data::key_type type = data::key_type::uint32;
  std::size_t n = 0;
  std::string distribution;
  bool descending = false;
  bool out_of_place = true;  // input and a separate (poisoned) output; else sorted in place
  std::uint64_t seed = 1;
  /// none: keys (sort_keys); uint32 / uint64: (key, index) pairs sorted by sort_pairs.
  value_type values = value_type::none;
};

/// n in [0, max_n]: often small (0..300), sometimes 2^k or 2^k +- 1, sometimes a multiple of the
/// 128-key chunk +- 1, otherwise log-uniform in [1, max_n].
std::size_t draw_fuzz_size(fuzz_rng& rng, std::size_t max_n);

/// Every supported key type, every distribution of data::distribution_names(), both orders;
/// three cases in four out of place; one case in three (n < 2^32) sorts pairs, with uint32 or
/// uint64 values (half each).
fuzz_case draw_fuzz_case(fuzz_rng& rng, std::size_t max_n);

/// "float64 uniform n=1000 descending seed 5 out-of-place" (pairs: "... out-of-place pairs uint32").
std::string describe(const fuzz_case& c);

/// "warpsort sort --dist uniform --n 1000 --seed 5 --type float64 --descending --out-of-place"
/// (pairs: "... --values uint32"):
/// runs the same generator call, order and buffer layout through `warpsort sort`.
std::string repro_command(const fuzz_case& c);

/// A seed from the clock, for runs without --seed (printed so that they can be repeated).
std::uint64_t clock_seed();

}  // namespace warpsort::cli

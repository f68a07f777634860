// GPU tests: every step on its own for a comparator of the user's, instantiated here from the
// steps' templates (warpsort/custom.cuh), as a custom key type's translation unit does.
#include "common/gpu_test.hpp"
#include "step_checks.cuh"

#include <warpsort/custom.cuh>

#include <cstdint>

namespace {

using namespace warpsort::testing;

/// 64-bit keys ordered by their low word, then their high word: neither less nor greater, so
/// the steps take the general compare-and-select path.
struct low_word_first {
  __host__ __device__ bool operator()(std::uint64_t a, std::uint64_t b) const {
    const std::uint32_t la = static_cast<std::uint32_t>(a), lb = static_cast<std::uint32_t>(b);
    if (la != lb) return la < lb;
    return (a >> 32) < (b >> 32);
  }
  __host__ __device__ static std::uint64_t sentinel() { return ~std::uint64_t{0}; }
};

TEST(EveryStepCustomComparator, LowWordFirstMatchesTheReference) {
  WARPSORT_REQUIRE_GPU();
  static_assert(!warpsort::order_traits<std::uint64_t, low_word_first>::builtin);
  steps::check_every_step<std::uint64_t, low_word_first>(
      [](const std::string& dist, std::size_t n, std::uint64_t seed) {
        return make_typed_keys<std::uint64_t>(dist, n, seed);
      },
      "uint64 low word first");
}

}  // namespace

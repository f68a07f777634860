// GPU tests: every step on its own for every key type of the library's list, in both orders,
// through the instantiations the library compiled (src/stages): floats as their order_words.
#include "common/gpu_test.hpp"
#include "common/key_type_lists.hpp"
#include "step_checks.cuh"

namespace {

using namespace warpsort::testing;

template <class Key>
class EveryStep : public ::testing::Test {};
TYPED_TEST_SUITE(EveryStep, all_key_types);

template <class Key, class Comp>
void check_order(const char* order) {
  steps::check_every_step<Key, Comp>(
      [](const std::string& dist, std::size_t n, std::uint64_t seed) {
        return make_typed_keys<Key>(dist, n, seed);
      },
      std::string(::testing::internal::GetTypeName<Key>()) + " " + order);
}

TYPED_TEST(EveryStep, AscendingMatchesTheReference) {
  WARPSORT_REQUIRE_GPU();
  check_order<TypeParam, warpsort::less<TypeParam>>("ascending");
}

TYPED_TEST(EveryStep, DescendingMatchesTheReference) {
  WARPSORT_REQUIRE_GPU();
  check_order<TypeParam, warpsort::greater<TypeParam>>("descending");
}

}  // namespace

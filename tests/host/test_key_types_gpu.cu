// GPU tests: every key type in both orders, against thrust::sort and cub::DeviceRadixSort.
#include "common/gpu_sorts.cuh"
#include "common/gpu_test.hpp"
#include "common/key_type_lists.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/detail/stages/word_map.cuh>
#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace warpsort::testing;

template <class Key>
class KeyTypes : public ::testing::Test {};
TYPED_TEST_SUITE(KeyTypes, all_key_types);

template <class Key, class Comp>
void sort_and_validate(const std::vector<Key>& input, const std::string& what) {
  const auto b = sort_keys_on_gpu<Key, Comp>(input);
  const auto report = warpsort::validate_against_references(b.in.get(), b.out.get(), input.size(), Comp{});
  ASSERT_TRUE(report.ok) << what << ": " << report.message();
}

}  // namespace

TYPED_TEST(KeyTypes, AscendingAndDescendingMatchBothReferences) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  std::vector<std::string> dists = test_distributions();
  dists.push_back("specials");
  for (std::size_t n : pipeline_sizes())
    for (const auto& dist : dists) {
      if (n >= (std::size_t{1} << 24) && dist != "uniform" && dist != "specials") continue;  // time
      const auto input = make_typed_keys<Key>(dist, n, 17 * n + dist.size());
      const std::string what = dist + " n=" + std::to_string(n);
      sort_and_validate<Key, warpsort::less<Key>>(input, "ascending " + what);
      sort_and_validate<Key, warpsort::greater<Key>>(input, "descending " + what);
    }
}

// The float order is the documented total order: -NaN, -inf .. -0 == +0 .. +inf, +NaN.
TEST(FloatOrder, TotalOrderOnTheHost) {
  using L = warpsort::less<float>;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> ascending{-nan, -inf, -1.0f, -0.0f, 1.0f, inf, nan};
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
    EXPECT_TRUE(L{}(ascending[i], ascending[i + 1])) << i;
    EXPECT_FALSE(L{}(ascending[i + 1], ascending[i])) << i;
  }
  EXPECT_FALSE(L{}(-0.0f, 0.0f));
  EXPECT_FALSE(L{}(0.0f, -0.0f));
  EXPECT_TRUE(L{}(0.0f, 1.0f));
  EXPECT_TRUE(warpsort::greater<float>{}(1.0f, 0.0f));
  for (float x : ascending) {  // nothing orders after a sentinel
    EXPECT_FALSE(L{}(L::sentinel(), x));
    EXPECT_FALSE(warpsort::greater<float>{}(warpsort::greater<float>::sentinel(), x));
  }
}

// The word maps that step 1 and the last round apply to floats (word_map.cuh), on the host:
// every float's bits come back, and the words' integer order is the float order, -0.0 just
// before +0.0 (ascending; just after, descending).
template <class Float, class Comp>
void check_word_maps() {
  using to_word = warpsort::stages::key_to_order_word<Float, Comp>;
  using to_float = warpsort::stages::order_word_to_key<Float, Comp>;
  using word = typename to_word::word;
  const Float nan = std::numeric_limits<Float>::quiet_NaN();
  const Float inf = std::numeric_limits<Float>::infinity();
  std::vector<Float> keys{-nan, -inf, Float(-1.5), Float(-0.0), Float(0.0), Float(1e-30),
                          Float(2.5), inf, nan, std::numeric_limits<Float>::denorm_min(),
                          std::numeric_limits<Float>::lowest(), std::numeric_limits<Float>::max()};
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    const word bits = static_cast<word>(rng());
    Float f;
    std::memcpy(&f, &bits, sizeof f);
    keys.push_back(f);
  }
  for (Float k : keys) {
    word bits;
    std::memcpy(&bits, &k, sizeof bits);
    EXPECT_EQ(to_float::apply(to_word::apply(bits)), bits) << "every float's bits come back";
  }
  for (Float a : keys)
    for (Float b : {Float(-0.0), Float(0.0), Float(1.0), -inf, nan}) {
      word wa, wb;
      std::memcpy(&wa, &a, sizeof wa);
      std::memcpy(&wb, &b, sizeof wb);
      if (Comp{}(a, b)) {
        EXPECT_LT(to_word::apply(wa), to_word::apply(wb)) << a << " before " << b;
      }
      if (Comp{}(b, a)) {
        EXPECT_GT(to_word::apply(wa), to_word::apply(wb)) << a << " after " << b;
      }
    }
}

TEST(FloatOrder, WordMapsKeepBitsAndOrderOnTheHost) {
  check_word_maps<float, warpsort::less<float>>();
  check_word_maps<float, warpsort::greater<float>>();
  check_word_maps<double, warpsort::less<double>>();
  check_word_maps<double, warpsort::greater<double>>();
}

// Validation must catch a float result that is ordered but whose bits differ from the input's.
TEST(FloatOrder, ValidationChecksBitPatterns) {
  WARPSORT_REQUIRE_GPU();
  std::vector<float> input{1.0f, -0.0f, 2.0f, 0.0f};
  std::vector<float> wrong{-0.0f, -0.0f, 1.0f, 2.0f};  // equivalent position by position, bits not
  auto in = to_device(input);
  auto out = to_device(wrong);
  const auto report = warpsort::validate_against_references(in.get(), out.get(), 4, warpsort::less<float>{});
  EXPECT_FALSE(report.ok);
  EXPECT_NE(report.reference.find("bit patterns"), std::string::npos) << report.message();
}

// Floats sort as integer words mapped into the output: a sort refused for too little storage
// must be refused before the map, leaving the caller's keys (here sorted in place) untouched.
TYPED_TEST(KeyTypes, TooLittleStorageLeavesTheKeysAsTheyWere) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  const auto input = make_typed_keys<Key>("uniform", 5000, 4);
  auto keys = to_device(input);
  std::size_t temp_bytes = 0;
  warpsort::sort_keys<Key>(nullptr, temp_bytes, keys.get(), keys.get(), input.size());
  auto temp = poisoned<unsigned char>(temp_bytes);
  std::size_t too_small = temp_bytes - 1;
  EXPECT_THROW(
      warpsort::sort_keys<Key>(temp.get(), too_small, keys.get(), keys.get(), input.size()),
      warpsort::input_error);
  const auto after = to_host(keys.get(), input.size());
  ASSERT_EQ(std::memcmp(after.data(), input.data(), input.size() * sizeof(Key)), 0);
}

// Floats sort as their order words, step 1 reading the floats and the last round writing them
// (detail/stages/word_map.cuh). Every way that goes: rounds; no round (version 5 at one block's
// size, whose output a pass of its own maps); small inputs (passes around the word sort); in
// place or not; both orders; special values. Against both references.
namespace {

template <class Key, class Comp>
void sort_floats_with(const std::vector<Key>& input, const warpsort::policy& p, bool in_place,
                      const std::string& what) {
  const std::size_t n = input.size();
  auto in = to_device(input);
  auto out = in_place ? to_device(input) : poisoned<Key>(n);
  Key* const from = in_place ? out.get() : in.get();
  std::size_t temp_bytes = 0;
  warpsort::sort_keys<Key, Comp>(nullptr, temp_bytes, from, out.get(), n, Comp{}, 0, p);
  auto temp = poisoned<unsigned char>(temp_bytes);
  warpsort::sort_keys<Key, Comp>(temp.get(), temp_bytes, from, out.get(), n, Comp{}, 0, p);
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  const auto report = warpsort::validate_against_references(in.get(), out.get(), n, Comp{});
  ASSERT_TRUE(report.ok) << what << ": " << report.message();
}

template <class Key>
void sort_floats_every_way() {
  warpsort::policy no_small_path = warpsort::default_policy<Key>();
  no_small_path.pairwise_below_blocks = 0;
  const std::size_t block = static_cast<std::size_t>(no_small_path.block_sort_keys);
  for (const std::string dist : {"uniform", "specials", "sorted"})
    for (std::size_t n : capped({1000, block, block + 1, 65537, 1299709}))
      for (bool in_place : {false, true})
        for (int which = 0; which < 2; ++which) {
          const warpsort::policy p = which == 0 ? warpsort::default_policy<Key>() : no_small_path;
          const auto input = make_typed_keys<Key>(dist, n, 31 * n + dist.size());
          const std::string what = std::string(which == 0 ? "default" : "no small path") + " " +
                                   dist + " n=" + std::to_string(n) +
                                   (in_place ? " in place" : "");
          sort_floats_with<Key, warpsort::less<Key>>(input, p, in_place, "ascending " + what);
          sort_floats_with<Key, warpsort::greater<Key>>(input, p, in_place, "descending " + what);
        }
}

}  // namespace

TEST(FloatKeys, EveryPathMapsTheirWordsBothOrdersInPlaceOrNot) {
  WARPSORT_REQUIRE_GPU();
  sort_floats_every_way<float>();
  sort_floats_every_way<double>();
}

// GPU tests: an out-of-place sort leaves its input as it was, bit for bit, for keys and for
// pairs (keys and values), every key type, both value types, both orders. The other tests
// build their references from the input after the sort, so a sort that wrote over its input
// would pass them; these compare the input buffers with the host's copy.
#include "common/gpu_sorts.cuh"
#include "common/gpu_test.hpp"
#include "common/key_type_lists.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace warpsort::testing;

/// Sizes: tiny, version 4 (groups), version 5 (blocks merged in rounds) for every key width.
std::vector<std::size_t> unchanged_sizes() { return capped({1, 1000, 200003}); }

/// The first position where two buffers differ in any bit, or n when none does.
template <class T>
std::size_t first_changed(const std::vector<T>& before, const std::vector<T>& after) {
  for (std::size_t i = 0; i < before.size(); ++i)
    if (std::memcmp(&before[i], &after[i], sizeof(T)) != 0) return i;
  return before.size();
}

template <class T>
void expect_unchanged(const std::vector<T>& before, const T* d_after, const std::string& what) {
  const std::vector<T> after = to_host(d_after, before.size());
  const std::size_t i = first_changed(before, after);
  EXPECT_EQ(i, before.size()) << what << ": the input changed at position " << i << " of "
                              << before.size();
}

template <class Key, class Comp>
void sort_keys_out_of_place(const std::vector<Key>& input, const std::string& what) {
  const auto b = sort_keys_on_gpu<Key, Comp>(input);
  expect_unchanged(input, b.in.get(), what + " keys");
  // the sort ran and sorted (else an untouched input would prove nothing)
  const auto report = warpsort::validate_against_references(b.in.get(), b.out.get(), input.size(), Comp{});
  EXPECT_TRUE(report.ok) << what << ": " << report.message();
}

template <class Key, class Value, class Comp>
void sort_pairs_out_of_place(const std::vector<Key>& keys, const std::vector<Value>& values,
                             const std::string& what) {
  const auto b = sort_pairs_on_gpu<Key, Value, Comp>(keys, values);
  expect_unchanged(keys, b.keys_in.get(), what + " keys");
  expect_unchanged(values, b.values_in.get(), what + " values");
  const auto report = warpsort::validate_pairs_against_references(
      b.keys_in.get(), b.values_in.get(), b.keys_out.get(), b.values_out.get(), keys.size(), Comp{});
  EXPECT_TRUE(report.ok) << what << ": " << report.message();
}

/// Values that differ from their positions (a sort that wrote indices over them would show).
template <class Value>
std::vector<Value> scrambled_values(std::size_t n, std::uint64_t seed) {
  std::vector<Value> v(n);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& e : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    e = static_cast<Value>(x);
  }
  return v;
}

template <class Key>
class InputUnchanged : public ::testing::Test {};
TYPED_TEST_SUITE(InputUnchanged, all_key_types);

template <class KV>
class PairsInputUnchanged : public ::testing::Test {};
TYPED_TEST_SUITE(PairsInputUnchanged, all_key_value_types);

}  // namespace

TYPED_TEST(InputUnchanged, KeysOutOfPlaceBothOrders) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  for (std::size_t n : unchanged_sizes())
    for (const char* dist : {"uniform", "specials"}) {
      const auto input = make_typed_keys<Key>(dist, n, 17 * n + 3);
      const std::string what = std::string(dist) + " n=" + std::to_string(n);
      sort_keys_out_of_place<Key, warpsort::less<Key>>(input, "ascending " + what);
      sort_keys_out_of_place<Key, warpsort::greater<Key>>(input, "descending " + what);
    }
}

TYPED_TEST(PairsInputUnchanged, KeysAndValuesOutOfPlaceBothOrders) {
  WARPSORT_REQUIRE_GPU();
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  for (std::size_t n : unchanged_sizes())
    for (const char* dist : {"uniform", "eight_distinct"}) {
      const auto keys = make_typed_keys<Key>(dist, n, 29 * n + 5);
      const auto values = scrambled_values<Value>(n, n + 11);
      const std::string what = std::string(dist) + " n=" + std::to_string(n);
      sort_pairs_out_of_place<Key, Value, warpsort::less<Key>>(keys, values, "ascending " + what);
      sort_pairs_out_of_place<Key, Value, warpsort::greater<Key>>(keys, values,
                                                                  "descending " + what);
    }
}

// GPU tests: key-value pairs for every key type, 4- and 8-byte values, both orders.
#include "common/gpu_sorts.cuh"
#include "common/gpu_test.hpp"
#include "common/key_type_lists.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace {

using namespace warpsort::testing;

template <class Key>
class Pairs : public ::testing::Test {};
TYPED_TEST_SUITE(Pairs, all_key_types);

/// Sorts (keys, values) with warpsort and validates the outputs; returns them.
template <class Key, class Value, class Comp>
std::pair<std::vector<Key>, std::vector<Value>> sort_and_validate(const std::vector<Key>& keys,
                                                                  const std::vector<Value>& values,
                                                                  const std::string& what) {
  const std::size_t n = keys.size();
  const auto b = sort_pairs_on_gpu<Key, Value, Comp>(keys, values);
  const auto report = warpsort::validate_pairs_against_references(
      b.keys_in.get(), b.values_in.get(), b.keys_out.get(), b.values_out.get(), n, Comp{});
  EXPECT_TRUE(report.ok) << what << ": " << report.message();
  return {to_host(b.keys_out.get(), n), to_host(b.values_out.get(), n)};
}

template <class Value>
std::vector<Value> iota_values(std::size_t n) {
  std::vector<Value> v(n);
  std::iota(v.begin(), v.end(), Value{0});
  return v;
}

}  // namespace

TYPED_TEST(Pairs, ArgsortBothValueSizesBothOrders) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  std::vector<std::string> dists = test_distributions();
  dists.push_back("specials");
  for (std::size_t n : pipeline_sizes())
    for (const auto& dist : dists) {
      if (n >= (std::size_t{1} << 24) && dist != "uniform" && dist != "eight_distinct") continue;  // time
      const auto keys = make_typed_keys<Key>(dist, n, 31 * n + dist.size());
      const std::string what = dist + " n=" + std::to_string(n);
      const auto v32 = iota_values<std::uint32_t>(n);
      const auto v64 = iota_values<std::uint64_t>(n);
      sort_and_validate<Key, std::uint32_t, warpsort::less<Key>>(keys, v32, "u32 asc " + what);
      sort_and_validate<Key, std::uint32_t, warpsort::greater<Key>>(keys, v32, "u32 desc " + what);
      sort_and_validate<Key, std::uint64_t, warpsort::less<Key>>(keys, v64, "u64 asc " + what);
      sort_and_validate<Key, std::uint64_t, warpsort::greater<Key>>(keys, v64, "u64 desc " + what);
    }
}

// Stability with many duplicate keys, against std::stable_sort on the host.
TEST(PairsStability, ManyDuplicatesMatchStdStableSort) {
  WARPSORT_REQUIRE_GPU();
  for (std::size_t n : capped({1000, 65537, 1299709})) {
    std::vector<std::uint32_t> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>((i * 2654435761u) % 7);
    keys[n / 2] = 0xffffffffu;  // real keys equal to the padding sentinel keep their values
    keys[n / 3] = 0xffffffffu;
    const auto values = iota_values<std::uint64_t>(n);
    const auto [got_keys, got_values] =
        sort_and_validate<std::uint32_t, std::uint64_t, warpsort::less<std::uint32_t>>(keys, values, "stability");
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got_keys[i], keys[order[i]]) << "n=" << n << " i=" << i;
      ASSERT_EQ(got_values[i], values[order[i]]) << "n=" << n << " i=" << i;
    }
  }
}

TEST(PairsLimits, MoreThan2e32PairsIsRefused) {
  std::size_t bytes = 0;
  EXPECT_THROW((warpsort::sort_pairs<std::uint32_t, std::uint32_t>(nullptr, bytes, nullptr, nullptr, nullptr,
                                                                   nullptr, std::size_t{1} << 32)),
               warpsort::input_error);
}

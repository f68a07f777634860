// GPU tests: key-value pairs for every key type, 4- and 8-byte values, both orders.
#include "common/gpu_sorts.cuh"
#include "common/gpu_test.hpp"
#include "common/key_type_lists.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <type_traits>
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

template <class Value>
std::vector<Value> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Value> v(n);
  for (auto& x : v) x = static_cast<Value>(rng());
  return v;
}

/// argsort<Key, Index, Comp> of `keys` into poisoned indices (or over a device copy of the keys
/// themselves: over_keys); the indices on the host.
template <class Key, class Index, class Comp>
std::vector<Index> argsort_on_gpu(const std::vector<Key>& keys, bool over_keys) {
  const std::size_t n = keys.size();
  auto d_keys = to_device(keys);
  auto d_indices = poisoned<Index>(n);
  Index* const indices = over_keys ? reinterpret_cast<Index*>(d_keys.get()) : d_indices.get();
  std::size_t bytes = 0;
  warpsort::argsort<Key, Index, Comp>(nullptr, bytes, d_keys.get(), indices, n);
  auto temp = poisoned<unsigned char>(bytes);
  warpsort::argsort<Key, Index, Comp>(temp.get(), bytes, d_keys.get(), indices, n);
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  return to_host(indices, n);
}

/// Sizes of the pair tests below: the edges, one and two rounds of the index words' sort.
std::vector<std::size_t> pair_sizes() {
  return capped({0, 1, 127, 128, 129, 4097, 65537, 1299709, (std::size_t{1} << 20) + 1});
}

/// The argsort of `keys` in Comp's order, both index widths, into its own buffer and (where
/// the widths agree) over the keys: exactly the values of sort_pairs with the indices 0..n-1
/// (validated against CUB's stable pair sort).
template <class Key, class Comp>
void check_argsort(const std::vector<Key>& keys, const std::string& what) {
  const std::size_t n = keys.size();
  const auto expected = sort_and_validate<Key, std::uint32_t, Comp>(keys, iota_values<std::uint32_t>(n), what).second;
  const auto got32 = argsort_on_gpu<Key, std::uint32_t, Comp>(keys, false);
  const auto got64 = argsort_on_gpu<Key, std::uint64_t, Comp>(keys, false);
  using same_width = std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>;
  const auto over = argsort_on_gpu<Key, same_width, Comp>(keys, true);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(got32[i], expected[i]) << what << " uint32 indices, i=" << i;
    ASSERT_EQ(got64[i], expected[i]) << what << " uint64 indices, i=" << i;
    ASSERT_EQ(over[i], expected[i]) << what << " indices over the keys, i=" << i;
  }
}

/// sort_pairs in place (keys_out == keys_in, values_out == values_in) gives the pairs, bit for
/// bit, that the validated out-of-place sort gives.
template <class Key, class Value, class Comp>
void check_in_place(const std::vector<Key>& keys, const std::vector<Value>& values,
                    const std::string& what) {
  const std::size_t n = keys.size();
  const auto [want_keys, want_values] = sort_and_validate<Key, Value, Comp>(keys, values, what);
  auto dk = to_device(keys);
  auto dv = to_device(values);
  std::size_t bytes = 0;
  warpsort::sort_pairs<Key, Value, Comp>(nullptr, bytes, dk.get(), dk.get(), dv.get(), dv.get(), n);
  auto temp = poisoned<unsigned char>(bytes);
  warpsort::sort_pairs<Key, Value, Comp>(temp.get(), bytes, dk.get(), dk.get(), dv.get(), dv.get(), n);
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  const auto got_keys = to_host(dk.get(), n);
  const auto got_values = to_host(dv.get(), n);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(std::memcmp(&got_keys[i], &want_keys[i], sizeof(Key)), 0) << what << " key i=" << i;
    ASSERT_EQ(got_values[i], want_values[i]) << what << " value i=" << i;
  }
}

/// 8-byte keys made of 32-bit halves drawn from a few patterns, so that many keys tie in one
/// half and differ in the other (the two passes of the index words' sort): every pattern
/// pair, doubles included (zeros of both signs, NaNs, infinities, denormals among them).
template <class Key>
std::vector<Key> keys_tied_by_halves(std::size_t n, std::uint64_t seed) {
  static_assert(sizeof(Key) == 8);
  const std::uint32_t halves[] = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xfff00000u, 0xffffffffu};
  std::mt19937_64 rng(seed);
  std::vector<Key> v(n);
  for (auto& x : v) {
    const std::uint64_t w = (std::uint64_t{halves[rng() % 6]} << 32) | halves[rng() % 6];
    std::memcpy(&x, &w, sizeof(Key));
  }
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

TYPED_TEST(Pairs, ArgsortWritesTheStableOrdersIndices) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  for (std::size_t n : pair_sizes())
    for (const std::string dist : {"uniform", "eight_distinct", "specials", "all_equal"}) {
      const auto keys = make_typed_keys<Key>(dist, n, 7 * n + dist.size());
      const std::string what = dist + " n=" + std::to_string(n);
      check_argsort<Key, warpsort::less<Key>>(keys, "asc " + what);
      check_argsort<Key, warpsort::greater<Key>>(keys, "desc " + what);
    }
}

TYPED_TEST(Pairs, InPlaceMatchesOutOfPlace) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  for (std::size_t n : pair_sizes())
    for (const std::string dist : {"uniform", "eight_distinct", "specials"}) {
      const auto keys = make_typed_keys<Key>(dist, n, 11 * n + dist.size());
      const std::string what = dist + " n=" + std::to_string(n);
      check_in_place<Key, std::uint64_t, warpsort::less<Key>>(keys, random_values<std::uint64_t>(n, n), "u64 asc " + what);
      check_in_place<Key, std::uint32_t, warpsort::greater<Key>>(keys, random_values<std::uint32_t>(n, n + 1), "u32 desc " + what);
    }
}

// 8-byte keys' two passes: keys tied in either half, values that are not positions, both
// orders, against CUB's stable pair sort.
template <class Key>
void check_tied_halves() {
  for (std::size_t n : pair_sizes()) {
    const auto keys = keys_tied_by_halves<Key>(n, 3 * n + 1);
    const auto values = random_values<std::uint64_t>(n, 5 * n + 2);
    const std::string what = "tied halves n=" + std::to_string(n);
    sort_and_validate<Key, std::uint64_t, warpsort::less<Key>>(keys, values, "asc " + what);
    sort_and_validate<Key, std::uint64_t, warpsort::greater<Key>>(keys, values, "desc " + what);
    check_argsort<Key, warpsort::less<Key>>(keys, "argsort asc " + what);
  }
}
TEST(PairsEightByteKeys, KeysTiedInEitherHalfKeepTheStableOrder) {
  WARPSORT_REQUIRE_GPU();
  check_tied_halves<std::uint64_t>();
  check_tied_halves<std::int64_t>();
  check_tied_halves<double>();
}

TEST(ArgsortLimits, MoreThan2e32KeysIsRefused) {
  std::size_t bytes = 0;
  EXPECT_THROW((warpsort::argsort<std::uint32_t, std::uint32_t>(nullptr, bytes, nullptr, nullptr,
                                                                std::size_t{1} << 32)),
               warpsort::input_error);
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

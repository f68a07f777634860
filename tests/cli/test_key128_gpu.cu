// The bench's comparator key (data/key128.hpp, cli/key128_workload.cuh): warpsort's sort of it
// against std::stable_sort over sizes, keys and pairs; and the checks the bench validates it
// with, each shown to catch a broken output.
#include "cli/key128_workload.cuh"
#include "common/gpu_test.hpp"

#include <warpsort/detail/pair_item.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace {

using warpsort::cli::check_key128_pairs;
using warpsort::cli::key128_reference;
using warpsort::cli::no_values;
using warpsort::data::key128;
using warpsort::data::key128_less;
using warpsort::detail::device_buffer;

bool same(const key128& a, const key128& b) { return a.hi == b.hi && a.lo == b.lo; }

/// Keys with many equal high words and some equal keys (few distinct values of each word).
std::vector<key128> test_keys(std::size_t n, std::uint64_t seed) {
  std::vector<key128> keys(n);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& k : keys) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    k = {x % 7, (x >> 20) % 5};
  }
  return keys;
}

template <class T>
device_buffer<T> to_device(const std::vector<T>& host) {
  device_buffer<T> d(std::max<std::size_t>(host.size(), 1));
  if (!host.empty())
    EXPECT_EQ(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return d;
}

template <class T>
std::vector<T> to_host(const T* d, std::size_t n) {
  std::vector<T> host(n);
  if (n) EXPECT_EQ(cudaMemcpy(host.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

/// The stable argsort of keys, on the host.
std::vector<std::uint32_t> stable_order(const std::vector<key128>& keys) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return key128_less{}(keys[a], keys[b]); });
  return order;
}

const std::size_t sizes[] = {0, 1, 2, 127, 128, 129, 4095, 4096, 4097, 65537, 131075, 1000003};

TEST(Key128, WarpsortSortsKeysAsStdSort) {
  WARPSORT_REQUIRE_GPU();
  using W = warpsort::cli::key128_workload<no_values>;
  for (std::size_t n : sizes) {
    const std::vector<key128> keys = test_keys(n, n);
    W::buffers b(std::max<std::size_t>(n, 1));
    W::load(b, keys.data(), n, 0);
    device_buffer<unsigned char> temp(std::max<std::size_t>(W::temp_bytes(n), 1));
    std::size_t bytes = W::temp_bytes(n);
    W::sort(temp.get(), bytes, b, b, n, 0);
    std::vector<key128> expected = keys;
    std::sort(expected.begin(), expected.end(), key128_less{});
    const std::vector<key128> got = to_host(b.keys.get(), n);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_TRUE(same(got[i], expected[i])) << "n = " << n << ", position " << i;
  }
}

/// Pairs out of place or in place (uint32 values ride in the 24-byte item; uint64 ones would
/// widen it to 32 bytes, so they are gathered after the sort, in place from a copy).
template <class Value>
void expect_stable_pairs(bool in_place) {
  using W = warpsort::cli::key128_workload<Value>;
  for (std::size_t n : sizes) {
    const std::vector<key128> keys = test_keys(n, n + 7);
    typename W::buffers in(std::max<std::size_t>(n, 1)), separate(std::max<std::size_t>(n, 1));
    typename W::buffers& out = in_place ? in : separate;
    W::load(in, keys.data(), n, 0);
    device_buffer<unsigned char> temp(std::max<std::size_t>(W::temp_bytes(n), 1));
    std::size_t bytes = W::temp_bytes(n);
    W::sort(temp.get(), bytes, in, out, n, 0);
    const std::vector<std::uint32_t> order = stable_order(keys);
    const std::vector<key128> got_keys = to_host(out.keys.get(), n);
    const std::vector<Value> got_values = to_host(out.values.get(), n);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got_values[i], order[i])
          << "n = " << n << ", in place " << in_place << ", position " << i;
      ASSERT_TRUE(same(got_keys[i], keys[order[i]]))
          << "n = " << n << ", in place " << in_place << ", position " << i;
    }
    if (!in_place)
      EXPECT_EQ(check_key128_pairs<Value>(in.keys.get(), out.keys.get(), out.values.get(), n,
                                          true, 0),
                "");
  }
}

TEST(Key128, WarpsortSortsPairsStably) {
  WARPSORT_REQUIRE_GPU();
  static_assert(warpsort::detail::value_rides<key128, std::uint32_t>);
  static_assert(!warpsort::detail::value_rides<key128, std::uint64_t>);
  for (bool in_place : {false, true}) {
    expect_stable_pairs<std::uint32_t>(in_place);
    expect_stable_pairs<std::uint64_t>(in_place);
  }
}

TEST(Key128, TheKeysCheckFindsAChangedPosition) {
  WARPSORT_REQUIRE_GPU();
  const std::vector<key128> keys = test_keys(5000, 3);
  std::vector<key128> sorted = keys;
  std::sort(sorted.begin(), sorted.end(), key128_less{});
  const auto d_in = to_device(keys);
  const key128_reference reference(d_in.get(), keys.size(), 0);
  EXPECT_EQ(reference.check(to_device(sorted).get()), "");
  std::vector<key128> broken = sorted;
  broken[4321].lo ^= 1;  // one bit of one key
  const std::string message = reference.check(to_device(broken).get());
  EXPECT_NE(message.find("position 4321"), std::string::npos) << message;
}

TEST(Key128, ThePairsCheckFindsEveryKindOfFault) {
  WARPSORT_REQUIRE_GPU();
  const std::vector<key128> keys = test_keys(3000, 5);
  const std::size_t n = keys.size();
  const std::vector<std::uint32_t> order = stable_order(keys);
  std::vector<key128> sorted(n);
  for (std::size_t i = 0; i < n; ++i) sorted[i] = keys[order[i]];
  const auto d_in = to_device(keys);
  const auto check = [&](const std::vector<key128>& k, const std::vector<std::uint32_t>& v, bool stable) {
    return check_key128_pairs<std::uint32_t>(d_in.get(), to_device(k).get(), to_device(v).get(), n,
                                             stable, 0);
  };
  EXPECT_EQ(check(sorted, order, true), "");
  // equal keys out of input order: unstable, but still a sort
  std::size_t tie = 1;
  while (!same(sorted[tie], sorted[tie - 1])) ++tie;
  std::vector<std::uint32_t> swapped = order;
  std::swap(swapped[tie], swapped[tie - 1]);
  EXPECT_NE(check(sorted, swapped, true).find("equal keys out of input order"), std::string::npos);
  EXPECT_EQ(check(sorted, swapped, false), "");
  // two pairs of different keys exchanged: out of order either way
  std::size_t step = 1;
  while (same(sorted[step], sorted[step - 1])) ++step;
  std::vector<key128> k2 = sorted;
  std::vector<std::uint32_t> v2 = order;
  std::swap(k2[step], k2[step - 1]);
  std::swap(v2[step], v2[step - 1]);
  EXPECT_NE(check(k2, v2, false).find("out of order"), std::string::npos);
  // a key that is not its index's input key
  std::vector<key128> k3 = sorted;
  k3[n / 2].hi += 1000;
  EXPECT_NE(check(k3, order, false).find("has key"), std::string::npos);
  // one index twice (with its key), another lost
  std::vector<key128> k4 = sorted;
  std::vector<std::uint32_t> v4 = order;
  v4[tie] = v4[tie - 1];
  k4[tie] = k4[tie - 1];
  EXPECT_NE(check(k4, v4, false).find("pairs, not one"), std::string::npos) << check(k4, v4, false);
  // a value that is no index
  std::vector<std::uint32_t> v5 = order;
  v5[7] = static_cast<std::uint32_t>(n);
  EXPECT_NE(check(sorted, v5, false).find("no input index"), std::string::npos);
}

}  // namespace

// Inputs for the GPU tests: sizes, distributions, seeds, and device buffers poisoned before use.
#pragma once

#include "host/device_buffer.hpp"

#include <warpsort/error.hpp>
#include <warpsort/order.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <random>
#include <string>
#include <vector>

namespace warpsort::testing {

/// Drops sizes over WARPSORT_TEST_MAX_N when it is set (for compute-sanitizer runs, which are
/// 10-100x slower); unset, every size runs.
inline std::vector<std::size_t> capped(std::vector<std::size_t> sizes) {
  if (const char* cap = std::getenv("WARPSORT_TEST_MAX_N")) {
    const std::size_t max_n = std::strtoull(cap, nullptr, 10);
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::size_t n) { return n > max_n; }),
                sizes.end());
  }
  return sizes;
}

/// The pipeline issue's size list (capped by WARPSORT_TEST_MAX_N).
inline std::vector<std::size_t> pipeline_sizes() {
  std::vector<std::size_t> sizes{0, 1, 31, 127, 128, 129, 1000};
  for (int k : {8, 12, 16, 20}) {
    const std::size_t p = std::size_t{1} << k;
    sizes.insert(sizes.end(), {p - 1, p, p + 1});
  }
  // 64 step-1 blocks of 16-, 8- and 4-byte items: version 5's one round of k = 64
  for (int k : {17, 18, 19}) sizes.push_back(std::size_t{1} << k);
  sizes.insert(sizes.end(), {7919, 104729, 1299709, std::size_t{1} << 24});
  return capped(sizes);
}

inline const std::vector<std::string>& test_distributions() {
  static const std::vector<std::string> names{"uniform", "sorted", "reverse_sorted", "all_equal",
                                              "eight_distinct"};
  return names;
}

inline std::vector<std::uint32_t> make_keys(const std::string& dist, std::size_t n,
                                            std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> v(n);
  if (dist == "all_equal") {
    std::fill(v.begin(), v.end(), static_cast<std::uint32_t>(rng()));
    return v;
  }
  std::vector<std::uint32_t> values(8);
  for (auto& x : values) x = static_cast<std::uint32_t>(rng());
  for (auto& x : v)
    x = dist == "eight_distinct" ? values[rng() % 8] : static_cast<std::uint32_t>(rng());
  if (dist == "sorted") std::sort(v.begin(), v.end());
  if (dist == "reverse_sorted") std::sort(v.rbegin(), v.rend());
  return v;
}

/// Keys of any built-in type. "uniform" takes random bit patterns, so float inputs include
/// NaNs, infinities, zeros and denormals; "specials" draws only from +-0, +-inf, quiet and
/// signalling NaNs of both signs, +-1 and the smallest denormals (floats; integers get their
/// extremes and small values).
template <class Key>
std::vector<Key> make_typed_keys(const std::string& dist, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto from_bits = [](std::uint64_t w) {
    Key k;
    std::memcpy(&k, &w, sizeof(Key));  // little-endian: the low bytes
    return k;
  };
  std::vector<Key> pool;
  if constexpr (std::is_floating_point_v<Key>) {
    const Key inf = std::numeric_limits<Key>::infinity();
    const Key qnan = std::numeric_limits<Key>::quiet_NaN();
    const Key snan = std::numeric_limits<Key>::signaling_NaN();
    pool = {Key(0), -Key(0), inf, -inf, qnan, -qnan, snan, -snan, Key(1), Key(-1),
            std::numeric_limits<Key>::denorm_min(), -std::numeric_limits<Key>::denorm_min()};
  } else {
    pool = {std::numeric_limits<Key>::min(), std::numeric_limits<Key>::max(), Key(0), Key(1),
            static_cast<Key>(-1), Key(2)};
  }
  std::vector<Key> distinct(8);
  for (auto& x : distinct) x = from_bits(rng());
  std::vector<Key> v(n);
  const Key equal = from_bits(rng());
  for (auto& x : v) {
    if (dist == "all_equal") x = equal;
    else if (dist == "eight_distinct") x = distinct[rng() % 8];
    else if (dist == "specials") x = pool[rng() % pool.size()];
    else x = from_bits(rng());
  }
  auto before = [](const Key& a, const Key& b) { return warpsort::less<Key>{}(a, b); };
  if (dist == "sorted") std::sort(v.begin(), v.end(), before);
  if (dist == "reverse_sorted") std::sort(v.rbegin(), v.rend(), before);
  return v;
}

template <class T>
detail::device_buffer<T> to_device(const std::vector<T>& host) {
  detail::device_buffer<T> d(host.size());
  if (!host.empty())
    WARPSORT_CUDA_CHECK(cudaMemcpy(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  // a copy from pageable memory may return before it lands; work on a non-blocking stream
  // would not wait for the default stream
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  return d;
}

template <class T>
std::vector<T> to_host(const T* d, std::size_t n) {
  std::vector<T> host(n);
  if (n) WARPSORT_CUDA_CHECK(cudaMemcpy(host.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

/// A device buffer filled with a poison byte pattern, so unwritten outputs show.
template <class T>
detail::device_buffer<T> poisoned(std::size_t n, int byte = 0xA5) {
  detail::device_buffer<T> d(n);
  if (n) WARPSORT_CUDA_CHECK(cudaMemset(d.get(), byte, n * sizeof(T)));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));  // cudaMemset does not wait
  return d;
}

}  // namespace warpsort::testing

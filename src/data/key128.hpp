// The benchmarks' comparator key: 16 bytes, two uint64 words ordered lexicographically (the
// high word first), as a user's composite key with its own comparator would be. No radix sort
// takes such an order as written, so what is timed is comparison sorts with the same
// comparator: warpsort through custom.cuh, cub::DeviceMergeSort and thrust::sort.
#pragma once

#include "data/distributions.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#define WARPSORT_KEY128_HD __host__ __device__
#else
#define WARPSORT_KEY128_HD
#endif

namespace warpsort::data {

struct key128 {
  std::uint64_t hi, lo;
};

/// Ascending by (hi, lo); the sentinel (both words all ones) orders after no key.
struct key128_less {
  WARPSORT_KEY128_HD bool operator()(const key128& a, const key128& b) const {
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
  }
  WARPSORT_KEY128_HD static key128 sentinel() { return {~std::uint64_t{0}, ~std::uint64_t{0}}; }
};

/// Its name where key types are named (`bench --types`, the results' key_type column).
inline const std::string key128_name = "key128";

/// n keys of distribution `name`: each word drawn from that distribution of uint64 keys, the
/// high word with `seed`, the low word with seed + 1 (so "zero" gives equal keys, "sorted"
/// sorted ones, and duplicates of the high word are ordered by the low word).
inline std::vector<key128> generate_key128(const std::string& name, std::uint64_t seed,
                                           std::size_t n) {
  const std::vector<std::uint64_t> hi = generate<std::uint64_t>(name, seed, n);
  const std::vector<std::uint64_t> lo = generate<std::uint64_t>(name, seed + 1, n);
  std::vector<key128> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = {hi[i], lo[i]};
  return keys;
}

}  // namespace warpsort::data

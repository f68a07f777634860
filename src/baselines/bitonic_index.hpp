// Index math of the textbook bitonic sort (seed000_bitonic_cuda, shen_ece498al_mp5 in
// docs/references.bib), shared by the GPU kernels (bitonic_textbook.cu) and the CPU tests:
// small __host__ __device__ functions, no CUDA runtime.
//
// Schedule over a power-of-two length P: for each stage k = 2, 4, ..., P and each step
// j = k/2, k/4, ..., 1, every element i with (i & j) == 0 is compare-exchanged with i + j (= i ^ j),
// ascending iff (i & k) == 0. After stage k the array is made of sorted runs of length k,
// alternately ascending and descending; after stage P it is sorted ascending.
#pragma once

#include <cstddef>
#include <limits>

#ifdef __CUDACC__
#define WARPSORT_BITONIC_HD __host__ __device__ __forceinline__
#else
#define WARPSORT_BITONIC_HD inline
#endif

namespace warpsort::baselines::bitonic {

/// Keys per shared-memory tile (one block of tile_keys / 2 = 1024 threads, one pair per thread).
constexpr std::size_t tile_keys = 2048;
constexpr unsigned tile_threads = static_cast<unsigned>(tile_keys / 2);

/// Smallest power of two >= n (1 for n <= 1).
WARPSORT_BITONIC_HD constexpr std::size_t next_pow2(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

/// log2 of a power of two.
WARPSORT_BITONIC_HD constexpr unsigned log2_pow2(std::size_t p) {
  unsigned r = 0;
  while ((std::size_t{1} << r) < p) ++r;
  return r;
}

/// Lower position of compared pair number `pair` in a step of distance j (a power of two):
/// (pair / j) * 2j + pair % j. Over pair = 0 .. P/2-1 the lower positions and their partners
/// lower + j cover 0 .. P-1 exactly once.
WARPSORT_BITONIC_HD constexpr std::size_t pair_low(std::size_t pair, std::size_t j) {
  return ((pair & ~(j - 1)) << 1) | (pair & (j - 1));
}

/// Partner of a lower position i in a step of distance j: i + j, equal to i ^ j since (i & j) == 0.
WARPSORT_BITONIC_HD constexpr std::size_t pair_high(std::size_t pair, std::size_t j) {
  return pair_low(pair, j) + j;
}

/// Direction of the compare-exchange of position i in stage k: ascending iff (i & k) == 0.
WARPSORT_BITONIC_HD constexpr bool ascending(std::size_t i, std::size_t k) { return (i & k) == 0; }

/// Padding key that sorts after (or equal to) every key: +infinity for floating point (so that a
/// real +inf key is not sorted behind the padding), the maximum value otherwise. NaN keys are not
/// supported by the bitonic baselines.
template <class Key>
constexpr Key pad_key() {
  return std::numeric_limits<Key>::has_infinity ? std::numeric_limits<Key>::infinity()
                                                : std::numeric_limits<Key>::max();
}

/// Keys of one shared-memory tile for a padded length P (the whole array when P < tile_keys).
WARPSORT_BITONIC_HD constexpr std::size_t tile_len(std::size_t P) {
  return P < tile_keys ? P : tile_keys;
}

/// One compare-exchange of keys[i] and keys[i + j] (i < i + j) towards `asc`, with min/max
/// selects (no NaN keys). Used by the kernels on shared and global memory and by the CPU tests.
template <class Key>
WARPSORT_BITONIC_HD void compare_exchange(Key* keys, std::size_t i, std::size_t j, bool asc) {
  const Key a = keys[i];
  const Key b = keys[i + j];
  const bool b_less = b < a;
  const Key lo = b_less ? b : a;
  const Key hi = b_less ? a : b;
  keys[i] = asc ? lo : hi;
  keys[i + j] = asc ? hi : lo;
}

/// Kinds of kernel launch of the schedule.
enum class launch_kind {
  fill,         ///< write the padding keys [n, P) of the power-of-two buffer
  tile_sort,    ///< per tile: all stages k = 2 .. tile_len(P), all their steps, in shared memory
  tile_merge,   ///< per tile, for one stage k > tile_keys: steps j = tile_keys/2 .. 1 in shared memory
  global_step,  ///< one step (k, j), j >= tile_keys, one thread per compared pair, global memory
};

struct launch {
  launch_kind kind;
  std::size_t k;  ///< stage (0 for fill; tile_len(P) for tile_sort)
  std::size_t j;  ///< step distance (global_step only; else 0)
};

/// Calls f(launch{...}) for every kernel launch of a sort of n keys, in launch order: the host
/// code of bitonic_textbook launches exactly this sequence, and the CPU tests replay it.
template <class F>
void for_each_launch(std::size_t n, F&& f) {
  if (n <= 1) return;
  const std::size_t P = next_pow2(n);
  if (P != n) f(launch{launch_kind::fill, 0, 0});
  f(launch{launch_kind::tile_sort, tile_len(P), 0});
  for (std::size_t k = 2 * tile_keys; k <= P && k != 0; k <<= 1) {
    for (std::size_t j = k / 2; j >= tile_keys; j >>= 1) f(launch{launch_kind::global_step, k, j});
    f(launch{launch_kind::tile_merge, k, 0});
  }
}

/// Kernel launches of one bitonic_textbook sort of n keys (what those reports count), with
/// P = next_pow2(n), t = log2(tile_keys) = 11 and s = max(0, log2(P) - t):
///   1 tile-sort kernel (sorts every tile, all stages k <= tile) +
///   s shared-memory merge kernels (one per stage k > tile, doing its steps j < tile) +
///   s(s+1)/2 global step kernels (one per (k, j) with j >= tile) +
///   1 padding fill kernel when n is not a power of two.
/// n <= 1 launches nothing. Device-to-device copies (in and out of the padded buffer, only when
/// n is not a power of two) are cudaMemcpyAsync calls, not kernels, and are not counted.
WARPSORT_BITONIC_HD constexpr std::size_t kernel_launches(std::size_t n) {
  if (n <= 1) return 0;
  const std::size_t P = next_pow2(n);
  const unsigned p = log2_pow2(P);
  const unsigned t = log2_pow2(tile_keys);
  const std::size_t s = p > t ? p - t : 0;
  return 1 + s + s * (s + 1) / 2 + (P != n ? 1 : 0);
}

}  // namespace warpsort::baselines::bitonic

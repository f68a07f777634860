// Block-level merging in shared memory (steps 1, 2 and 4): the warps of a block split a round's
// output evenly, and each merges its contiguous share tile by tile.
#pragma once

#include "warp_merge.cuh"

namespace warpsort::stages {

/// One pair of a round: A = src[start, start + na), B = src[start + na, start + na + nb); it
/// writes outputs [start, start + na + nb) of the round.
struct run_pair {
  int start, na, nb;
};

/// Writes outputs [0, count) of one merge round to dst[0, count): the pair holding output d is
/// pair_at(d). Each warp takes a contiguous share of whole tiles and merges, pair by pair, the
/// part of each pair that falls in its share. Call with the whole block; no barrier inside.
template <class Key, class Comp, class PairAt>
__device__ __forceinline__ void merge_round_by_warps(const Key* src, int count, PairAt pair_at,
                                                     Key* dst, Comp comp) {
  constexpr int tile = policy::merge_tile_keys;
  const int warp = static_cast<int>(threadIdx.x / policy::warp_threads);
  const int warps = static_cast<int>(blockDim.x / policy::warp_threads);
  const int tiles = (count + tile - 1) / tile;
  const int share = (tiles + warps - 1) / warps * tile;
  const int begin = warp * share < count ? warp * share : count;
  const int end = begin + share < count ? begin + share : count;
  for (int d = begin; d < end;) {
    const run_pair p = pair_at(d);
    const int pair_end = p.start + p.na + p.nb;
    const int stop = end < pair_end ? end : pair_end;
    merge_range_by_warp(src + p.start, p.na, src + p.start + p.na, p.nb, d - p.start,
                        stop - p.start, dst + d, comp);
    d = stop;
  }
}

/// Merges round after round between two shared-memory buffers of the block: a round reads
/// `src` and writes `dst`, then the two swap, and the last round writes `out` instead. The
/// rounds are numbered by an int x from rounds.first() on while rounds.more(x), the next is
/// rounds.next(x), rounds.last(x) says the last, and rounds.pairs(x) its pairs (pair_at, as
/// merge_round_by_warps takes). Whole block; a barrier must come before (src filled) and comes
/// between the rounds.
template <class Key, class Comp, class Rounds>
__device__ __forceinline__ void merge_rounds_ping_pong(Key* src, Key* dst, int count,
                                                       const Rounds& rounds, Key* out, Comp comp) {
  for (int x = rounds.first(); rounds.more(x); x = rounds.next(x)) {
    const bool last = rounds.last(x);
    merge_round_by_warps(src, count, rounds.pairs(x), last ? out : dst, comp);
    if (last) break;
    __syncthreads();
    Key* const t = src;
    src = dst;
    dst = t;
  }
}

/// The pairs of a round over runs of `run` keys tiling [0, count) (the last run may be short).
struct regular_runs {
  int count, run;
  __device__ __forceinline__ run_pair operator()(int d) const {
    const int start = d / (2 * run) * (2 * run);
    const int na = count - start < run ? count - start : run;
    const int rest = count - start - na;
    return {start, na, rest < run ? rest : run};
  }
};

/// Rounds over `count` keys in sorted runs of `first_run` keys (merge_rounds_ping_pong): the
/// round of x-key runs merges them pairwise into runs of 2x, until one run is left.
struct doubling_rounds {
  int count, first_run;
  __device__ __forceinline__ int first() const { return first_run; }
  __device__ __forceinline__ bool more(int run) const { return run < count; }
  __device__ __forceinline__ bool last(int run) const { return 2 * run >= count; }
  __device__ __forceinline__ int next(int run) const { return 2 * run; }
  __device__ __forceinline__ regular_runs pairs(int run) const { return {count, run}; }
};

/// Copies a[0..na) then b[0..nb) into dst[0..na+nb) with the whole block, four keys a thread
/// in flight at a time.
template <class Key>
__device__ __forceinline__ void load_two_ranges(Key* dst, const Key* a, int na, const Key* b,
                                                int nb) {
  constexpr int batch = 4;
  const int total = na + nb;
  const int threads = static_cast<int>(blockDim.x);
  for (int base = static_cast<int>(threadIdx.x); base < total; base += batch * threads) {
    Key v[batch];
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      const int i = base + j * threads;
      if (i < total) v[j] = i < na ? a[i] : b[i - na];
    }
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      const int i = base + j * threads;
      if (i < total) dst[i] = v[j];
    }
  }
}

}  // namespace warpsort::stages

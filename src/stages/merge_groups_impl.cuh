#pragma once
// Step 4: each group's L pieces merged on chip by warps and written at the group's offset.
//
// One block per group: the pieces are copied into shared memory, then ceil(log2 L) rounds of
// pairwise warp merges (the step 2 merge, reading and writing shared memory) run there; the
// last round writes straight to global memory. In a round each warp takes an equal share of
// the output and merges, pair by pair, the parts of it that merge path assigns to it.
#include "index_math.hpp"
#include "stages.hpp"
#include "warp_merge.cuh"

#include <warpsort/error.hpp>

#include <cstdio>

namespace warpsort::stages {

/// Start of piece `piece` of a round in which pieces are `width` original pieces wide.
__device__ __forceinline__ unsigned piece_start(const unsigned* offsets, std::size_t piece,
                                                int width_log2, std::size_t pieces) {
  return offsets[min_size(piece << width_log2, pieces)];
}

/// One round in shared memory: merges pieces (2q, 2q+1) of width 2^r for every q; this warp
/// writes outputs [begin, end) of the round.
template <class Key, class Comp>
__device__ void merge_round_by_warp(const Key* src, Key* dst, const unsigned* offsets,
                                    std::size_t pieces, int r, unsigned begin, unsigned end,
                                    Comp comp) {
  const std::size_t pairs = ceil_div(ceil_div(pieces, std::size_t{1} << r), 2);
  while (begin < end) {
    // the pair holding output `begin`: the last q with start(q) <= begin
    std::size_t lo = 0, hi = pairs;
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      if (piece_start(offsets, mid, r + 1, pieces) <= begin) lo = mid; else hi = mid;
    }
    const unsigned a_begin = piece_start(offsets, 2 * lo, r, pieces);
    const unsigned b_begin = piece_start(offsets, 2 * lo + 1, r, pieces);
    const unsigned b_end = piece_start(offsets, 2 * lo + 2, r, pieces);
    const unsigned stop = end < b_end ? end : b_end;
    const std::size_t na = b_begin - a_begin, nb = b_end - b_begin;
    const std::size_t d0 = begin - a_begin, d1 = stop - a_begin;
    const std::size_t a0 = merge_path(src + a_begin, na, src + b_begin, nb, d0, comp);
    const std::size_t a1 = merge_path(src + a_begin, na, src + b_begin, nb, d1, comp);
    merge_by_warp(src + a_begin + a0, a1 - a0, src + b_begin + (d0 - a0), (d1 - a1) - (d0 - a0),
                  dst + begin, comp);
    begin = stop;
  }
}

template <class Key, class Comp>
__global__ void merge_groups_kernel(const Key* src, Key* out, std::size_t n, std::size_t seq_len,
                                    std::size_t sequences, std::size_t groups,
                                    std::size_t capacity, const std::size_t* cuts,
                                    const std::size_t* group_offsets, Comp comp) {
  extern __shared__ __align__(16) unsigned char smem[];
  Key* const ping = reinterpret_cast<Key*>(smem);
  Key* const pong = ping + capacity;
  unsigned* offsets = reinterpret_cast<unsigned*>(pong + capacity);

  const std::size_t g = blockIdx.x;
  const int warp = static_cast<int>(threadIdx.x / policy::warp_threads);
  const int warps = static_cast<int>(blockDim.x / policy::warp_threads);
  const int lane = lane_id();
  const std::size_t group_begin = group_offsets[g];
  const std::size_t group_size = group_offsets[g + 1] - group_begin;
  if (group_size > capacity) {  // impossible by the sampling bound; fail loudly if it ever is
    if (threadIdx.x == 0)
      printf("warpsort step 4: group %llu holds %llu keys, over its bound %llu\n",
             static_cast<unsigned long long>(g), static_cast<unsigned long long>(group_size),
             static_cast<unsigned long long>(capacity));
    __trap();
  }

  // Piece i of this group is sequence i's keys between the cuts of splitters g-1 and g.
  auto piece_begin = [&](std::size_t i) { return g == 0 ? 0 : cuts[(g - 1) * sequences + i]; };
  auto piece_end = [&](std::size_t i) {
    return g + 1 == groups ? min_size(seq_len, n - i * seq_len) : cuts[g * sequences + i];
  };
  if (threadIdx.x == 0) {
    unsigned at = 0;
    for (std::size_t i = 0; i < sequences; ++i) {
      offsets[i] = at;
      at += static_cast<unsigned>(piece_end(i) - piece_begin(i));
    }
    offsets[sequences] = at;
  }
  __syncthreads();

  for (std::size_t i = warp; i < sequences; i += warps) {
    const Key* piece = src + i * seq_len + piece_begin(i);
    for (unsigned x = lane; x < offsets[i + 1] - offsets[i]; x += policy::warp_threads)
      ping[offsets[i] + x] = piece[x];
  }
  __syncthreads();

  // each warp's share of a round's output, a multiple of 32 keys
  const unsigned share =
      static_cast<unsigned>(ceil_div(ceil_div(group_size, warps), policy::warp_threads)) *
      policy::warp_threads;
  const unsigned begin = min_size(static_cast<std::size_t>(warp) * share, group_size);
  const unsigned end = min_size(static_cast<std::size_t>(begin) + share, group_size);
  const int rounds = ceil_log2(sequences);
  for (int r = 0; r < rounds; ++r) {
    const bool last = r + 1 == rounds;
    const Key* src_round = r % 2 == 0 ? ping : pong;
    Key* dst = last ? out + group_begin : (r % 2 == 0 ? pong : ping);
    merge_round_by_warp(src_round, dst, offsets, sequences, r, begin, end, comp);
    if (!last) __syncthreads();
  }
}

template <class Key, class Comp>
void merge_groups(const Key* src, Key* out, std::size_t n, std::size_t seq_len,
                  std::size_t sequences, std::size_t groups, const warpsort::stages::split_layout& layout,
                  Comp comp, const policy& p, cudaStream_t stream) {
  if (groups == 0) return;
  const std::size_t capacity = static_cast<std::size_t>(p.group_capacity);
  const std::size_t smem = 2 * capacity * sizeof(Key) + (sequences + 1) * sizeof(unsigned);
  WARPSORT_CUDA_CHECK(cudaFuncSetAttribute(merge_groups_kernel<Key, Comp>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
  merge_groups_kernel<<<static_cast<unsigned>(groups), p.group_block_threads, smem, stream>>>(
      src, out, n, seq_len, sequences, groups, capacity, layout.cuts, layout.group_offsets,
      comp);
  WARPSORT_CHECK_LAUNCH();
}

}  // namespace warpsort::stages

// Explicit instantiation for one (key type, order); see CMakeLists.txt.
#define WARPSORT_INSTANTIATE_MERGE_GROUPS(Key, Comp) \
  template void warpsort::stages::merge_groups<Key, Comp>(const Key*, Key*, std::size_t, std::size_t, \
                                        std::size_t, std::size_t, const warpsort::stages::split_layout&, Comp, \
                                        const warpsort::policy&, cudaStream_t);

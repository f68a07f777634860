#pragma once
// Step 2 kernels and launcher: one round of pairwise merges.
//
// Each pair's output is cut into blocks of merge_block_keys outputs. A small kernel finds by
// merge path where each block starts in A (a warp per block while a round has few blocks, so
// the search is a few rounds of 32 loads instead of a chain of dependent ones); the merge
// kernel copies the block's shares of A and B into shared memory (coalesced) and its warps
// merge them tile by tile (warp_merge.cuh).
#include "block_merge.cuh"
#include "buffer_merge.cuh"
#include "launch.hpp"
#include <warpsort/stages.hpp>

#include <warpsort/error.hpp>

namespace warpsort::stages {

/// One thread per block: starts[b] = keys of A before block b's first output.
template <class Key, class Comp>
__global__ void find_block_starts_kernel(const Key* in, std::size_t n, std::size_t seq_len,
                                         std::size_t block_keys, std::size_t blocks,
                                         std::size_t* starts, Comp comp) {
  const std::size_t b = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= blocks) return;
  const std::size_t d = b * block_keys;
  const pair_bounds pb = pair_of(d / (2 * seq_len), seq_len, n);
  starts[b] = merge_path(in + pb.a_begin, pb.a_end - pb.a_begin, in + pb.a_end,
                         pb.b_end - pb.a_end, d - pb.a_begin, comp);
}

/// One warp per block, the same starts: for rounds of few blocks, whose time is the latency of
/// the search and not its loads.
template <class Key, class Comp>
__global__ void find_block_starts_by_warp_kernel(const Key* in, std::size_t n,
                                                 std::size_t seq_len, std::size_t block_keys,
                                                 std::size_t blocks, std::size_t* starts,
                                                 Comp comp) {
  const std::size_t b =
      (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / policy::warp_threads;
  if (b >= blocks) return;  // whole warps leave together
  const std::size_t d = b * block_keys;
  const pair_bounds pb = pair_of(d / (2 * seq_len), seq_len, n);
  const std::size_t start =
      merge_path_by_warp(in + pb.a_begin, pb.a_end - pb.a_begin, in + pb.a_end,
                         pb.b_end - pb.a_end, d - pb.a_begin, comp);
  if (lane_id() == 0) starts[b] = start;
}

template <class Key, class Comp>
__global__ void merge_blocks_kernel(const Key* in, Key* out, std::size_t n, std::size_t seq_len,
                                    std::size_t block_keys, const std::size_t* starts,
                                    Comp comp) {
  extern __shared__ __align__(16) unsigned char smem[];
  Key* const keys = reinterpret_cast<Key*>(smem);
  const std::size_t b = blockIdx.x;
  const std::size_t d0 = b * block_keys;
  const pair_bounds pb = pair_of(d0 / (2 * seq_len), seq_len, n);
  const std::size_t na = pb.a_end - pb.a_begin, nb = pb.b_end - pb.a_end;
  const std::size_t local0 = d0 - pb.a_begin;
  const std::size_t local1 = min_size(local0 + block_keys, na + nb);
  const std::size_t a0 = starts[b];
  const std::size_t a1 = local1 == na + nb ? na : starts[b + 1];
  const int count_a = static_cast<int>(a1 - a0);
  const int count_b = static_cast<int>((local1 - a1) - (local0 - a0));
  load_two_ranges(keys, in + pb.a_begin + a0, count_a, in + pb.a_end + (local0 - a0), count_b);
  __syncthreads();
  const run_pair whole{0, count_a, count_b};
  merge_round_by_warps(keys, count_a + count_b, [whole](int) { return whole; }, out + d0, comp);
}

/// The paper's step 2 (policy::buffer_merge_pairs): a warp merges a whole pair through the
/// t-key buffer, however long the pair (so a round has as many warps as pairs).
template <class Key, class Comp>
__global__ void merge_pairs_by_buffer_kernel(const Key* in, Key* out, std::size_t n,
                                             std::size_t seq_len, std::size_t pairs, int t,
                                             Comp comp) {
  const std::size_t pair =
      (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / policy::warp_threads;
  if (pair >= pairs) return;  // whole warps leave together
  const pair_bounds pb = pair_of(pair, seq_len, n);
  buffer_merge_by_warp(t, in + pb.a_begin, pb.a_end - pb.a_begin, in + pb.a_end,
                       pb.b_end - pb.a_end, out + pb.a_begin, comp);
}

template <class Key, class Comp>
void merge_sequences_round(const Key* in, Key* out, std::size_t n, std::size_t seq_len,
                           std::size_t* block_starts, Comp comp, const ablation::design& p,
                           cudaStream_t stream) {
  if (n == 0) return;
  if (p.buffer_merge_pairs) {
    const std::size_t pairs = ceil_div(n, 2 * seq_len);
    const int threads = launchable_threads(merge_pairs_by_buffer_kernel<Key, Comp>, p.block_threads);
    const std::size_t warps = static_cast<std::size_t>(threads) / policy::warp_threads;
    merge_pairs_by_buffer_kernel<<<static_cast<unsigned>(ceil_div(pairs, warps)), threads, 0,
                                   stream>>>(in, out, n, seq_len, pairs, p.merge_buffer_keys, comp);
    WARPSORT_CHECK_LAUNCH();
    return;
  }
  const std::size_t block_keys = static_cast<std::size_t>(p.merge_block_keys);
  const std::size_t blocks = merge_blocks(n, block_keys);
  const unsigned threads = 256;
  if (blocks <= static_cast<std::size_t>(p.warp_split_max_blocks))
    find_block_starts_by_warp_kernel<<<
        static_cast<unsigned>(ceil_div(blocks * policy::warp_threads, threads)), threads, 0,
        stream>>>(in, n, seq_len, block_keys, blocks, block_starts, comp);
  else
    find_block_starts_kernel<<<static_cast<unsigned>(ceil_div(blocks, threads)), threads, 0,
                               stream>>>(in, n, seq_len, block_keys, blocks, block_starts, comp);
  WARPSORT_CHECK_LAUNCH();
  const std::size_t smem = block_keys * sizeof(Key);
  allow_dynamic_smem(merge_blocks_kernel<Key, Comp>, smem);
  merge_blocks_kernel<<<static_cast<unsigned>(blocks),
                        launchable_threads(merge_blocks_kernel<Key, Comp>, p.block_threads), smem,
                        stream>>>(in, out, n, seq_len, block_keys, block_starts, comp);
  WARPSORT_CHECK_LAUNCH();
}

}  // namespace warpsort::stages

// Explicit instantiation for one (key type, order); src/stages/<step>.cu expands it for the
// built-in key types.
#define WARPSORT_INSTANTIATE_MERGE_SEQUENCES(Key, Comp) \
  template void warpsort::stages::merge_sequences_round<Key, Comp>(const Key*, Key*, std::size_t, std::size_t, \
                                             std::size_t*, Comp, const warpsort::ablation::design&, cudaStream_t);

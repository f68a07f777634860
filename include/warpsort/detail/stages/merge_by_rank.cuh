#pragma once
// Steps 3 and 4 for small inputs whose few sorted sequences fit one block's shared memory
// together (ablation::design::rank_merge_keys). There, splitters and a group merge cost two
// launches of a few microseconds of work each; instead every block stages all n keys and
// writes each of its keys (a part of one sequence, a key a thread) at its rank: its index in
// its sequence plus, in every other sequence, the keys before it (a binary search in shared
// memory; an earlier sequence's equal keys first, so the ranks are a permutation). One launch; docs/performance.md, "Small
// inputs: steps 3 and 4 by ranks".
#include "index_math.hpp"
#include "launch.hpp"

#include <warpsort/error.hpp>

#include <cstddef>
#include <cstdint>

namespace warpsort::stages {

/// A block ranks rank_merge_threads keys of one sequence, a key a thread: sequences of 2048
/// keys take four blocks each, so even a few sequences spread over several SMs.
constexpr int rank_merge_threads = 512;

/// Block b writes its part of sequence b / chunks (a block's keys of it, chunk b % chunks) at
/// their ranks among all n keys of src.
template <class Key, class Comp>
__global__ void __launch_bounds__(rank_merge_threads)
    merge_by_rank_kernel(const Key* src, Key* out, unsigned n, unsigned seq_len, unsigned chunks,
                         Comp comp) {
  extern __shared__ __align__(16) unsigned char smem[];
  Key* const keys = reinterpret_cast<Key*>(smem);
  // every key, 16 bytes a load where the input allows
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(Key);
  std::size_t copied = 0;
  if (reinterpret_cast<std::uintptr_t>(src) % 16 == 0) {
    const uint4* from = reinterpret_cast<const uint4*>(src);
    uint4* to = reinterpret_cast<uint4*>(smem);
    for (std::size_t i = threadIdx.x; i < bytes / 16; i += blockDim.x) to[i] = from[i];
    copied = bytes / 16 * 16 / sizeof(Key);
  }
  for (std::size_t i = copied + threadIdx.x; i < n; i += blockDim.x) keys[i] = src[i];
  __syncthreads();
  const unsigned mine = blockIdx.x / chunks, sequences = (n + seq_len - 1) / seq_len;
  const unsigned sequence_begin = mine * seq_len;
  const unsigned i = sequence_begin + (blockIdx.x % chunks) * blockDim.x + threadIdx.x;
  if (i >= min(n, sequence_begin + seq_len)) return;
  const Key key = keys[i];
  unsigned rank = i - sequence_begin;
  for (unsigned q = 0; q < sequences; ++q) {
    if (q == mine) continue;
    // sequence q cut at `key` as step 3 cuts at a splitter: the keys before it
    const unsigned first = q * seq_len;
    rank += cut_other_sequence(keys, first, min(n, first + seq_len), q < mine, key, comp) - first;
  }
  out[rank] = key;
}

/// Merges the sorted sequences of seq_len keys of src (the last maybe shorter) into out. The
/// caller checks that n keys fit one block's shared memory (smem_opt_in_bytes).
template <class Key, class Comp>
void merge_by_rank(const Key* src, Key* out, std::size_t n, std::size_t seq_len, Comp comp,
                   cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t smem = n * sizeof(Key);
  const std::size_t chunks = ceil_div(min_size(seq_len, n), rank_merge_threads);
  allow_dynamic_smem(merge_by_rank_kernel<Key, Comp>, smem);
  merge_by_rank_kernel<Key, Comp><<<static_cast<unsigned>(ceil_div(n, seq_len) * chunks),
                                    rank_merge_threads, smem, stream>>>(
      src, out, static_cast<unsigned>(n), static_cast<unsigned>(seq_len),
      static_cast<unsigned>(chunks), comp);
  WARPSORT_CHECK_LAUNCH();
}

}  // namespace warpsort::stages

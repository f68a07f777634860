// Tuning: every parameter of the four steps lives here, apart from the algorithm.
#pragma once

#include <cstddef>

namespace warpsort {

struct policy {
  // ---- fixed at compile time: they size register arrays in the warp networks ----
  static constexpr int warp_threads = 32;
  /// Step 1: keys each lane holds; one warp sorts a chunk of 32 x 4 = 128 keys (the paper's size).
  static constexpr int chunk_keys_per_lane = 4;
  static constexpr int chunk_keys = warp_threads * chunk_keys_per_lane;
  /// Steps 1, 2 and 4 merge in tiles: a warp holds 32 x 8 = 256 keys of one merge in registers
  /// (A's share ascending, B's share reversed: a bitonic sequence) and sorts them with the
  /// 8-level bitonic merge network; every tile emits 256 final keys.
  static constexpr int tile_keys_per_lane = 8;
  static constexpr int merge_tile_keys = warp_threads * tile_keys_per_lane;

  // ---- chosen at run time ----
  /// Threads per block of the step 1 and step 2 kernels.
  int block_threads = 256;
  /// Step 1: keys one block sorts on chip (a power of two, at least 256): its warps sort
  /// 128-key chunks, then merge them level by level in shared memory, so only sequences of
  /// this length reach global memory. Default: 32 KiB of keys (two buffers, 64 KiB).
  int block_sort_keys = 8192;
  /// Step 2: outputs one block merges per round (a power of two in [256, 2 block_sort_keys]).
  /// Merge path cuts each pair of sequences into blocks of this size.
  int merge_block_keys = 8192;
  /// Step 2: up to this many merge blocks in a round, a warp finds each block's start (merge
  /// path: ~4 rounds of 32 loads); above, a thread does (a chain of ~log2(sequence) dependent
  /// loads, but 32x fewer loads, which matters once a round has thousands of blocks).
  int warp_split_max_blocks = 2048;
  /// Step 2 stops once at most this many sorted sequences remain (L). Step 4 merges the L
  /// pieces of each group on chip in ceil(log2 L) rounds.
  int max_sequences = 16;
  /// Step 3: oversampling K, the number of samples between consecutive splitters. With
  /// K >= L no group exceeds twice the mean group size, whatever the keys.
  int oversampling = 32;
  /// Step 3: up to this many samples, each sample's rank is found by binary searches (a warp
  /// per sample, one kernel); above it, CUB's merge sort sorts the sample (several kernels,
  /// but far fewer searches). 0: always sort.
  int max_ranked_samples = 65536;
  /// Step 4: the most keys one block merges in shared memory (one group). The sample stride
  /// s = group_capacity / (K + L) follows from it, and the number of groups from N / (K s).
  int group_capacity = 8192;
  /// Threads per block of the step 4 kernel.
  int group_block_threads = 256;
  /// Inputs of few blocks, n < few_blocks x block_sort_keys (see sized_for): steps 1 and 2 run
  /// one or two blocks an SM and wait on memory latency, so their blocks get few_blocks_threads
  /// threads (more warps in flight an SM). few_blocks = 0: never.
  int few_blocks = 256;
  int few_blocks_threads = 512;
  /// Small inputs, n < small_input_blocks x block_sort_keys: block_sort_keys (with
  /// merge_block_keys) and group_capacity are halved, not below small_input_min_keys, until n
  /// fills at least small_input_blocks blocks of each, so steps 1 and 4 still spread over the
  /// SMs. small_input_blocks = 0: never.
  int small_input_blocks = 64;
  int small_input_min_keys = 2048;
};

/// Largest power of two <= x (x >= 1).
constexpr int floor_pow2(int x) {
  int p = 1;
  while (2 * p <= x) p *= 2;
  return p;
}

/// Defaults by key size: step 1's and step 4's two buffers stay at 64 KiB of shared memory per
/// block (three blocks an SM), step 2's one buffer at 32 KiB, whatever the key's width.
template <class Key>
constexpr policy default_policy() {
  policy p{};
  p.block_sort_keys = floor_pow2(static_cast<int>(32768 / sizeof(Key)));
  if (p.block_sort_keys < policy::merge_tile_keys) p.block_sort_keys = policy::merge_tile_keys;
  p.merge_block_keys = p.block_sort_keys;
  p.group_capacity = static_cast<int>(32768 / sizeof(Key));
  return p;
}

/// The policy a sort of n keys runs with: `p`, adjusted for inputs of few blocks (fewer keys
/// than p.few_blocks blocks of p.block_sort_keys: p.few_blocks_threads threads a block) and
/// for small inputs (fewer than p.small_input_blocks blocks: on-chip blocks halved until n
/// fills that many, never below p.small_input_min_keys, never grown).
constexpr policy sized_for(policy p, std::size_t n) {
  const auto below = [n](int blocks, int keys) {
    return n < static_cast<std::size_t>(blocks) * static_cast<std::size_t>(keys);
  };
  if (below(p.few_blocks, p.block_sort_keys)) p.block_threads = p.few_blocks_threads;
  if (!below(p.small_input_blocks, p.block_sort_keys)) return p;
  const int least = p.small_input_min_keys > policy::merge_tile_keys ? p.small_input_min_keys
                                                                     : policy::merge_tile_keys;
  const auto fills = [&](int keys) {
    return keys / 2 < least || !below(p.small_input_blocks, keys);
  };
  bool shrunk = false;
  while (!fills(p.block_sort_keys)) {
    p.block_sort_keys /= 2;
    shrunk = true;
  }
  if (shrunk && p.merge_block_keys > p.block_sort_keys) p.merge_block_keys = p.block_sort_keys;
  while (!fills(p.group_capacity)) p.group_capacity /= 2;
  return p;
}

}  // namespace warpsort

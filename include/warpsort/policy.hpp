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
  /// Which design runs. 5, version 5 (the default): step 1 sorts blocks of block_sort_keys on
  /// chip (each warp 32 keys a lane in registers, then threads merge the runs with in-register
  /// networks); then rounds of steps 3 and 4, each merging sets of up to max_sequences sorted
  /// sequences into one (every round but the last is step 2). 4, version 4: warps merge
  /// 256-key tiles with shuffles, step 2's pairwise rounds run until max_sequences sequences
  /// remain, then steps 3 and 4 once; kept (v4_policy) to measure against.
  int variant = 5;
  /// Step 1: keys one block sorts on chip (a power of two; version 5: at least 1024), so that
  /// only sequences of this length reach global memory.
  int block_sort_keys = 8192;
  /// Version 5: the most sequences one round merges into one (k; at most 64). The plan spreads
  /// the rounds' sizes evenly. Version 4: step 2 stops once at most this many remain (L).
  int max_sequences = 32;
  /// Step 3: oversampling K, the number of samples between consecutive splitters. No group
  /// exceeds (K + k) s keys, whatever the keys.
  int oversampling = 64;
  /// Step 3: version 4 finds each sample's rank by binary searches (a warp per sample, one
  /// kernel) up to this many samples; version 5 ranks a round's samples on chip while samples x
  /// k is at most this (and a set's sample fits a block). Above, CUB sorts the sample (version 5:
  /// by radix for integer keys). 0: always sort.
  int max_ranked_samples = 65536;
  /// Step 4: the most keys one block merges in shared memory (one group). The sample stride
  /// s = group_capacity / (K + k) follows from it, and the number of groups from N / (K s).
  int group_capacity = 16384;
  // ---- version 4 only ----
  /// Threads per block of the step 1 and step 2 kernels (version 5 sizes its blocks itself).
  int block_threads = 256;
  /// Step 2: outputs one block merges per round (a power of two in [256, 2 block_sort_keys]).
  /// Merge path cuts each pair of sequences into blocks of this size.
  int merge_block_keys = 8192;
  /// Step 2: up to this many merge blocks in a round, a warp finds each block's start (merge
  /// path: ~4 rounds of 32 loads); above, a thread does (a chain of ~log2(sequence) dependent
  /// loads, but 32x fewer loads, which matters once a round has thousands of blocks).
  int warp_split_max_blocks = 2048;
  /// Threads per block of the step 4 kernel.
  int group_block_threads = 256;
  /// Inputs of few blocks, n < few_blocks x block_sort_keys (see sized_for): steps 1 and 2 run
  /// one or two blocks an SM and wait on memory latency, so their blocks get few_blocks_threads
  /// threads (more warps in flight an SM). few_blocks = 0: never.
  int few_blocks = 256;
  int few_blocks_threads = 512;
  // ---- both ----
  /// Small inputs, n < small_input_blocks x block_sort_keys: block_sort_keys (with
  /// merge_block_keys) and group_capacity are halved, not below small_input_min_keys, until n
  /// fills at least small_input_blocks blocks of each, so steps 1 and 4 still spread over the
  /// SMs. small_input_blocks = 0: never.
  int small_input_blocks = 64;
  int small_input_min_keys = 2048;
  // ---- version 5 only (see sized_for) ----
  /// Inputs of fewer than this many blocks of block_sort_keys run version 4 with its defaults
  /// for the key's width (v4_policy_for): there a round's launches cost more than version 4's
  /// (measured, docs/performance.md). 0: never.
  int v4_below_blocks = 16;
  /// Inputs of fewer than this many blocks of block_sort_keys oversample by small_oversampling
  /// instead of oversampling: a round's samples are ranked on chip there, at a cost that grows
  /// with their number, while above, sorted samples cost little and larger groups pay.
  int small_oversampling_blocks = 8192;
  int small_oversampling = 32;
  /// Inputs of at most this many blocks of block_sort_keys (at most 64) merge step 1's
  /// sequences in one round of up to that many: there a round's launches and pass cost more
  /// than the level a larger set adds (measured, docs/performance.md). 0: never.
  int one_round_blocks = 64;
  // ---- version 4's pipeline: the paper's parts, for the ablation from the paper's algorithm
  // (preset "paper") to version 4; each field switches one idea back to the paper's ----
  // block_sort_keys = 128 (chunk_keys): step 1 is the paper's, warps sort 128-key chunks and
  // write them to global memory.
  /// Step 2: 1, the paper's buffer merge: a warp merges a whole pair of sequences through a
  /// buffer of merge_buffer_keys keys (rounds until max_sequences remain); 0, merge-path tiles.
  int buffer_merge_pairs = 0;
  /// The paper's buffer t (64, 128 or 256 keys), wherever the buffer merge runs.
  int merge_buffer_keys = 128;
  /// Step 3: 1, splitters are (key, position) pairs (groups bounded whatever the keys); 0, the
  /// paper's key-only splitters: equal keys all land in one group.
  int splitter_positions = 1;
  /// Step 4: 1, a block merges a group in shared memory in one pass (needs bounded groups:
  /// splitter_positions = 1); 0, the paper's: ceil(log2 L) rounds through global memory, in
  /// which a warp merges a pair of a group's runs with the buffer merge (no size limit).
  int groups_on_chip = 1;
  /// Step 3 with groups_on_chip = 0: the number of groups S (stride n / (S K)).
  int split_groups = 1024;
};

/// Largest power of two <= x (x >= 1).
constexpr int floor_pow2(int x) {
  int p = 1;
  while (2 * p <= x) p *= 2;
  return p;
}

/// Version 5's defaults for keys of key_bytes bytes: 32 KiB of keys a block in step 1 (with
/// the gaps between runs, five blocks an SM) and 64 KiB a group in step 4 (three an SM).
constexpr policy default_policy_for(std::size_t key_bytes) {
  policy p{};
  p.block_sort_keys = floor_pow2(static_cast<int>(32768 / key_bytes));
  if (p.block_sort_keys < 1024) p.block_sort_keys = 1024;
  p.merge_block_keys = p.block_sort_keys;
  p.group_capacity = static_cast<int>(65536 / key_bytes);
  p.max_ranked_samples = 1 << 23;
  return p;
}

/// Version 4's defaults (the "v4" preset): step 1's and step 4's two buffers at 64 KiB of shared
/// memory per block, step 2's one buffer at 32 KiB, whatever the key's width.
constexpr policy v4_policy_for(std::size_t key_bytes) {
  policy p{};
  p.variant = 4;
  p.block_sort_keys = floor_pow2(static_cast<int>(32768 / key_bytes));
  if (p.block_sort_keys < policy::merge_tile_keys) p.block_sort_keys = policy::merge_tile_keys;
  p.merge_block_keys = p.block_sort_keys;
  p.group_capacity = static_cast<int>(32768 / key_bytes);
  p.max_sequences = 16;
  p.oversampling = 32;
  p.max_ranked_samples = 65536;
  return p;
}

// ---- the ablation ladder: the paper's algorithm, then one idea of ours at a time ----
/// "paper": Warp Sort as Ye et al. and lucchi2023warpsort (docs/references.bib) describe it.
/// Step 1: warps sort 128-key chunks into global memory. Step 2: a warp merges each pair
/// through a t = 128 buffer, rounds until L = 1024 sequences remain. Step 3: S = 1024 key-only
/// splitters, every K = 1024th of a sorted regular sample. Step 4: every group merged by warps
/// with the same buffer merge, pairwise rounds through global memory. t, L, K, S are not known
/// from the paper: t = 128 is its chunk size (4 keys a lane), L = S = 1024 keep step 2's and
/// step 4's last rounds (one warp a pair) at about 8 warps an SM of the H100's 132, K = L so
/// that a group holds at most about twice the mean (K = 32 < L let groups grow to 29x the mean:
/// docs/performance.md).
constexpr policy paper_policy_for(std::size_t key_bytes) {
  policy p = v4_policy_for(key_bytes);
  p.block_sort_keys = policy::chunk_keys;
  p.merge_block_keys = policy::merge_tile_keys;  // unused: no tile merges
  p.buffer_merge_pairs = 1;
  p.merge_buffer_keys = 128;
  p.splitter_positions = 0;
  p.groups_on_chip = 0;
  p.max_sequences = 1024;
  p.oversampling = 1024;
  p.split_groups = 1024;
  p.max_ranked_samples = 0;  // the paper sorts its sample
  p.few_blocks = 0;          // version 4's rules for small inputs are ours
  p.small_input_blocks = 0;
  return p;
}
/// Rung 1, "onchip_step1": + version 2's step 1 on chip (a block sorts block_sort_keys keys:
/// warps' 128-key chunks merged in shared memory), so step 2 starts from long sequences.
constexpr policy onchip_step1_policy_for(std::size_t key_bytes) {
  policy p = paper_policy_for(key_bytes);
  p.block_sort_keys = v4_policy_for(key_bytes).block_sort_keys;
  p.merge_block_keys = p.block_sort_keys;
  return p;
}
/// Rung 2, "positions": + (key, position) splitters: groups bounded on every input.
constexpr policy positions_policy_for(std::size_t key_bytes) {
  policy p = onchip_step1_policy_for(key_bytes);
  p.splitter_positions = 1;
  return p;
}
/// Rung 3, "tiles": + step 2 by merge-path tiles (many warps a pair) instead of a warp a pair.
constexpr policy tiles_policy_for(std::size_t key_bytes) {
  policy p = positions_policy_for(key_bytes);
  p.buffer_merge_pairs = 0;
  return p;
}
/// Rung 4, "onchip_step4": + step 4 on chip in one pass, a block a bounded group, which wants
/// few pieces a group: version 4's L = 16 and K = 32.
constexpr policy onchip_step4_policy_for(std::size_t key_bytes) {
  policy p = tiles_policy_for(key_bytes);
  p.groups_on_chip = 1;
  p.max_sequences = v4_policy_for(key_bytes).max_sequences;
  p.oversampling = v4_policy_for(key_bytes).oversampling;
  return p;
}
// Rung 5 is version 4 (v4_policy_for: its splitters ranked on chip and its rules for small
// inputs), rung 6 version 5 (default_policy_for).

template <class Key>
constexpr policy default_policy() {
  return default_policy_for(sizeof(Key));
}
template <class Key>
constexpr policy v4_policy() {
  return v4_policy_for(sizeof(Key));
}

/// The policy a sort of n keys of key_bytes bytes runs with: `p`, adjusted for the input's size.
/// Version 5: below p.v4_below_blocks blocks of p.block_sort_keys, version 4's defaults for the
/// key's width (then adjusted as version 4's); below p.small_oversampling_blocks blocks,
/// oversampling p.small_oversampling; at most p.one_round_blocks blocks, one round (k up to
/// p.one_round_blocks). Version 4: inputs of few blocks (fewer than p.few_blocks
/// blocks of p.block_sort_keys) get p.few_blocks_threads threads a block, and small inputs
/// (fewer than p.small_input_blocks blocks) on-chip blocks halved until n fills that many,
/// never below p.small_input_min_keys, never grown.
constexpr policy sized_for(policy p, std::size_t n, std::size_t key_bytes) {
  const auto below = [n](int blocks, int keys) {
    return n < static_cast<std::size_t>(blocks) * static_cast<std::size_t>(keys);
  };
  if (p.variant == 5) {
    if (!below(p.v4_below_blocks, p.block_sort_keys)) {
      if (below(p.small_oversampling_blocks, p.block_sort_keys)) p.oversampling = p.small_oversampling;
      const bool one_round = n <= static_cast<std::size_t>(p.one_round_blocks) *
                                      static_cast<std::size_t>(p.block_sort_keys);
      if (one_round && p.max_sequences < p.one_round_blocks) p.max_sequences = p.one_round_blocks;
      return p;
    }
    p = v4_policy_for(key_bytes);
  }
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

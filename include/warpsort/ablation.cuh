// The ablation: the paper's Warp Sort and version 4, the designs the library's sort
// (version 5, warpsort.cuh) is measured against, from the paper's algorithm to ours one idea at
// a time. Each design is a set of switches over version 4's pipeline (step 2's pairwise merge
// rounds, then steps 3 and 4 once); the presets below are the rungs of the ladder, and
// ablation::sort_keys runs any of them beside the library's sort in one process.
//
//   warpsort::ablation::sort_keys<std::uint32_t>(d_temp, temp_bytes, d_in, d_out, n, {}, stream,
//                                                warpsort::ablation::paper_for(4));
//
// The library's sort takes version 4's path itself for small inputs (policy::
// pairwise_below_blocks), with v4_for the key's width.
#pragma once

#include <warpsort/error.hpp>
#include <warpsort/order.cuh>
#include <warpsort/policy.hpp>
#include <warpsort/warpsort.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace warpsort::ablation {

/// Version 4's pipeline and the switches that turn each of its ideas back into the paper's.
/// design{} is version 4 for 4-byte keys (v4_for).
struct design {
  /// Step 1: keys one block sorts on chip (a power of two, at least 256), or 128 (the paper's:
  /// warps sort 128-key chunks and write them to global memory).
  int block_sort_keys = 8192;
  /// Threads per block of the step 1 and step 2 kernels.
  int block_threads = 256;
  /// Step 2: outputs one block merges per round (a power of two in [256, 2 block_sort_keys]).
  /// Merge path cuts each pair of sequences into blocks of this size.
  int merge_block_keys = 8192;
  /// Step 2: up to this many merge blocks in a round, a warp finds each block's start (merge
  /// path: ~4 rounds of 32 loads); above, a thread does (a chain of ~log2(sequence) dependent
  /// loads, but 32x fewer loads, which matters once a round has thousands of blocks).
  int warp_split_max_blocks = 2048;
  /// Step 2 stops once at most this many sequences remain (L).
  int max_sequences = 16;
  /// Step 3: oversampling K, the number of samples between consecutive splitters.
  int oversampling = 32;
  /// Step 3: up to this many samples, each sample's rank is found by binary searches (a warp
  /// per sample, one kernel); above, CUB sorts the sample. 0: always sort.
  int max_ranked_samples = 65536;
  /// Step 4: the most keys one block merges in shared memory (one group); the sample stride
  /// s = group_capacity / (K + L) follows from it.
  int group_capacity = 8192;
  /// Threads per block of the step 4 kernel.
  int group_block_threads = 256;
  /// Inputs of few blocks, n < few_blocks x block_sort_keys (sized_for): steps 1 and 2 run one
  /// or two blocks an SM and wait on memory latency, so their blocks get few_blocks_threads
  /// threads (more warps in flight an SM). few_blocks = 0: never.
  int few_blocks = 256;
  int few_blocks_threads = 512;
  /// Small inputs, n < small_input_blocks x block_sort_keys (sized_for): block_sort_keys (with
  /// merge_block_keys) and group_capacity are halved, not below small_input_min_keys, until n
  /// fills at least small_input_blocks blocks of each, so steps 1 and 4 still spread over the
  /// SMs. small_input_blocks = 0: never.
  int small_input_blocks = 64;
  int small_input_min_keys = 2048;
  /// Tiny inputs, n <= one_block_keys and n <= block_sort_keys (sized_for): one step-1 block
  /// sorts them whole, the least power of two that holds n (not below small_input_min_keys):
  /// one launch, where two blocks and steps 3 and 4 cost three or four (docs/performance.md,
  /// "Small inputs"). 0: never.
  int one_block_keys = 4096;
  /// Few sequences, n <= rank_merge_keys (and every key in one block's shared memory): steps 3
  /// and 4 as one launch that writes every key at its rank among all (stages::merge_by_rank),
  /// where splitters and a group merge take two (docs/performance.md, "Small inputs: steps 3
  /// and 4 by ranks"). 0: never.
  int rank_merge_keys = 65536;
  // ---- the paper's parts: each switches one idea back to the paper's ----
  /// Step 2: 1, the paper's buffer merge: a warp merges a whole pair of sequences through a
  /// buffer of merge_buffer_keys keys; 0, merge-path tiles.
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

/// Version 4 ("v4"): step 1's and step 4's two buffers at 64 KiB of shared memory per block,
/// step 2's one buffer at 32 KiB, whatever the key's width.
constexpr design v4_for(std::size_t key_bytes) {
  design d{};
  d.block_sort_keys = floor_pow2(static_cast<int>(32768 / key_bytes));
  if (d.block_sort_keys < policy::merge_tile_keys) d.block_sort_keys = policy::merge_tile_keys;
  d.merge_block_keys = d.block_sort_keys;
  d.group_capacity = static_cast<int>(32768 / key_bytes);
  return d;
}

// ---- the ladder: the paper's algorithm, then one idea of ours at a time ----
/// "paper": Warp Sort as Ye et al. and lucchi2023warpsort (docs/references.bib) describe it.
/// Step 1: warps sort 128-key chunks into global memory. Step 2: a warp merges each pair
/// through a t = 128 buffer, rounds until L = 1024 sequences remain. Step 3: S = 1024 key-only
/// splitters, every K = 1024th of a sorted regular sample. Step 4: every group merged by warps
/// with the same buffer merge, pairwise rounds through global memory. t, L, K, S are not known
/// from the paper: t = 128 is its chunk size (4 keys a lane), L = S = 1024 keep step 2's and
/// step 4's last rounds (one warp a pair) at about 8 warps an SM of the H100's 132, K = L so
/// that a group holds at most about twice the mean (K = 32 < L let groups grow to 29x the mean:
/// docs/performance.md).
constexpr design paper_for(std::size_t key_bytes) {
  design d = v4_for(key_bytes);
  d.block_sort_keys = policy::chunk_keys;
  d.merge_block_keys = policy::merge_tile_keys;  // unused: no tile merges
  d.buffer_merge_pairs = 1;
  d.merge_buffer_keys = 128;
  d.splitter_positions = 0;
  d.groups_on_chip = 0;
  d.max_sequences = 1024;
  d.oversampling = 1024;
  d.split_groups = 1024;
  d.max_ranked_samples = 0;  // the paper sorts its sample
  d.few_blocks = 0;          // version 4's rules for small inputs are ours
  d.small_input_blocks = 0;
  d.one_block_keys = 0;
  d.rank_merge_keys = 0;
  return d;
}
/// Rung 1, "onchip_step1": + version 2's step 1 on chip (a block sorts block_sort_keys keys:
/// warps' 128-key chunks merged in shared memory), so step 2 starts from long sequences.
constexpr design onchip_step1_for(std::size_t key_bytes) {
  design d = paper_for(key_bytes);
  d.block_sort_keys = v4_for(key_bytes).block_sort_keys;
  d.merge_block_keys = d.block_sort_keys;
  return d;
}
/// Rung 2, "positions": + (key, position) splitters: groups bounded on every input.
constexpr design positions_for(std::size_t key_bytes) {
  design d = onchip_step1_for(key_bytes);
  d.splitter_positions = 1;
  return d;
}
/// Rung 3, "tiles": + step 2 by merge-path tiles (many warps a pair) instead of a warp a pair.
constexpr design tiles_for(std::size_t key_bytes) {
  design d = positions_for(key_bytes);
  d.buffer_merge_pairs = 0;
  return d;
}
/// Rung 4, "onchip_step4": + step 4 on chip in one pass, a block a bounded group, which wants
/// few pieces a group: version 4's L = 16 and K = 32.
constexpr design onchip_step4_for(std::size_t key_bytes) {
  design d = tiles_for(key_bytes);
  d.groups_on_chip = 1;
  d.max_sequences = v4_for(key_bytes).max_sequences;
  d.oversampling = v4_for(key_bytes).oversampling;
  return d;
}
// Rung 5 is version 4 (v4_for: its splitters ranked on chip and its rules for small inputs),
// rung 6 the library's sort (warpsort::default_policy_for).

/// The design a sort of n keys runs with: d with its own rules for small inputs applied.
/// Inputs of few blocks (fewer than d.few_blocks blocks of d.block_sort_keys) get
/// d.few_blocks_threads threads a block; tiny inputs (at most d.one_block_keys keys, and no
/// more than a block holds) one on-chip block of the least power of two that holds them; other small inputs (fewer than
/// d.small_input_blocks blocks) on-chip blocks halved until n fills that many. Blocks never
/// go below d.small_input_min_keys and are never grown.
constexpr design sized_for(design d, std::size_t n) {
  const auto below = [n](int blocks, int keys) {
    return n < static_cast<std::size_t>(blocks) * static_cast<std::size_t>(keys);
  };
  if (below(d.few_blocks, d.block_sort_keys)) d.block_threads = d.few_blocks_threads;
  const bool one_block = n <= static_cast<std::size_t>(d.one_block_keys) &&
                         n <= static_cast<std::size_t>(d.block_sort_keys);
  if (!one_block && !below(d.small_input_blocks, d.block_sort_keys)) return d;
  const int least = d.small_input_min_keys > policy::merge_tile_keys ? d.small_input_min_keys
                                                                     : policy::merge_tile_keys;
  const auto fills = [&](int keys) {
    if (keys / 2 < least) return true;
    return one_block ? n > static_cast<std::size_t>(keys / 2)
                     : !below(d.small_input_blocks, keys);
  };
  bool shrunk = false;
  while (!fills(d.block_sort_keys)) {
    d.block_sort_keys /= 2;
    shrunk = true;
  }
  if (shrunk && d.merge_block_keys > d.block_sort_keys) d.merge_block_keys = d.block_sort_keys;
  while (!fills(d.group_capacity)) d.group_capacity /= 2;
  return d;
}

/// The library's small-input path (sized_plan::pairwise): version 4 for the key's width, sized
/// for n. The library's sort and the plan it prints both take it from here.
constexpr design small_input_design(std::size_t n, std::size_t key_bytes) {
  return sized_for(v4_for(key_bytes), n);
}

/// The shape of a sort of n keys under a design: a pure function of (n, design).
struct pairwise_plan {
  std::size_t n = 0;
  std::size_t chunks = 0;          // step 1: ceil(n / 128)
  int pairwise_rounds = 0;         // step 2: rounds of pairwise merges
  std::size_t sequence_keys = 0;   // length of each sorted sequence after step 2 (last shorter)
  std::size_t sequences = 0;       // L after step 2
  std::size_t sample_stride = 0;   // step 3: s
  std::size_t samples = 0;         // M
  std::size_t groups = 0;          // S: number of independent groups (splitters + 1)
  std::size_t group_bound = 0;     // no group holds more keys than this: (K + L) s
  int group_rounds = 0;            // step 4's passes: 1 on chip, ceil(log2 L) through memory
  bool has_groups() const { return sequences > 1; }  // steps 3 and 4 run
  /// Passes over the keys in memory: step 1, step 2's rounds, step 4's.
  int passes() const { return 1 + pairwise_rounds + (has_groups() ? group_rounds : 0); }
};

/// Checks the design (input_error naming the field) and plans the sort of n keys.
pairwise_plan make_plan(std::size_t n, const design& d);

/// Sorts n keys of d_in into d_out by `comp` with the design (sized_for n); as
/// warpsort::sort_keys otherwise (temporary storage query, in place, refused overlaps, times).
template <class Key, class Comp = less<Key>>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_in, Key* d_out, std::size_t n,
               Comp comp = {}, cudaStream_t stream = 0, const design& d = v4_for(sizeof(Key)),
               stage_times* times = nullptr);

}  // namespace warpsort::ablation

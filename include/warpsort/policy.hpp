// Tuning of the library's sort: every parameter of its steps lives here, apart from the
// algorithm (plan_for, in warpsort.cuh, fits it to an input).
#pragma once

#include <warpsort/detail/stages/index_math.hpp>

#include <cstddef>

namespace warpsort {

/// The tuning of the library's sort (Warp Sort, version 5): step 1 sorts blocks of
/// block_sort_keys on chip (each warp 32 keys a lane in registers, then threads merge the runs
/// with in-register networks); then rounds of steps 3 and 4 merge sets of up to max_sequences
/// sorted sequences into one (every round but the last is step 2). Every field applies to
/// that path; the size rules below say what plan_for chooses where a field is left to it.
/// Version 4 and the paper's algorithm are the ablation's designs (warpsort/ablation.cuh).
struct policy {
  // ---- fixed at compile time: they size register arrays in the warp networks ----
  static constexpr int warp_threads = 32;
  /// Step 1: keys each lane holds; one warp sorts a chunk of 32 x 4 = 128 keys (the paper's size).
  static constexpr int chunk_keys_per_lane = 4;
  static constexpr int chunk_keys = warp_threads * chunk_keys_per_lane;
  /// Merges in tiles: a warp holds 32 x 8 = 256 keys of one merge in registers (A's share
  /// ascending, B's share reversed: a bitonic sequence) and sorts them with the 8-level bitonic
  /// merge network; every tile emits 256 final keys.
  static constexpr int tile_keys_per_lane = 8;
  static constexpr int merge_tile_keys = warp_threads * tile_keys_per_lane;

  // ---- chosen at run time ----
  /// Step 1: keys one block sorts on chip (a power of two, at least 1024), so that only
  /// sequences of this length reach global memory.
  int block_sort_keys = 8192;
  /// The most sequences one round merges into one (k, 2 to 64); the plan spreads the rounds'
  /// sizes evenly. 0: plan_for chooses (32; one round of up to one_round_blocks where that
  /// merges every block).
  int max_sequences = 0;
  /// Step 3: oversampling K, the number of samples between consecutive splitters. No group
  /// exceeds (K + k) s keys, whatever the keys. 0: plan_for chooses (64; small_oversampling
  /// below small_oversampling_blocks blocks).
  int oversampling = 0;
  /// Step 3 ranks a round's samples on chip while samples x k is at most this (and a set's
  /// sample fits a block); above, CUB sorts the sample (by radix for integer keys). 0: always
  /// sort.
  int max_ranked_samples = 1 << 23;
  /// Step 4: the most keys one block merges in shared memory (one group). The sample stride
  /// s = group_capacity / (K + k) follows from it, and the number of groups from N / (K s).
  int group_capacity = 16384;

  // ---- the size rules plan_for follows (0: never), counted in blocks of block_sort_keys ----
  /// Below this many blocks the sort takes the small-input path, version 4's pairwise merges
  /// (ablation::small_input_design: version 4 for the key's width, sized for n): there a
  /// round's launches cost more than version 4's (measured, docs/performance.md). The fields
  /// above do not apply there.
  int pairwise_below_blocks = 16;
  /// oversampling, where plan_for chooses it, below this many blocks: a round's samples are
  /// ranked on chip there, at a cost that grows with their number, while above, sorted samples
  /// cost little and larger groups pay.
  int small_oversampling_blocks = 8192;
  int small_oversampling = 32;
  /// max_sequences, where plan_for chooses it, for inputs of at most this many blocks (at most
  /// 64): step 1's sequences merge in one round, whose launches and pass cost more than the
  /// level a larger set adds (measured, docs/performance.md).
  int one_round_blocks = 64;
};

/// Largest power of two <= x (x >= 1).
constexpr int floor_pow2(int x) {
  int p = 1;
  while (2 * p <= x) p *= 2;
  return p;
}

/// Where a field is left to plan_for (0), the value a plan that does not know n takes: the one
/// for large inputs (make_plan, plan_round and the step launchers read these).
constexpr int oversampling_of(const policy& p) { return p.oversampling > 0 ? p.oversampling : 64; }
constexpr int max_sequences_of(const policy& p) {
  return p.max_sequences > 0 ? p.max_sequences : 32;
}

/// Registers of one SM: 64 K 32-bit registers on every GPU from compute capability 5.0 on
/// (the library builds for 8.0 and later).
inline constexpr int sm_registers = 65536;

/// Step 4's group for keys (or pair items) of key_bytes bytes: 64 KiB of keys, three groups to
/// an SM's shared memory, but no more keys than a block of threads that fits two to an SM's
/// registers can merge (a thread an item of E - 1 outputs, at the thread-merge kernels'
/// register cap, with the short items of a round's runs). The registers bind only past 8 bytes:
/// 16-byte keys take 3472 keys a group (512 threads), not 4096 (608 threads, one block an SM).
constexpr int group_capacity_for(std::size_t key_bytes) {
  const int threads =
      sm_registers / (2 * stages::thread_merge_max_registers_of(key_bytes)) /
      policy::warp_threads * policy::warp_threads;
  const int runs = max_sequences_of(policy{});
  const int by_registers =
      (threads - (runs + 1) / 2) * (stages::thread_merge_keys_of(key_bytes) - 1);
  const int by_shared_memory = static_cast<int>(65536 / key_bytes);
  return by_registers < by_shared_memory ? by_registers : by_shared_memory;
}

/// The defaults for keys of key_bytes bytes: 32 KiB of keys a block in step 1 (with the gaps
/// between runs, five blocks an SM) and group_capacity_for(key_bytes) a group in step 4.
/// policy{} is this for 4-byte keys.
constexpr policy default_policy_for(std::size_t key_bytes) {
  policy p{};
  p.block_sort_keys = floor_pow2(static_cast<int>(32768 / key_bytes));
  if (p.block_sort_keys < 1024) p.block_sort_keys = 1024;
  p.group_capacity = group_capacity_for(key_bytes);
  return p;
}

template <class Key>
constexpr policy default_policy() {
  return default_policy_for(sizeof(Key));
}

}  // namespace warpsort

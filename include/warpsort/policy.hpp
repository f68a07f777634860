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
  /// Steps 2 and 4: the merge buffer t of the paper, held in registers (4 keys a lane). Each
  /// round of the buffer loads t/2 keys and emits t/2 final ones.
  static constexpr int merge_buffer_keys = 128;

  // ---- chosen at run time ----
  /// Threads per block of the step 1 and step 2 kernels (each warp works alone).
  int block_threads = 256;
  /// Step 2: outputs a warp produces per task. While a pair of sequences is no longer than
  /// this, one warp merges the whole pair (the paper's scheme); longer pairs are cut by merge
  /// path into tasks of this many outputs so late rounds keep every SM busy.
  std::size_t merge_task_keys = 2048;
  /// Step 2 stops once at most this many sorted sequences remain (L). Step 4 merges the L
  /// pieces of each group on chip in ceil(log2 L) rounds.
  int max_sequences = 32;
  /// Step 3: oversampling K, the number of samples between consecutive splitters. With
  /// K >= L no group exceeds twice the mean group size, whatever the keys.
  int oversampling = 32;
  /// Step 4: the most keys one block merges in shared memory (one group). The sample stride
  /// s = group_capacity / (K + L) follows from it, and the number of groups from N / (K s).
  int group_capacity = 8192;
  /// Threads per block of the step 4 kernel.
  int group_block_threads = 256;
};

/// Defaults by key size: the step 4 buffers (2 x group_capacity keys) stay at 64 KiB of
/// shared memory per block.
template <class Key>
constexpr policy default_policy() {
  policy p{};
  p.group_capacity = static_cast<int>(32768 / sizeof(Key));
  return p;
}

}  // namespace warpsort

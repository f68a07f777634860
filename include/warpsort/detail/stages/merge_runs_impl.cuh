#pragma once
// One round of steps 3 and 4 over sorted runs of any lengths, laid end to end: the distributed
// sort's last step, where each rank merges the runs it received from every rank. Step 3 is
// splitters.cuh's over the runs as one set (any_runs: every s-th key of each run sampled, the
// sample ordered by (key, position), sorted or, where that is the faster, merged run by run;
// every K-th a splitter, a warp per splitter cutting every run); step 4 merges each group's pieces on chip with version 5's block merge
// (merge_pieces_in_shared). No group exceeds (K + runs) s keys. A window of the output may be
// asked for alone (a rank holding every rank's runs merges its own slice of them): groups
// outside it are skipped, and one across its ends is merged whole and written in part.
#include "index_math.hpp"
#include "launch.hpp"
#include "merge_groups_impl.cuh"
#include "splitters.cuh"
#include "temp_storage.hpp"

#include <warpsort/error.hpp>

#include <cuda/std/type_traits>

namespace warpsort::stages {

/// Positions [from, to) of the merged runs, written at out[0, to - from).
struct output_window {
  std::size_t from = 0, to = ~std::size_t{0};
};

/// Block g merges group g (piece i: run i between the cuts ending groups g - 1 and g) and
/// writes the part of it inside the window.
template <class Key, class Comp>
__global__ void __maxnreg__(thread_merge_max_registers<Key>())
    merge_run_groups_kernel(any_runs<Key> l, Key* out, int capacity, const std::size_t* cuts,
                            const std::size_t* group_offsets, output_window window, Comp comp) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int runs = l.r.runs;
  const std::size_t g = blockIdx.x, width = static_cast<std::size_t>(runs);
  const std::size_t begin = group_offsets[g], end = group_offsets[g + 1];
  const std::size_t first = max_size(begin, window.from), last = min_size(end, window.to);
  if (first >= last) return;  // the whole block: nothing of the group is asked for
  const bool first_group = g == 0, last_group = g + 1 == l.groups();
  const auto piece_begin = [&](int i) { return first_group ? 0 : cuts[(g - 1) * width + i]; };
  const auto piece_end = [&](int i) { return last_group ? l.length(i) : cuts[g * width + i]; };
  merge_pieces_in_shared<Key>(
      smem, capacity, runs, runs, [&](int i) { return l.sequence(i) + piece_begin(i); },
      [&](int i) { return static_cast<int>(piece_end(i) - piece_begin(i)); }, g, comp);
  copy_block_out(out + (first - window.from), reinterpret_cast<const Key*>(smem) + (first - begin),
                 static_cast<int>(last - first));
}

/// Step 4 of merge_runs, once step 3 has cut the runs (`split`): each group merged on chip, the
/// part inside `window` written from out[0].
template <class Key>
void merge_run_groups(const any_runs<Key>& l, const split_layout& split, Key* out, int capacity,
                      output_window window, cudaStream_t stream) {
  const thread_block_shape shape = merge_sets_shape<Key>(capacity, l.r.runs);
  allow_dynamic_smem(merge_run_groups_kernel<Key, less<Key>>, shape.smem_bytes);
  merge_run_groups_kernel<<<static_cast<unsigned>(l.r.groups), shape.threads, shape.smem_bytes,
                            stream>>>(l, out, capacity, split.cuts, split.group_offsets, window,
                                      less<Key>{});
  WARPSORT_CHECK_LAUNCH();
}

/// Temporary storage of merge_runs.
template <class Key>
std::size_t merge_runs_temp_bytes(const runs_shape& r) {
  return split_sequences_temp_bytes<any_runs<Key>, less<Key>>(any_runs<Key>{{}, r},
                                                               sample_order::sorted);
}

/// Merges the runs (as `r` describes them, each where `src` says) into out, ascending; only
/// the positions in `window` (all by default), written from out[0]. Keys: unsigned words.
template <class Key>
void merge_runs(const run_sources<Key>& src, Key* out, const runs_shape& r, int capacity,
                void* temp, std::size_t temp_bytes, cudaStream_t stream,
                output_window window = {}) {
  static_assert(cuda::std::is_unsigned_v<Key>, "merge_runs sorts unsigned words");
  if (window.from >= min_size(window.to, r.keys())) return;  // nothing asked for
  const any_runs<Key> l{src, r};
  const split_layout split =
      split_sequences(l, sample_order::sorted, true, temp, temp_bytes, less<Key>{}, stream);
  merge_run_groups(l, split, out, capacity, window, stream);
}

/// The same with the runs laid end to end in src.
template <class Key>
void merge_runs(const Key* src, Key* out, const runs_shape& r, int capacity, void* temp,
                std::size_t temp_bytes, cudaStream_t stream) {
  run_sources<Key> at{};
  for (int i = 0; i < r.runs; ++i) at.at[i] = src + r.start[i];
  merge_runs<Key>(at, out, r, capacity, temp, temp_bytes, stream);
}

}  // namespace warpsort::stages

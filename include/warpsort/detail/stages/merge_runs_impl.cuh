#pragma once
// One round of steps 3 and 4 over sorted runs of any lengths, laid end to end: the distributed
// sort's last step, where each rank merges the runs it received from every rank. Step 3 samples
// every s-th key of each run, sorts the sample by (key, position) and takes every K-th as a
// splitter; a warp per splitter cuts every run at it. Step 4 merges each group's pieces on chip
// with version 5's block merge (merge_pieces_in_shared). No group exceeds (K + runs) s keys.
// A window of the output may be asked for alone (a rank holding every rank's runs merges its
// own slice of them): groups outside it are skipped, and one across its ends is merged whole
// and written in part.
#include "index_math.hpp"
#include "launch.hpp"
#include "merge_groups_impl.cuh"
#include "temp_storage.hpp"
#include "warp_scan.cuh"

#include <warpsort/error.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <cuda/std/type_traits>

namespace warpsort::stages {

/// Where each run's keys are: run i, positions [start[i], start[i + 1]) of the runs laid end to
/// end, is at[i][0 .. start[i + 1] - start[i]) (the runs need not be adjacent in memory).
template <class Key>
struct run_sources {
  const Key* at[runs_shape::max_runs];
  __host__ __device__ const Key& key(const runs_shape& r, int run, std::size_t position) const {
    return at[run][position - r.start[run]];
  }
};

template <class Key>
__global__ void gather_run_samples_kernel(run_sources<Key> src, runs_shape r, Key* keys,
                                          std::size_t* positions) {
  const std::size_t m = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (m >= r.samples) return;
  const int run = r.run_of(m, r.sample_start);
  const std::size_t position = r.start[run] + (m - r.sample_start[run] + 1) * r.stride - 1;
  keys[m] = src.key(r, run, position);
  positions[m] = position;
}

/// A warp per splitter cuts every run at it (lane i: run i); bounds[(j + 1) runs + i] is where
/// group j ends in run i, as a position in src. Row 0 holds the runs' starts and row `groups`
/// their ends; group_offsets[j] is where group j starts in the output.
template <class Key, class Comp>
__global__ void cut_runs_kernel(run_sources<Key> src, runs_shape r, const std::size_t* positions,
                                std::size_t* bounds, std::size_t* group_offsets, Comp comp) {
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t runs = static_cast<std::size_t>(r.runs);
  if (tid < runs) {
    bounds[tid] = r.start[tid];
    bounds[r.groups * runs + tid] = r.start[tid + 1];
  }
  if (tid == 0) {
    group_offsets[0] = 0;
    group_offsets[r.groups] = r.keys();
  }
  const std::size_t j = tid / policy::warp_threads;
  if (j + 1 >= r.groups) return;  // whole warps leave together
  const std::size_t position = positions[splitter_rank(j, r.oversampling)];
  const int splitter_run = r.run_of(position, r.start);
  const Key key = src.key(r, splitter_run, position);
  std::size_t before = 0;  // keys of all runs ordered at or before the splitter
  for (std::size_t i = lane_id(); i < runs; i += policy::warp_threads) {
    const std::size_t begin = r.start[i], len = r.start[i + 1] - begin;
    const std::size_t cut = cut_sequence(src.at[i], len, i, splitter_run,
                                         position - r.start[splitter_run], key, comp);
    bounds[(j + 1) * runs + i] = begin + cut;
    before += cut;
  }
  before = warp_sum(before);
  if (lane_id() == 0) group_offsets[j + 1] = before;
}

/// Positions [from, to) of the merged runs, written at out[0, to - from).
struct output_window {
  std::size_t from = 0, to = ~std::size_t{0};
};

/// Block g merges group g (piece i: run i between rows g and g + 1 of the bounds) and writes
/// the part of it inside the window.
template <class Key, class Comp>
__global__ void __maxnreg__(thread_merge_max_registers<Key>())
    merge_run_groups_kernel(run_sources<Key> src, runs_shape r, Key* out, int capacity,
                            const std::size_t* bounds, const std::size_t* group_offsets,
                            output_window window, Comp comp) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int runs = r.runs;
  const std::size_t g = blockIdx.x, width = static_cast<std::size_t>(runs);
  const std::size_t begin = group_offsets[g], end = group_offsets[g + 1];
  const std::size_t first = max_size(begin, window.from), last = min_size(end, window.to);
  if (first >= last) return;  // the whole block: nothing of the group is asked for
  const std::size_t* const from = bounds + g * width;
  const std::size_t* const to = from + width;
  merge_pieces_in_shared<Key>(
      smem, capacity, runs, runs, [&](int i) { return src.at[i] + (from[i] - r.start[i]); },
      [&](int i) { return static_cast<int>(to[i] - from[i]); }, g, comp);
  copy_block_out(out + (first - window.from), reinterpret_cast<const Key*>(smem) + (first - begin),
                 static_cast<int>(last - first));
}

namespace runs_detail {
struct arrays {
  void *keys_in, *keys_out;
  std::size_t *positions_in, *positions_out, *bounds, *offsets;
  void* cub_temp;
};
template <class Key>
arrays carve(temp_carver& c, const runs_shape& r, std::size_t cub_bytes) {
  arrays a;
  a.keys_in = c.take<Key>(r.samples);
  a.keys_out = c.take<Key>(r.samples);
  a.positions_in = c.take<std::size_t>(r.samples);
  a.positions_out = c.take<std::size_t>(r.samples);
  a.bounds = c.take<std::size_t>((r.groups + 1) * static_cast<std::size_t>(r.runs));
  a.offsets = c.take<std::size_t>(r.groups + 1);
  a.cub_temp = c.take_bytes(cub_bytes);
  return a;
}
/// The radix sort of the sample (unsigned keys, ascending: the distributed sort's words).
template <class Key>
std::size_t cub_bytes(const runs_shape& r) {
  std::size_t bytes = 0;
  if (r.samples > 0)
    WARPSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, static_cast<const Key*>(nullptr), static_cast<Key*>(nullptr),
        static_cast<const std::size_t*>(nullptr), static_cast<std::size_t*>(nullptr),
        static_cast<std::int64_t>(r.samples)));
  return bytes;
}
}  // namespace runs_detail

/// Temporary storage of merge_runs.
template <class Key>
std::size_t merge_runs_temp_bytes(const runs_shape& r) {
  temp_carver c(nullptr);
  runs_detail::carve<Key>(c, r, runs_detail::cub_bytes<Key>(r));
  return c.used();
}

/// Merges the runs (as `r` describes them, each where `src` says) into out, ascending; only
/// the positions in `window` (all by default), written from out[0]. Keys: unsigned words.
template <class Key>
void merge_runs(const run_sources<Key>& src, Key* out, const runs_shape& r, int capacity,
                void* temp, std::size_t temp_bytes, cudaStream_t stream,
                output_window window = {}) {
  static_assert(cuda::std::is_unsigned_v<Key>, "merge_runs sorts unsigned words");
  if (window.from >= min_size(window.to, r.keys())) return;  // nothing asked for
  const less<Key> comp{};
  const std::size_t cub = runs_detail::cub_bytes<Key>(r);
  temp_carver c(temp);
  const runs_detail::arrays a = runs_detail::carve<Key>(c, r, cub);
  if (c.used() > temp_bytes)
    throw input_error("warpsort: merging runs was given too little temporary storage");
  const unsigned threads = 256;
  if (r.samples > 0) {
    gather_run_samples_kernel<<<static_cast<unsigned>(ceil_div(r.samples, threads)), threads, 0,
                                stream>>>(src, r, static_cast<Key*>(a.keys_in), a.positions_in);
    WARPSORT_CHECK_LAUNCH();
    std::size_t bytes = cub;  // stable: equal keys stay in position order
    WARPSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        a.cub_temp, bytes, static_cast<const Key*>(a.keys_in), static_cast<Key*>(a.keys_out),
        a.positions_in, a.positions_out, static_cast<std::int64_t>(r.samples), 0,
        static_cast<int>(sizeof(Key) * 8), stream));
  }
  const std::size_t lanes = max_size(r.groups * policy::warp_threads, static_cast<std::size_t>(r.runs));
  cut_runs_kernel<<<static_cast<unsigned>(ceil_div(lanes, threads)), threads, 0, stream>>>(
      src, r, a.positions_out, a.bounds, a.offsets, comp);
  WARPSORT_CHECK_LAUNCH();
  const thread_block_shape shape = merge_sets_shape<Key>(capacity, r.runs);
  allow_dynamic_smem(merge_run_groups_kernel<Key, less<Key>>, shape.smem_bytes);
  merge_run_groups_kernel<<<static_cast<unsigned>(r.groups), shape.threads, shape.smem_bytes,
                            stream>>>(src, r, out, capacity, a.bounds, a.offsets, window, comp);
  WARPSORT_CHECK_LAUNCH();
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

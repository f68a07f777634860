#pragma once
// Step 3: splitters from a regular sample, chosen on the GPU, and the cut of every sequence.
//
// Every s-th key of each sorted sequence is sampled with its global position, and the sample
// ordered by (key, position); every K-th sample becomes a splitter. A warp per splitter cuts
// all L sequences at it (binary search, ties split by position) and sums the cuts: that sum is
// the splitter's rank, i.e. the prefix sum of the sizes of the groups before it, so it is the
// next group's output offset. Small samples (up to policy::max_ranked_samples) are not sorted:
// a warp per sample finds its rank by cutting every sequence's samples at it, and the warps of
// splitter samples go on to cut the sequences, each search narrowed to the s keys between two
// samples (one kernel for the whole step). Larger samples are gathered, sorted by CUB's stable
// merge sort, and cut by a second kernel. Both give the same cuts (tested).
#include "index_math.hpp"
#include "stages.hpp"
#include "temp_storage.hpp"
#include "warp_network.cuh"

#include <warpsort/error.hpp>

#include <cub/device/device_merge_sort.cuh>

namespace warpsort::stages {

template <class Key>
__global__ void gather_samples_kernel(const Key* src, std::size_t seq_len, std::size_t stride,
                                      std::size_t samples, Key* sample_keys,
                                      std::size_t* sample_pos) {
  const std::size_t m = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (m >= samples) return;
  const sample_site site = sample_site_of(m, seq_len, stride);
  const std::size_t pos = site.sequence * seq_len + site.position;
  sample_keys[m] = src[pos];
  sample_pos[m] = pos;
}

/// Small samples, one kernel: a warp per sample finds its rank by cutting every sequence's
/// samples at it; the warps whose sample is a splitter then cut every sequence at it, searching
/// only between the two samples the sequence's sample cut names (cut_window: fewer than s keys),
/// and write the cuts and the next group's offset, as cut_sequences_kernel does.
template <class Key, class Comp>
__global__ void split_by_ranked_samples_kernel(const Key* src, std::size_t n,
                                               std::size_t seq_len, std::size_t sequences,
                                               std::size_t stride, std::size_t samples,
                                               std::size_t oversampling, std::size_t splitters,
                                               std::size_t* cuts, std::size_t* group_offsets,
                                               Comp comp) {
  const std::size_t m =
      (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / policy::warp_threads;
  const int lane = lane_id();
  if (m == 0 && lane == 0) {
    group_offsets[0] = 0;
    group_offsets[splitters + 1] = n;
  }
  if (m >= samples) return;  // whole warps leave together
  const sample_site site = sample_site_of(m, seq_len, stride);
  const std::size_t index = m - site.sequence * samples_in(seq_len, stride);
  const Key key = src[site.sequence * seq_len + site.position];
  std::size_t at_or_before = 0;
  std::size_t first_cut = 0;  // this lane's first sequence's sample cut, kept for the cuts
  for (std::size_t i = lane; i < sequences; i += policy::warp_threads) {
    const std::size_t begin = i * seq_len;
    const std::size_t c = sample_cut(src + begin, min_size(seq_len, n - begin), stride, i,
                                     site.sequence, index, key, comp);
    if (i == static_cast<std::size_t>(lane)) first_cut = c;
    at_or_before += c;
  }
#pragma unroll
  for (int d = 16; d > 0; d /= 2) at_or_before += __shfl_xor_sync(full_warp, at_or_before, d);
  const std::size_t rank = at_or_before - 1;  // the same in every lane
  if ((rank + 1) % oversampling != 0) return;  // not a splitter's rank (see splitter_rank)
  const std::size_t j = (rank + 1) / oversampling - 1;
  if (j >= splitters) return;
  std::size_t below = 0;
  for (std::size_t i = lane; i < sequences; i += policy::warp_threads) {
    const std::size_t begin = i * seq_len, len = min_size(seq_len, n - begin);
    const std::size_t c = i == static_cast<std::size_t>(lane)
                              ? first_cut
                              : sample_cut(src + begin, len, stride, i, site.sequence, index,
                                           key, comp);
    const key_range window = cut_window(c, stride, len);
    const std::size_t cut = cut_sequence_between(src + begin, window.begin, window.end, i,
                                                 site.sequence, site.position, key, comp);
    cuts[j * sequences + i] = cut;
    below += cut;
  }
#pragma unroll
  for (int d = 16; d > 0; d /= 2) below += __shfl_xor_sync(full_warp, below, d);
  if (lane == 0) group_offsets[j + 1] = below;
}

template <class Key, class Comp>
__global__ void cut_sequences_kernel(const Key* src, std::size_t n, std::size_t seq_len,
                                     std::size_t sequences, std::size_t oversampling,
                                     std::size_t splitters, const Key* sample_keys,
                                     const std::size_t* sample_pos, std::size_t* cuts,
                                     std::size_t* group_offsets, Comp comp) {
  const std::size_t j =
      (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / policy::warp_threads;
  const int lane = lane_id();
  if (j == 0 && lane == 0) {
    group_offsets[0] = 0;
    group_offsets[splitters + 1] = n;
  }
  if (j >= splitters) return;  // whole warps leave together
  const std::size_t rank = splitter_rank(j, oversampling);
  const Key key = sample_keys[rank];
  const std::size_t pos = sample_pos[rank];
  std::size_t below = 0;
  for (std::size_t i = lane; i < sequences; i += policy::warp_threads) {
    const std::size_t begin = i * seq_len;
    const std::size_t cut = cut_sequence(src + begin, min_size(seq_len, n - begin), i,
                                         pos / seq_len, pos % seq_len, key, comp);
    cuts[j * sequences + i] = cut;
    below += cut;
  }
#pragma unroll
  for (int d = 16; d > 0; d /= 2) below += __shfl_xor_sync(full_warp, below, d);
  if (lane == 0) group_offsets[j + 1] = below;
}

namespace {
template <class Key, class Comp>
std::size_t cub_sort_bytes(std::size_t samples, Comp comp) {
  std::size_t bytes = 0;
  WARPSORT_CUDA_CHECK(cub::DeviceMergeSort::StableSortPairs(
      nullptr, bytes, static_cast<Key*>(nullptr), static_cast<std::size_t*>(nullptr),
      static_cast<std::int64_t>(samples), comp));
  return bytes;
}

struct split_arrays {
  void* keys;
  std::size_t* pos;
  std::size_t* cuts;
  std::size_t* offsets;
  void* cub_temp;
};

template <class Key, class Comp>
split_arrays carve(temp_carver& c, std::size_t samples, std::size_t sequences,
                   std::size_t groups, std::size_t cub_bytes) {
  split_arrays a;
  a.keys = c.take<Key>(samples);
  a.pos = c.take<std::size_t>(samples);
  a.cuts = c.take<std::size_t>((groups - 1) * sequences);
  a.offsets = c.take<std::size_t>(groups + 1);
  a.cub_temp = c.take_bytes(cub_bytes);
  return a;
}
}  // namespace

template <class Key, class Comp>
std::size_t split_temp_bytes(std::size_t samples, std::size_t sequences, std::size_t groups) {
  temp_carver c(nullptr);
  carve<Key, Comp>(c, samples, sequences, groups, cub_sort_bytes<Key>(samples, Comp{}));
  return c.used();
}

template <class Key, class Comp>
split_layout split(const Key* src, std::size_t n, std::size_t seq_len, std::size_t sequences,
                   std::size_t stride, std::size_t samples, std::size_t groups, void* temp,
                   std::size_t temp_bytes, Comp comp, const policy& p, cudaStream_t stream) {
  std::size_t cub_bytes = cub_sort_bytes<Key>(samples, comp);
  temp_carver c(temp);
  const split_arrays a = carve<Key, Comp>(c, samples, sequences, groups, cub_bytes);
  if (c.used() > temp_bytes) throw input_error("warpsort: step 3 was given too little temporary storage");
  Key* sample_keys = static_cast<Key*>(a.keys);

  const unsigned threads = 256;
  const std::size_t splitters = groups - 1;
  if (samples > 0 && samples <= static_cast<std::size_t>(p.max_ranked_samples)) {
    split_by_ranked_samples_kernel<<<
        static_cast<unsigned>(ceil_div(samples * policy::warp_threads, threads)), threads, 0,
        stream>>>(src, n, seq_len, sequences, stride, samples,
                  static_cast<std::size_t>(p.oversampling), splitters, a.cuts, a.offsets, comp);
    WARPSORT_CHECK_LAUNCH();
    return {a.cuts, a.offsets};
  }
  if (samples > 0) {
    gather_samples_kernel<<<static_cast<unsigned>(ceil_div(samples, threads)), threads, 0,
                            stream>>>(src, seq_len, stride, samples, sample_keys, a.pos);
    WARPSORT_CHECK_LAUNCH();
    WARPSORT_CUDA_CHECK(cub::DeviceMergeSort::StableSortPairs(
        a.cub_temp, cub_bytes, sample_keys, a.pos, static_cast<std::int64_t>(samples), comp,
        stream));
  }
  const std::size_t warps = splitters > 0 ? splitters : 1;  // one warp still writes the ends
  cut_sequences_kernel<<<static_cast<unsigned>(ceil_div(warps * policy::warp_threads, threads)),
                         threads, 0, stream>>>(src, n, seq_len, sequences,
                                               static_cast<std::size_t>(p.oversampling),
                                               splitters, sample_keys, a.pos, a.cuts, a.offsets,
                                               comp);
  WARPSORT_CHECK_LAUNCH();
  return {a.cuts, a.offsets};
}

}  // namespace warpsort::stages

// Explicit instantiation for one (key type, order); see CMakeLists.txt.
#define WARPSORT_INSTANTIATE_SPLIT(Key, Comp) \
  template std::size_t warpsort::stages::split_temp_bytes<Key, Comp>(std::size_t, std::size_t, std::size_t); \
  template warpsort::stages::split_layout warpsort::stages::split<Key, Comp>(const Key*, std::size_t, std::size_t, std::size_t, \
                                         std::size_t, std::size_t, std::size_t, void*, \
                                         std::size_t, Comp, const warpsort::policy&, cudaStream_t);

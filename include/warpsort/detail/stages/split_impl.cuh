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
#include <warpsort/stages.hpp>
#include "temp_storage.hpp"
#include "warp_network.cuh"
#include "warp_scan.cuh"

#include <warpsort/detail/cub_merge_sort.cuh>
#include <warpsort/error.hpp>

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

/// The sequences a splitter cuts (the whole input's, or one set's in version 5): `count`
/// sequences of seq_len keys from sequence `first` on (the input's last may be shorter), whose
/// keys start at `begin`. A splitter's cuts fill row `row` of the cut table (`stride` entries a
/// row) and the next group starts at group_offsets[row + 1] = begin + the sum of the cuts.
struct cut_set {
  std::size_t first, count, stride, begin;
};

/// The splitter (the key at splitter_pos of sequence splitter_seq) cuts every sequence of the
/// set, a lane per sequence. window(i, len) says where in sequence i (of the set) the cut can lie.
template <class Key, class Comp, class Window>
__device__ __forceinline__ void cut_sequences_at(const Key* src, std::size_t n,
                                                 std::size_t seq_len, const cut_set& set,
                                                 std::size_t row, std::size_t splitter_seq,
                                                 std::size_t splitter_pos, const Key& key,
                                                 Window window, std::size_t* cuts,
                                                 std::size_t* group_offsets, Comp comp) {
  std::size_t below = 0;
  for (std::size_t i = lane_id(); i < set.count; i += policy::warp_threads) {
    const std::size_t seq = set.first + i;
    const std::size_t begin = seq * seq_len, len = min_size(seq_len, n - begin);
    const key_range w = window(i, len);
    const std::size_t cut = cut_sequence_between(src + begin, w.begin, w.end, seq, splitter_seq,
                                                 splitter_pos, key, comp);
    cuts[row * set.stride + i] = cut;
    below += cut;
  }
  below = warp_sum(below);
  if (lane_id() == 0) group_offsets[row + 1] = set.begin + below;
}

/// Small samples, one kernel: a warp per sample finds its rank by cutting every sequence's
/// samples at it; the warps whose sample is a splitter then cut every sequence at it, searching
/// only between the two samples the sequence's sample cut names (cut_window: fewer than s keys).
template <class Key, class Comp>
__global__ void split_by_ranked_samples_kernel(const Key* src, std::size_t n,
                                               std::size_t seq_len, std::size_t sequences,
                                               std::size_t stride, std::size_t samples,
                                               std::size_t oversampling, std::size_t splitters,
                                               std::size_t* cuts, std::size_t* group_offsets,
                                               Comp comp) {
  const std::size_t m =
      (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / policy::warp_threads;
  const std::size_t lane = lane_id();
  if (m == 0 && lane == 0) {
    group_offsets[0] = 0;
    group_offsets[splitters + 1] = n;
  }
  if (m >= samples) return;  // whole warps leave together
  const sample_site site = sample_site_of(m, seq_len, stride);
  const std::size_t index = m - site.sequence * samples_in(seq_len, stride);
  const Key key = src[site.sequence * seq_len + site.position];
  const auto sample_cut_in = [&](std::size_t i, std::size_t len) {
    return sample_cut(src + i * seq_len, len, stride, i, site.sequence, index, key, comp);
  };
  std::size_t at_or_before = 0;
  std::size_t first_cut = 0;  // this lane's first sequence's sample cut, kept for the cuts
  for (std::size_t i = lane; i < sequences; i += policy::warp_threads) {
    const std::size_t c = sample_cut_in(i, min_size(seq_len, n - i * seq_len));
    if (i == lane) first_cut = c;
    at_or_before += c;
  }
  const std::size_t rank = warp_sum(at_or_before) - 1;  // the same in every lane
  if ((rank + 1) % oversampling != 0) return;  // not a splitter's rank (see splitter_rank)
  const std::size_t j = (rank + 1) / oversampling - 1;
  if (j >= splitters) return;
  cut_sequences_at(src, n, seq_len, cut_set{0, sequences, sequences, 0}, j, site.sequence,
                   site.position, key,
                   [&](std::size_t i, std::size_t len) {
                     return cut_window(i == lane ? first_cut : sample_cut_in(i, len), stride, len);
                   },
                   cuts, group_offsets, comp);
}

/// Sorted samples: a warp per splitter cuts every sequence, searching the whole of it. Key-only
/// splitters (by_position false, the paper's) cut every sequence after its keys equal to the
/// splitter's (cut_by_key).
template <class Key, class Comp>
__global__ void cut_sequences_kernel(const Key* src, std::size_t n, std::size_t seq_len,
                                     std::size_t sequences, std::size_t oversampling,
                                     std::size_t splitters, const Key* sample_keys,
                                     const std::size_t* sample_pos, bool by_position,
                                     std::size_t* cuts, std::size_t* group_offsets, Comp comp) {
  const std::size_t j =
      (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / policy::warp_threads;
  if (j == 0 && lane_id() == 0) {
    group_offsets[0] = 0;
    group_offsets[splitters + 1] = n;
  }
  if (j >= splitters) return;  // whole warps leave together
  const std::size_t rank = splitter_rank(j, oversampling);
  const std::size_t pos = sample_pos[rank];
  // a splitter from no sequence (~0) makes every cut an upper bound: cut_by_key's rule
  cut_sequences_at(src, n, seq_len, cut_set{0, sequences, sequences, 0}, j,
                   by_position ? pos / seq_len : ~std::size_t{0},
                   pos % seq_len, sample_keys[rank],
                   [](std::size_t, std::size_t len) { return key_range{0, len}; }, cuts,
                   group_offsets, comp);
}

/// Step 3's storage (host side).
namespace split_storage {
template <class Key, class Comp>
std::size_t cub_sort_bytes(std::size_t samples, Comp comp) {
  std::size_t bytes = 0;
  WARPSORT_CUDA_CHECK(warpsort::detail::cub_merge_sort::stable_sort_pairs(
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
}  // namespace split_storage

template <class Key, class Comp>
std::size_t split_temp_bytes(std::size_t samples, std::size_t sequences, std::size_t groups) {
  temp_carver c(nullptr);
  split_storage::carve<Key, Comp>(c, samples, sequences, groups,
                                  split_storage::cub_sort_bytes<Key>(samples, Comp{}));
  return c.used();
}

template <class Key, class Comp>
split_layout split(const Key* src, std::size_t n, std::size_t seq_len, std::size_t sequences,
                   std::size_t stride, std::size_t samples, std::size_t groups, void* temp,
                   std::size_t temp_bytes, Comp comp, const ablation::design& p,
                   cudaStream_t stream) {
  std::size_t cub_bytes = split_storage::cub_sort_bytes<Key>(samples, comp);
  temp_carver c(temp);
  const split_storage::split_arrays a =
      split_storage::carve<Key, Comp>(c, samples, sequences, groups, cub_bytes);
  if (c.used() > temp_bytes) throw input_error("warpsort: step 3 was given too little temporary storage");
  Key* sample_keys = static_cast<Key*>(a.keys);

  const unsigned threads = 256;
  const std::size_t splitters = groups - 1;
  // ranking on chip orders samples by (key, position); key-only splitters sort them by key
  if (samples > 0 && samples <= static_cast<std::size_t>(p.max_ranked_samples) &&
      p.splitter_positions) {
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
    WARPSORT_CUDA_CHECK(warpsort::detail::cub_merge_sort::stable_sort_pairs(
        a.cub_temp, cub_bytes, sample_keys, a.pos, static_cast<std::int64_t>(samples), comp,
        stream));
  }
  const std::size_t warps = splitters > 0 ? splitters : 1;  // one warp still writes the ends
  cut_sequences_kernel<<<static_cast<unsigned>(ceil_div(warps * policy::warp_threads, threads)),
                         threads, 0, stream>>>(src, n, seq_len, sequences,
                                               static_cast<std::size_t>(p.oversampling),
                                               splitters, sample_keys, a.pos,
                                               p.splitter_positions != 0, a.cuts, a.offsets, comp);
  WARPSORT_CHECK_LAUNCH();
  return {a.cuts, a.offsets};
}

}  // namespace warpsort::stages

// Explicit instantiation for one (key type, order); src/stages/<step>.cu expands it for the
// built-in key types.
#define WARPSORT_INSTANTIATE_SPLIT_ONE_SET(Key, Comp) \
  template std::size_t warpsort::stages::split_temp_bytes<Key, Comp>(std::size_t, std::size_t, std::size_t); \
  template warpsort::stages::split_layout warpsort::stages::split<Key, Comp>(const Key*, std::size_t, std::size_t, std::size_t, \
                                         std::size_t, std::size_t, std::size_t, void*, \
                                         std::size_t, Comp, const warpsort::ablation::design&, cudaStream_t);

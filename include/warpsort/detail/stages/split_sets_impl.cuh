#pragma once
// Step 3 of version 5: splitters for every set of a round, and the cut of every sequence of the
// set at every splitter of the set.
//
// A round takes the sorted sequences set_sequences (k) at a time. Every s-th key of each
// sequence is sampled; the samples of a set are ordered by (key, position), and every K-th is a
// splitter of the set, so no group holds more than (K + k) s keys, whatever the keys. Two ways
// to order them, both giving the same splitters (tested):
//  - small rounds (merge_round::ranks_on_chip): one kernel. Blocks load a set's samples into
//    shared memory; a warp per sample finds its rank by cutting every sequence's samples at it,
//    and the warps of splitter samples cut the set's sequences in global memory, each search
//    narrowed to the s keys between two samples (cut_window). Work: samples x k searches.
//  - the others: the samples are gathered with their set and sorted by (set, key), ties in
//    position order (gathered in position order, sorted stably): CUB's radix sort for integer
//    keys (set and key as one radix key, through a decomposer), its merge sort for any other
//    key; a warp per splitter then cuts the set's sequences at it.
#include "index_math.hpp"
#include "launch.hpp"
#include "split_impl.cuh"
#include <warpsort/stages.hpp>
#include "temp_storage.hpp"

#include <warpsort/detail/cub_merge_sort.cuh>
#include <warpsort/error.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <cuda/std/tuple>
#include <cuda/std/type_traits>

namespace warpsort::stages {

/// Samples ranked on chip: block (set, chunk) loads the set's samples and ranks the chunk's.
template <class Key, class Comp>
__global__ void rank_set_samples_kernel(const Key* src, round_shape r, unsigned chunks_per_set,
                                        std::size_t* cuts, std::size_t* group_offsets,
                                        Comp comp) {
  extern __shared__ __align__(16) unsigned char smem[];
  Key* const samples = reinterpret_cast<Key*>(smem);
  const std::size_t set = blockIdx.x / chunks_per_set, chunk = blockIdx.x % chunks_per_set;
  const std::size_t first_seq = set * r.set_sequences, count = r.sequences_in(set);
  const std::size_t per_seq = r.samples_per_sequence(), set_samples = r.samples_of(set);
  // sample j of the set: sequence first_seq + j / per_seq, its (j % per_seq + 1) s - 1-th key
  const unsigned per_seq32 = static_cast<unsigned>(per_seq);  // a set's samples fit a block
  for (unsigned j = threadIdx.x; j < set_samples; j += blockDim.x)
    samples[j] = src[(first_seq + j / per_seq32) * r.seq_len + (j % per_seq32 + 1) * r.stride - 1];
  if (chunk == 0 && threadIdx.x == 0) {
    group_offsets[r.first_group(set)] = r.set_begin(set);
    if (set + 1 == r.sets) group_offsets[r.groups] = r.n;
  }
  __syncthreads();

  const std::size_t per_chunk = (r.set_samples + chunks_per_set - 1) / chunks_per_set;
  const std::size_t begin = chunk * per_chunk, end = min_size(begin + per_chunk, set_samples);
  const std::size_t warp = threadIdx.x / policy::warp_threads;
  const std::size_t warps = blockDim.x / policy::warp_threads;
  const cut_set cut{first_seq, count, r.set_sequences, r.set_begin(set)};
  const std::size_t splitters = r.groups_of(set) - 1;
  for (std::size_t j = begin + warp; j < end; j += warps) {  // whole warps: j is uniform
    const std::size_t seq = first_seq + static_cast<unsigned>(j) / per_seq32;
    const std::size_t index = static_cast<unsigned>(j) % per_seq32;
    const Key key = samples[j];
    // sequence i's samples ordered at or before this one (cut_sequence on the shared list)
    const auto sample_cut_in = [&](std::size_t i) {
      const std::size_t m = samples_in(r.sequence_keys(first_seq + i), r.stride);
      return cut_sequence(samples + i * per_seq, m, first_seq + i, seq, index, key, comp);
    };
    std::size_t at_or_before = 0;
    for (std::size_t i = lane_id(); i < count; i += policy::warp_threads)
      at_or_before += sample_cut_in(i);
    const std::size_t rank = warp_sum(at_or_before) - 1;
    if ((rank + 1) % r.oversampling != 0) continue;  // not a splitter's rank (splitter_rank)
    const std::size_t s = (rank + 1) / r.oversampling - 1;
    if (s >= splitters) continue;
    cut_sequences_at(src, r.n, r.seq_len, cut, r.first_group(set) + s, seq,
                     (index + 1) * r.stride - 1, key,
                     [&](std::size_t i, std::size_t len) {
                       return cut_window(sample_cut_in(i), r.stride, len);
                     },
                     cuts, group_offsets, comp);
  }
}

/// Most bytes of samples a block ranks on chip on a GPU with these limits: what one block may
/// have there, and at most 160 KiB.
inline std::size_t on_chip_sample_bytes(const device_limits& d) {
  return min_size(160 * 1024, d.smem_per_block);
}

/// Whether step 3 ranks this round's samples on chip: the plan says so (a small round) and a
/// set's samples fit a block's shared memory for this key type (on the current device, or on
/// one with `most_bytes`).
template <class Key>
bool ranks_set_samples_on_chip(const merge_round& m, std::size_t most_bytes) {
  return m.ranks_on_chip && m.set_samples * sizeof(Key) <= most_bytes;
}
template <class Key>
bool ranks_set_samples_on_chip(const merge_round& m) {
  return ranks_set_samples_on_chip<Key>(m, on_chip_sample_bytes(device_limits_of()));
}

/// A sample's sort key: its set, and its key (for the radix sort, mapped so that unsigned
/// order is the sort order).
template <class Key>
struct set_key {
  std::uint32_t set;
  Key key;
};

/// Integer keys in warpsort's two orders sort their samples by radix: ascending keys as they
/// are, descending ones complemented (~x reverses the order of signed and unsigned integers).
template <class Key, class Comp>
constexpr bool radix_samples =
    cuda::std::is_integral_v<Key> && (sizeof(Key) == 4 || sizeof(Key) == 8) &&
    (cuda::std::is_same_v<Comp, less<Key>> || cuda::std::is_same_v<Comp, greater<Key>>);

/// The set is the most significant part of the radix key.
struct set_then_key {
  template <class Key>
  __host__ __device__ cuda::std::tuple<std::uint32_t&, Key&> operator()(set_key<Key>& k) const {
    return {k.set, k.key};
  }
};

/// The merge sort's order on set_key: set, then the key's order (stable for ties).
template <class Key, class Comp>
struct by_set_then_key {
  Comp comp;
  __host__ __device__ bool operator()(const set_key<Key>& a, const set_key<Key>& b) const {
    return a.set != b.set ? a.set < b.set : comp(a.key, b.key);
  }
};

template <class Key, class Comp>
__global__ void gather_set_samples_kernel(const Key* src, round_shape r, std::size_t samples,
                                          set_key<Key>* keys, std::size_t* positions) {
  const std::size_t m = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (m >= samples) return;
  const sample_site site = sample_site_of(m, r.seq_len, r.stride);
  const std::size_t position = site.sequence * r.seq_len + site.position;
  Key key = src[position];
  if constexpr (radix_samples<Key, Comp> && cuda::std::is_same_v<Comp, greater<Key>>) key = ~key;
  keys[m] = {static_cast<std::uint32_t>(site.sequence / r.set_sequences), key};
  positions[m] = position;
}

/// Sorted samples: a warp per splitter (of all sets) cuts its set's sequences; the first
/// threads write where each set starts.
template <class Key, class Comp>
__global__ void cut_sets_kernel(const Key* src, round_shape r, const std::size_t* positions,
                                std::size_t* cuts, std::size_t* group_offsets, Comp comp) {
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t u = tid; u < r.sets; u += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    group_offsets[r.first_group(u)] = r.set_begin(u);
  if (tid == 0) group_offsets[r.groups] = r.n;
  const std::size_t u = tid / policy::warp_threads;
  if (u >= r.splitters()) return;  // whole warps leave together
  const std::size_t set = r.set_of_splitter(u);
  const std::size_t s = u - set * (r.set_groups - 1);
  const std::size_t position = positions[set * r.set_samples + splitter_rank(s, r.oversampling)];
  const cut_set cut{set * r.set_sequences, r.sequences_in(set), r.set_sequences, r.set_begin(set)};
  cut_sequences_at(src, r.n, r.seq_len, cut, r.first_group(set) + s, position / r.seq_len,
                   position % r.seq_len, src[position],
                   [](std::size_t, std::size_t len) { return key_range{0, len}; }, cuts,
                   group_offsets, comp);
}

/// Step 3's storage and sample sort, a round (host side).
namespace split_sets_storage {
/// Sorts the samples (set_key, position) by set and key, stably; with a null temp, returns
/// the bytes it needs.
template <class Key, class Comp>
std::size_t sort_samples(void* temp, std::size_t bytes, set_key<Key>* keys_in,
                         set_key<Key>* keys_out, std::size_t* positions_in,
                         std::size_t* positions_out, std::size_t samples, std::size_t sets,
                         Comp comp, cudaStream_t stream) {
  if constexpr (radix_samples<Key, Comp>) {
    const int end_bit = static_cast<int>(sizeof(Key) * 8) + ceil_log2(max_size(sets, 2));
    WARPSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        temp, bytes, keys_in, keys_out, positions_in, positions_out,
        static_cast<std::int64_t>(samples), set_then_key{}, 0, end_bit, stream));
  } else {
    (void)keys_out;
    (void)positions_out;
    WARPSORT_CUDA_CHECK(warpsort::detail::cub_merge_sort::stable_sort_pairs(
        temp, bytes, keys_in, positions_in, static_cast<std::int64_t>(samples),
        by_set_then_key<Key, Comp>{comp}, stream));
  }
  return bytes;
}

struct split_sets_arrays {
  void *keys_in, *keys_out;
  std::size_t *positions_in, *positions_out, *cuts, *offsets;
  void* cub_temp;
};

template <class Key, class Comp>
split_sets_arrays carve_sets(temp_carver& c, std::size_t samples, const merge_round& m,
                             std::size_t cub_bytes) {
  constexpr bool two = radix_samples<Key, Comp>;  // the radix sort writes into second arrays
  if (ranks_set_samples_on_chip<Key>(m)) samples = 0;  // nothing gathered
  split_sets_arrays a;
  a.keys_in = c.take<set_key<Key>>(samples);
  a.keys_out = c.take<set_key<Key>>(two ? samples : 0);
  a.positions_in = c.take<std::size_t>(samples);
  a.positions_out = c.take<std::size_t>(two ? samples : 0);
  a.cuts = c.take<std::size_t>(m.groups * m.set_sequences);
  a.offsets = c.take<std::size_t>(m.groups + 1);
  a.cub_temp = c.take_bytes(cub_bytes);
  return a;
}

template <class Key, class Comp>
std::size_t cub_sets_bytes(std::size_t samples, const merge_round& m, Comp comp) {
  if (samples == 0 || ranks_set_samples_on_chip<Key>(m)) return 0;
  return sort_samples<Key, Comp>(nullptr, 0, nullptr, nullptr, nullptr, nullptr, samples, m.sets,
                                 comp, 0);
}
}  // namespace split_sets_storage

template <class Key, class Comp>
std::size_t split_sets_temp_bytes(const merge_round& m) {
  temp_carver c(nullptr);
  split_sets_storage::carve_sets<Key, Comp>(
      c, m.samples, m, split_sets_storage::cub_sets_bytes<Key>(m.samples, m, Comp{}));
  return c.used();
}

template <class Key, class Comp>
split_layout split_sets(const Key* src, std::size_t n, const merge_round& m, void* temp,
                        std::size_t temp_bytes, Comp comp, const policy& p,
                        cudaStream_t stream) {
  const std::size_t samples = m.samples;
  const std::size_t cub_bytes = split_sets_storage::cub_sets_bytes<Key>(samples, m, comp);
  temp_carver c(temp);
  const split_sets_storage::split_sets_arrays a =
      split_sets_storage::carve_sets<Key, Comp>(c, samples, m, cub_bytes);
  if (c.used() > temp_bytes)
    throw input_error("warpsort: step 3 was given too little temporary storage");
  const round_shape r = shape_of(n, m, p);
  const unsigned threads = 256;
  if (ranks_set_samples_on_chip<Key>(m)) {
    // Each warp ranks its samples one after another: where sets are few, split a set over
    // blocks (each loads the whole set) until a warp ranks about 4 samples or the blocks fill
    // every SM several times.
    constexpr std::size_t per_warp = 4;
    const std::size_t least_blocks =
        8 * static_cast<std::size_t>(device_limits_of().sm_count);
    const std::size_t by_work = ceil_div(max_size(m.set_samples, 1), threads / policy::warp_threads * per_warp);
    const std::size_t chunks = max_size(1, min_size(by_work, ceil_div(least_blocks, m.sets)));
    const std::size_t smem = m.set_samples * sizeof(Key);
    allow_dynamic_smem(rank_set_samples_kernel<Key, Comp>, smem);
    rank_set_samples_kernel<<<static_cast<unsigned>(m.sets * chunks), threads, smem, stream>>>(
        src, r, static_cast<unsigned>(chunks), a.cuts, a.offsets, comp);
    WARPSORT_CHECK_LAUNCH();
    return {a.cuts, a.offsets};
  }
  const std::size_t* sorted_positions = a.positions_in;
  if (samples > 0) {
    auto* const keys = static_cast<set_key<Key>*>(a.keys_in);
    gather_set_samples_kernel<Key, Comp><<<static_cast<unsigned>(ceil_div(samples, threads)),
                                           threads, 0, stream>>>(src, r, samples, keys,
                                                                 a.positions_in);
    WARPSORT_CHECK_LAUNCH();
    split_sets_storage::sort_samples<Key, Comp>(
        a.cub_temp, cub_bytes, keys, static_cast<set_key<Key>*>(a.keys_out), a.positions_in,
        a.positions_out, samples, m.sets, comp, stream);
    if constexpr (radix_samples<Key, Comp>) sorted_positions = a.positions_out;
  }
  const std::size_t warps = max_size(r.splitters(), 1);
  cut_sets_kernel<<<static_cast<unsigned>(ceil_div(warps * policy::warp_threads, threads)),
                    threads, 0, stream>>>(src, r, sorted_positions, a.cuts, a.offsets, comp);
  WARPSORT_CHECK_LAUNCH();
  return {a.cuts, a.offsets};
}

}  // namespace warpsort::stages

// Explicit instantiation for one (key type, order), both versions' step 3; src/stages/<step>.cu
// expands it for the built-in key types.
#define WARPSORT_INSTANTIATE_SPLIT(Key, Comp)                                                       \
  WARPSORT_INSTANTIATE_SPLIT_ONE_SET(Key, Comp)                                                     \
  template std::size_t warpsort::stages::split_sets_temp_bytes<Key, Comp>(                          \
      const warpsort::merge_round&);                                                                \
  template warpsort::stages::split_layout warpsort::stages::split_sets<Key, Comp>(                 \
      const Key*, std::size_t, const warpsort::merge_round&, void*, std::size_t, Comp,             \
      const warpsort::policy&, cudaStream_t);

#pragma once
// Step 3 for any sorted sequences: splitters from a regular sample, and the cut of every
// sequence at every splitter. Every path that merges by groups takes it: the library's rounds
// (split_sets), the ablation's single set (split) and the merge of runs of any lengths
// (merge_runs, the distributed sort's receivers).
//
// The sequences form sets (one, or a round's sets of k sequences). Every s-th key of each
// sequence is sampled; a set's samples are ordered by (key, position) and every K-th is a
// splitter of the set, so no group holds more than (K + k) s keys, whatever the keys. Two ways
// to order them, both giving the same splitters (tested):
//  - ranked (sets of equal sequences, small work): rank_set_samples_kernel. A warp per sample
//    finds its rank by cutting every sequence's samples at it (in shared memory where a block
//    stages a small set's samples, else where they lie), and the warps of splitter samples cut
//    the set's sequences, each search narrowed to the s keys between two samples (cut_window).
//  - sorted: gather_samples_kernel writes each sample as a record (set, index, key; a layout of
//    one set leaves the set out), sort_samples orders the records stably by (set, key) (CUB's
//    radix sort for integer keys, its merge sort for any other), and cut_sets_kernel, a warp
//    per splitter, finds where its sample lies from the index and cuts its set's sequences
//    (equal sequences after the radix sort: each search narrowed by the gathered records).
//    Records travel whole, so samples gathered from several GPUs sort alike. Runs of any
//    lengths (any_runs) have each run's samples sorted already, so where that is the faster
//    merge_sample_runs puts their records in the same order without a sort; so do a round's
//    small sets of 4-byte keys, a block a set (merge_set_samples_kernel).
//
// A layout says where the sequences are, how they form sets and which sorted samples are the
// splitters: equal_sequences (one array of sequences of one length, the last maybe shorter, in
// sets of k), any_runs (up to 64 runs of any lengths, anywhere in memory, one set) or, in the
// distributed sort, a rank's sequences among every rank's samples (rank_sequences there). Each
// gives, for every set, cuts[row * columns + i] = where the group of that row ends in the set's
// sequence i (a row a group, but a set's last group has none) and group_offsets[g] = where group
// g starts in the output.
#include "index_math.hpp"
#include "launch.hpp"
#include "merge_groups_impl.cuh"
#include "merge_sample_runs.cuh"
#include <warpsort/stages.hpp>
#include "temp_storage.hpp"
#include "warp_network.cuh"
#include "warp_scan.cuh"

#include <warpsort/detail/cub_merge_sort.cuh>
#include <warpsort/error.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <cuda/std/tuple>
#include <cuda/std/type_traits>

namespace warpsort::stages {

/// A key of a sequence: the sequence and the offset in it.
struct key_site {
  std::size_t sequence, offset;
};

/// The sorted sample a splitter is taken from, where one is: none puts the splitter before
/// every key.
constexpr std::size_t no_sample = ~std::size_t{0};

/// Sorted sequences of seq_len keys laid end to end from `keys` (the last may be shorter),
/// taken set_sequences at a time (round_shape); sample_count is how many samples the whole
/// round has, sequence_samples how many a whole sequence has, last_samples the last sequence's
/// (equal_sequences_of counts them on the host, so no kernel divides for them).
template <class Key>
struct equal_sequences {
  using key_type = Key;
  static constexpr bool can_rank_on_chip = true, one_set = false;
  const Key* keys;
  round_shape r;
  std::size_t sample_count, sequence_samples, last_samples;

  WARPSORT_HD const Key* sequence(std::size_t seq) const { return keys + seq * r.seq_len; }
  WARPSORT_HD std::size_t length(std::size_t seq) const { return r.sequence_keys(seq); }
  WARPSORT_HD std::size_t samples() const { return sample_count; }
  WARPSORT_HD key_site sample_at(std::size_t m) const {
    const sample_site site = sample_site_of(m, sequence_samples, r.stride);
    return {site.sequence, site.position};
  }
  WARPSORT_HD std::size_t set_of_sequence(std::size_t seq) const { return seq / r.set_sequences; }
  WARPSORT_HD std::size_t sets() const { return r.sets; }
  WARPSORT_HD std::size_t first_sequence(std::size_t set) const { return set * r.set_sequences; }
  WARPSORT_HD std::size_t sequences_in(std::size_t set) const { return r.sequences_in(set); }
  WARPSORT_HD std::size_t columns() const { return r.set_sequences; }
  WARPSORT_HD std::size_t set_begin(std::size_t set) const { return r.set_begin(set); }
  WARPSORT_HD std::size_t first_sample(std::size_t set) const { return set * r.set_samples; }
  WARPSORT_HD std::size_t first_group(std::size_t set) const { return r.first_group(set); }
  WARPSORT_HD std::size_t groups() const { return r.groups; }
  WARPSORT_HD std::size_t keys_total() const { return r.n; }
  WARPSORT_HD std::size_t splitters() const { return r.splitters(); }
  WARPSORT_HD std::size_t set_of_splitter(std::size_t u) const { return r.set_of_splitter(u); }
  WARPSORT_HD std::size_t first_splitter(std::size_t set) const { return set * (r.set_groups - 1); }
  WARPSORT_HD std::size_t splitter_sample(std::size_t set, std::size_t s) const {
    return first_sample(set) + splitter_rank(s, r.oversampling);
  }
  /// Samples of sequence seq, and of set `set`.
  WARPSORT_HD std::size_t samples_of_sequence(std::size_t seq) const {
    return seq + 1 < r.sequences ? sequence_samples : last_samples;
  }
  WARPSORT_HD std::size_t samples_of_set(std::size_t set) const {
    return set + 1 < r.sets ? r.set_samples : sample_count - first_sample(set);
  }
};

template <class Key>
equal_sequences<Key> equal_sequences_of(const Key* keys, const round_shape& r,
                                        std::size_t sample_count) {
  const std::size_t last = r.sequences > 0 ? r.sequence_keys(r.sequences - 1) : 0;
  return {keys, r, sample_count, r.samples_per_sequence(), samples_in(last, r.stride)};
}

/// Where each run's keys are: run i, positions [start[i], start[i + 1]) of the runs laid end to
/// end, is at[i][0 .. start[i + 1] - start[i]) (the runs need not be adjacent in memory).
template <class Key>
struct run_sources {
  const Key* at[runs_shape::max_runs];
};

/// Runs of any lengths (runs_shape), each where run_sources says, as one set.
template <class Key>
struct any_runs {
  using key_type = Key;
  static constexpr bool can_rank_on_chip = false, one_set = true;
  run_sources<Key> src;
  runs_shape r;

  WARPSORT_HD const Key* sequence(std::size_t run) const { return src.at[run]; }
  WARPSORT_HD std::size_t length(std::size_t run) const { return r.start[run + 1] - r.start[run]; }
  WARPSORT_HD std::size_t samples() const { return r.samples; }
  WARPSORT_HD key_site sample_at(std::size_t m) const {
    const int run = r.run_of(m, r.sample_start);
    return {static_cast<std::size_t>(run), (m - r.sample_start[run] + 1) * r.stride - 1};
  }
  WARPSORT_HD std::size_t set_of_sequence(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t sets() const { return 1; }
  WARPSORT_HD std::size_t first_sequence(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t sequences_in(std::size_t) const { return static_cast<std::size_t>(r.runs); }
  WARPSORT_HD std::size_t columns() const { return static_cast<std::size_t>(r.runs); }
  WARPSORT_HD std::size_t set_begin(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t first_sample(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t first_group(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t groups() const { return r.groups; }
  WARPSORT_HD std::size_t keys_total() const { return r.keys(); }
  WARPSORT_HD std::size_t splitters() const { return r.groups - 1; }
  WARPSORT_HD std::size_t set_of_splitter(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t first_splitter(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t splitter_sample(std::size_t, std::size_t s) const {
    return splitter_rank(s, r.oversampling);
  }
};

/// The splitter (the key at `splitter_offset` of sequence splitter_seq) cuts every sequence of
/// the set, a lane per sequence, into row `row` of the cut table; the group after the row starts
/// at the set's start plus the sum of the cuts. window(i, len) says where in the set's sequence
/// i the cut can lie.
template <class Layout, class Key, class Comp, class Window>
__device__ __forceinline__ void cut_sequences_at(const Layout& l, std::size_t set,
                                                 std::size_t row, std::size_t splitter_seq,
                                                 std::size_t splitter_offset, const Key& key,
                                                 Window window, std::size_t* cuts,
                                                 std::size_t* group_offsets, Comp comp) {
  const std::size_t first = l.first_sequence(set), count = l.sequences_in(set);
  std::size_t below = 0;
  for (std::size_t i = lane_id(); i < count; i += policy::warp_threads) {
    const std::size_t seq = first + i, len = l.length(seq);
    const key_range w = window(i, len);
    const std::size_t cut = cut_sequence_between(l.sequence(seq), w.begin, w.end, seq,
                                                 splitter_seq, splitter_offset, key, comp);
    cuts[row * l.columns() + i] = cut;
    below += cut;
  }
  below = warp_sum(below);
  if (lane_id() == 0) group_offsets[row + 1] = l.set_begin(set) + below;
}

/// How step 3 orders a round's samples (the same splitters every way).
enum class sample_order {
  sorted,        // gathered and sorted by (set, key)
  merged_sets,   // gathered and put in that order by merging each set's sample lists on chip
  ranked_staged,  // ranked by a kernel, each block loading its set's samples into shared memory
  ranked_in_place,  // ranked by a kernel, a warp a sample, reading the samples where they are
};

/// Samples ranked on chip: block (set, chunk) ranks the chunk's samples of the set, each warp
/// its samples one after another. Staged, the block first loads the set's samples into shared
/// memory (many small sets: each block reads a few KB once); in place, the searches read the
/// samples where they lie in the sequences (few large sets: blocks that each loaded the whole
/// set would read it many times over).
template <class Key, class Comp, bool Staged>
__global__ void rank_set_samples_kernel(equal_sequences<Key> l, unsigned chunks_per_set,
                                        std::size_t per_chunk, std::size_t* cuts,
                                        std::size_t* group_offsets, Comp comp) {
  extern __shared__ __align__(16) unsigned char smem[];
  Key* const staged = reinterpret_cast<Key*>(smem);
  const round_shape& r = l.r;
  const std::size_t set = blockIdx.x / chunks_per_set, chunk = blockIdx.x % chunks_per_set;
  const std::size_t first_seq = set * r.set_sequences, count = r.sequences_in(set);
  const std::size_t per_seq = l.sequence_samples, set_samples = l.samples_of_set(set);
  // sample j of the set: sequence first_seq + j / per_seq, its (j % per_seq + 1) s - 1-th key
  const unsigned per_seq32 = static_cast<unsigned>(per_seq);  // a set's samples fit a block
  const auto sample_in_place = [&](unsigned j) -> Key {
    return l.keys[(first_seq + j / per_seq32) * r.seq_len + (j % per_seq32 + 1) * r.stride - 1];
  };
  const auto sample_key_at = [&](std::size_t j) -> Key {
    if constexpr (Staged)
      return staged[j];
    else
      return sample_in_place(static_cast<unsigned>(j));
  };
  if constexpr (Staged) {
    for (unsigned j = threadIdx.x; j < set_samples; j += blockDim.x) staged[j] = sample_in_place(j);
  }
  if (chunk == 0 && threadIdx.x == 0) {
    group_offsets[r.first_group(set)] = r.set_begin(set);
    if (set + 1 == r.sets) group_offsets[r.groups] = r.n;
  }
  if constexpr (Staged) __syncthreads();

  const std::size_t begin = chunk * per_chunk, end = min_size(begin + per_chunk, set_samples);
  const std::size_t warp = threadIdx.x / policy::warp_threads;
  const std::size_t warps = blockDim.x / policy::warp_threads;
  const std::size_t splitters = r.groups_of(set) - 1;
  for (std::size_t j = begin + warp; j < end; j += warps) {  // whole warps: j is uniform
    const std::size_t seq = first_seq + static_cast<unsigned>(j) / per_seq32;
    const std::size_t index = static_cast<unsigned>(j) % per_seq32;
    const Key key = sample_key_at(j);
    // sequence i's samples ordered at or before this one (cut_sequence on its sample list)
    const auto sample_cut_in = [&](std::size_t i) {
      const std::size_t seq_i = first_seq + i, m = l.samples_of_sequence(seq_i);
      if constexpr (Staged)
        return cut_sequence(staged + i * per_seq, m, seq_i, seq, index, key, comp);
      else
        return cut_sequence(sample_view<Key>{l.sequence(seq_i), r.stride}, m, seq_i, seq, index,
                            key, comp);
    };
    const std::size_t lane = lane_id();
    std::size_t at_or_before = 0;
    std::size_t first_cut = 0;  // this lane's first sequence's sample cut, kept for its window
    for (std::size_t i = lane; i < count; i += policy::warp_threads) {
      const std::size_t c = sample_cut_in(i);
      if (i == lane) first_cut = c;
      at_or_before += c;
    }
    // samples at or before this one, counting it: a splitter's rank + 1 is a multiple of K
    const unsigned ordered = static_cast<unsigned>(warp_sum(at_or_before));
    const unsigned oversampling = static_cast<unsigned>(r.oversampling);
    if (ordered % oversampling != 0) continue;  // not a splitter's rank (splitter_rank)
    const std::size_t s = ordered / oversampling - 1;
    if (s >= splitters) continue;
    cut_sequences_at(l, set, r.first_group(set) + s, seq, (index + 1) * r.stride - 1, key,
                     [&](std::size_t i, std::size_t len) {
                       return cut_window(i == lane ? first_cut : sample_cut_in(i), r.stride, len);
                     },
                     cuts, group_offsets, comp);
  }
}

/// Most bytes of samples a block ranks on chip on a GPU with these limits: what one block may
/// have there, and at most 160 KiB.
inline std::size_t on_chip_sample_bytes(const device_limits& d) {
  return min_size(160 * 1024, d.smem_per_block);
}

/// A gathered sample: its set, its index (the layout's sample_at finds its key from it; samples
/// are gathered in position order, so a stable sort orders equal keys by position) and its key
/// (for the radix sort, mapped so that unsigned order is the sort order). Unused slots (samples
/// gathered from several GPUs, each given the same room) have set ~0: they sort after every set.
/// Indices are 32-bit (split_sequences refuses more samples), so a record is 12 or 16 bytes.
template <class Key, bool WithSet = true>
struct sample_record {
  using key_type = Key;
  static constexpr bool with_set = true;
  std::uint32_t set, index;
  Key key;
};
/// A layout of one set leaves the set out: (index, key), 8 bytes for 4-byte keys. CUB's radix
/// sort takes some 2300 of these in one block against fewer than 2048 12-byte records, and
/// sorts them faster above that (docs/performance.md, "one set's records without the set").
template <class Key>
struct sample_record<Key, false> {
  using key_type = Key;
  static constexpr bool with_set = false;
  std::uint32_t index;
  Key key;
};
/// The records a layout's samples are gathered into.
template <class Layout>
using record_of = sample_record<typename Layout::key_type, !Layout::one_set>;
constexpr std::uint32_t unused_slot = ~std::uint32_t{0};
constexpr std::size_t most_sorted_samples = std::size_t{1} << 32;

/// Integer keys in warpsort's two orders sort their samples by radix: ascending keys as they
/// are, descending ones complemented (~x reverses the order of signed and unsigned integers).
template <class Key, class Comp>
constexpr bool radix_samples =
    cuda::std::is_integral_v<Key> && (sizeof(Key) == 4 || sizeof(Key) == 8) &&
    (cuda::std::is_same_v<Comp, less<Key>> || cuda::std::is_same_v<Comp, greater<Key>>);

/// The key as the radix sort orders it, and back (the map is its own inverse).
template <class Key, class Comp>
__host__ __device__ Key radix_ordered(Key key) {
  if constexpr (radix_samples<Key, Comp> && cuda::std::is_same_v<Comp, greater<Key>>)
    return ~key;
  else
    return key;
}

/// The radix sort's bits of a record: the set, most significant, then the key (the index
/// travels with them, unsorted).
struct set_then_key {
  template <class Key>
  __host__ __device__ cuda::std::tuple<std::uint32_t&, Key&> operator()(
      sample_record<Key, true>& r) const {
    return {r.set, r.key};
  }
  template <class Key>
  __host__ __device__ cuda::std::tuple<Key&> operator()(sample_record<Key, false>& r) const {
    return {r.key};
  }
};

/// The merge sort's order on records: set, then the key's order (stable for ties).
template <class Record, class Comp>
struct by_set_then_key {
  Comp comp;
  __host__ __device__ bool operator()(const Record& a, const Record& b) const {
    if constexpr (Record::with_set)
      if (a.set != b.set) return a.set < b.set;
    return comp(a.key, b.key);
  }
};

/// One sequence's samples as gathered (their records in position order, so sorted), each key
/// as the order sees it: cut_sequence reads them as it reads a sample_view, from the records
/// step 3 has just written rather than from the sequence's scattered positions.
template <class Record, class Comp>
struct gathered_samples {
  const Record* records;
  __device__ typename Record::key_type operator[](std::size_t t) const {
    return radix_ordered<typename Record::key_type, Comp>(records[t].key);
  }
};

/// A 4-byte key's sample as a 64-bit word whose unsigned order is the stable sort's: the
/// key as the radix sort orders it (its bits, the sign bit flipped for signed keys), then the
/// sample's place in its set.
template <class Key>
__device__ std::uint64_t set_sample_word(const Key& radix_key, std::uint32_t place) {
  static_assert(sizeof(Key) == 4, "set sample words hold 4-byte keys");
  std::uint32_t bits = cuda::std::bit_cast<std::uint32_t>(radix_key);
  if constexpr (cuda::std::is_signed_v<Key>) bits ^= 0x80000000u;
  return (static_cast<std::uint64_t>(bits) << 32) | place;
}

/// Every sample's record, in position order: sample first_index + m at out[m]; slots past the
/// layout's samples, up to `slots`, are marked unused. With `words` (equal sequences of 4-byte
/// keys), each sample's set_sample_word too.
template <class Layout, class Comp>
__global__ void gather_samples_kernel(Layout l, record_of<Layout>* out, std::size_t slots,
                                      std::size_t first_index, std::uint64_t* words) {
  using Key = typename Layout::key_type;
  const std::size_t m = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (m >= slots) return;
  if constexpr (cuda::std::is_same_v<Layout, equal_sequences<Key>> && sizeof(Key) == 4) {
    if (words != nullptr) {
      const key_site site = l.sample_at(m);
      const Key key = radix_ordered<Key, Comp>(l.sequence(site.sequence)[site.offset]);
      const std::size_t set = l.set_of_sequence(site.sequence);
      out[m] = {static_cast<std::uint32_t>(set), static_cast<std::uint32_t>(m), key};
      words[m] = set_sample_word(key, static_cast<std::uint32_t>(m - l.first_sample(set)));
      return;
    }
  }
  const auto index = static_cast<std::uint32_t>(first_index + m);
  if constexpr (Layout::one_set) {  // no unused slots (gather_samples checks)
    const key_site site = l.sample_at(index);
    out[m] = {index, radix_ordered<Key, Comp>(l.sequence(site.sequence)[site.offset])};
  } else {
    if (m >= l.samples()) {
      out[m] = {unused_slot, index, Key{}};
      return;
    }
    const key_site site = l.sample_at(index);
    out[m] = {static_cast<std::uint32_t>(l.set_of_sequence(site.sequence)), index,
              radix_ordered<Key, Comp>(l.sequence(site.sequence)[site.offset])};
  }
}

/// Sorted records: a warp per splitter (of all sets) cuts its set's sequences; the first
/// threads write where each set starts. Key-only splitters (by_position false, the paper's)
/// cut every sequence after its keys equal to the splitter's (cut_by_key). Where the records
/// are also at hand as gathered (`gathered`, equal sequences), each search is narrowed as the
/// ranked order narrows it: sequence i's samples ordered before the splitter, counted by a
/// search of its records, put the cut within one stride (cut_window).
template <class Layout, class Comp>
__global__ void cut_sets_kernel(Layout l, const record_of<Layout>* sorted,
                                const record_of<Layout>* gathered, bool by_position,
                                std::size_t* cuts, std::size_t* group_offsets, Comp comp) {
  using Key = typename Layout::key_type;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t q = tid; q < l.sets(); q += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    group_offsets[l.first_group(q)] = l.set_begin(q);
  if (tid == 0) group_offsets[l.groups()] = l.keys_total();
  const std::size_t u = tid / policy::warp_threads;
  if (u >= l.splitters()) return;  // whole warps leave together
  const std::size_t set = l.set_of_splitter(u), s = u - l.first_splitter(set);
  const std::size_t at = l.splitter_sample(set, s);
  if (at == no_sample) {  // before every key: every cut is 0 (an empty window)
    cut_sequences_at(l, set, l.first_group(set) + s, ~std::size_t{0}, 0, Key{},
                     [](std::size_t, std::size_t) { return key_range{0, 0}; }, cuts,
                     group_offsets, comp);
    return;
  }
  const record_of<Layout> splitter = sorted[at];
  const key_site site = l.sample_at(splitter.index);
  const Key key = radix_ordered<Key, Comp>(splitter.key);
  if constexpr (cuda::std::is_same_v<Layout, equal_sequences<Key>>) {
    if (gathered != nullptr && by_position) {
      const std::size_t t = splitter.index - site.sequence * l.sequence_samples;  // in its sequence
      cut_sequences_at(l, set, l.first_group(set) + s, site.sequence, site.offset, key,
                       [&](std::size_t i, std::size_t len) {
                         const std::size_t seq = l.first_sequence(set) + i;
                         const std::size_t before = cut_sequence(
                             gathered_samples<record_of<Layout>, Comp>{
                                 gathered + seq * l.sequence_samples},
                             l.samples_of_sequence(seq), seq, site.sequence, t, key, comp);
                         return cut_window(before, l.r.stride, len);
                       },
                       cuts, group_offsets, comp);
      return;
    }
  }
  // a splitter from no sequence (~0) makes every cut an upper bound: cut_by_key's rule
  cut_sequences_at(l, set, l.first_group(set) + s, by_position ? site.sequence : ~std::size_t{0},
                   site.offset, key, [](std::size_t, std::size_t len) { return key_range{0, len}; },
                   cuts, group_offsets, comp);
}

/// Most samples a set may have for merge_set_samples_kernel: step 4's default group of 8-byte
/// keys, whose block (576 threads) fits two an SM.
constexpr std::size_t most_merged_set_samples = 8192;

/// Whether a round's samples are ordered by merging each set's sample lists on chip: 4-byte
/// keys in warpsort's orders (as words with their places), small sets. The merge's levels cost
/// a set's samples x log2 k where the radix sort costs six launches over all the records.
template <class Key, class Comp>
bool merges_set_samples(std::size_t set_samples) {
  return radix_samples<Key, Comp> && sizeof(Key) == 4 && set_samples <= most_merged_set_samples;
}

/// Block b orders set b's records: its sample lists, one a sequence and each sorted, merged as
/// set_sample_words by step 4's block merge, each record then written at its rank.
template <class Key>
__global__ void __maxnreg__(thread_merge_max_registers<std::uint64_t>())
    merge_set_samples_kernel(equal_sequences<Key> l, const std::uint64_t* words,
                             const record_of<equal_sequences<Key>>* gathered,
                             record_of<equal_sequences<Key>>* sorted, int capacity) {
  extern __shared__ __align__(16) unsigned char smem[];
  const std::size_t set = blockIdx.x, first = l.first_sample(set);
  const std::size_t first_seq = l.first_sequence(set);
  const int count = merge_pieces_in_shared<std::uint64_t>(
      smem, capacity, static_cast<int>(l.columns()), static_cast<int>(l.sequences_in(set)),
      [&](int i) { return words + first + static_cast<std::size_t>(i) * l.sequence_samples; },
      [&](int i) { return static_cast<int>(l.samples_of_sequence(first_seq + i)); }, set,
      less<std::uint64_t>{});
  const std::uint64_t* const merged = reinterpret_cast<const std::uint64_t*>(smem);
  for (int r = static_cast<int>(threadIdx.x); r < count; r += static_cast<int>(blockDim.x))
    sorted[first + r] = gathered[first + static_cast<std::uint32_t>(merged[r])];
}

/// The radix sort's bits: the key's, and the set's low bits (one set: none).
template <class Key>
int radix_end_bit(std::size_t sets) {
  return static_cast<int>(sizeof(Key) * 8) + ceil_log2(sets);
}

/// CUB's storage to sort `count` records of `sets` sets (the unused slots' included).
template <class Record, class Comp>
std::size_t sort_samples_temp_bytes(std::size_t count, std::size_t sets) {
  using Key = typename Record::key_type;
  std::size_t bytes = 0;
  if (count == 0) return 0;
  if constexpr (radix_samples<Key, Comp>) {
    WARPSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
        nullptr, bytes, static_cast<const Record*>(nullptr), static_cast<Record*>(nullptr),
        static_cast<std::int64_t>(count), set_then_key{}, 0, radix_end_bit<Key>(sets)));
  } else {
    (void)sets;
    WARPSORT_CUDA_CHECK(warpsort::detail::cub_merge_sort::sort_keys(
        nullptr, bytes, static_cast<Record*>(nullptr), static_cast<std::int64_t>(count),
        by_set_then_key<Record, Comp>{Comp{}}));
  }
  return bytes;
}

/// Sorts `count` records stably by set and key (`sets` sets, the unused slots' not counted:
/// the radix sort reads the set's low bits only, where an unused slot's are all ones) and
/// returns where they are: the radix sort writes them to `out`, the merge sort sorts `in`.
template <class Record, class Comp>
const Record* sort_samples(void* temp, std::size_t bytes, Record* in, Record* out,
                           std::size_t count, std::size_t sets, Comp comp, cudaStream_t stream) {
  using Key = typename Record::key_type;
  if (count == 0) return in;
  if constexpr (radix_samples<Key, Comp>) {
    WARPSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, bytes, in, out,
                                                       static_cast<std::int64_t>(count),
                                                       set_then_key{}, 0,
                                                       radix_end_bit<Key>(sets), stream));
    return out;
  } else {
    (void)out;
    (void)sets;
    WARPSORT_CUDA_CHECK(warpsort::detail::cub_merge_sort::sort_keys(
        temp, bytes, in, static_cast<std::int64_t>(count), by_set_then_key<Record, Comp>{comp},
        stream));
    return in;
  }
}

/// Launches gather_samples_kernel over `slots` records, the first numbered first_index (a rank's
/// first slot among every rank's).
template <class Layout, class Comp>
void gather_samples(const Layout& l, record_of<Layout>* out, std::size_t slots,
                    cudaStream_t stream, std::size_t first_index = 0,
                    std::uint64_t* words = nullptr) {
  if (slots == 0) return;
  if (Layout::one_set && first_index + slots > l.samples())
    throw input_error("warpsort: step 3 has no unused slots in a layout of one set");
  const unsigned threads = 256;
  gather_samples_kernel<Layout, Comp><<<static_cast<unsigned>(ceil_div(slots, threads)), threads,
                                        0, stream>>>(l, out, slots, first_index, words);
  WARPSORT_CHECK_LAUNCH();
}

/// Layouts whose gathered records are runs, each sorted (any_runs): merge_sample_runs can put
/// them in order where sort_samples would sort them.
template <class Layout>
constexpr bool merges_sample_runs =
    cuda::std::is_same_v<Layout, any_runs<typename Layout::key_type>>;

/// Whether merging the runs' samples is the faster way to order them (and fits a block's
/// shared memory twice over: two blocks an SM). The merge's time grows with samples x (runs +
/// 12), the radix sort's with the samples and the key's bytes, from a floor of its six launches
/// of a few blocks each. Measured on an H200 (4 to 64 runs, 2^10 to 2^19 samples, three
/// distributions; docs/performance.md, "the runs' samples merged, not sorted"): the merge wins
/// below about 6.3 million for 4-byte keys, twice that for 8-byte ones, where the radix sort
/// takes twice the passes.
constexpr std::size_t merged_sample_work = std::size_t{6} << 20;
template <class Key>
bool merge_sample_runs_wins(const runs_shape& r) {
  if (merge_sample_runs_smem<Key>() * 2 > smem_opt_in_bytes()) return false;
  return r.samples * (static_cast<std::size_t>(r.runs) + 12) <=
         merged_sample_work * sizeof(Key) / 4;
}

/// Launches cut_sets_kernel: a warp a splitter (one still writes the ends where there is none);
/// `gathered`, where not null, the records in the order gather_samples wrote them.
template <class Layout, class Comp>
void cut_sets(const Layout& l, const record_of<Layout>* sorted, bool by_position,
              std::size_t* cuts, std::size_t* group_offsets, Comp comp, cudaStream_t stream,
              const record_of<Layout>* gathered = nullptr) {
  const unsigned threads = 256;
  const std::size_t warps = max_size(l.splitters(), 1);
  cut_sets_kernel<<<static_cast<unsigned>(ceil_div(warps * policy::warp_threads, threads)),
                    threads, 0, stream>>>(l, sorted, gathered, by_position, cuts, group_offsets,
                                          comp);
  WARPSORT_CHECK_LAUNCH();
}

/// Step 3's scratch: the records (none when ranked on chip), CUB's sort storage, the cut table
/// and the group offsets. The same carving sizes it and lays it out.
template <class Record>
struct splitter_arrays {
  Record *records_in, *records_out;
  std::uint64_t* words;  // merged_sets: the samples as set_sample_words
  std::size_t *cuts, *offsets;
  void* cub_temp;
  std::size_t cub_bytes;
};

template <class Layout, class Comp>
splitter_arrays<record_of<Layout>> carve_splitters(temp_carver& c, const Layout& l,
                                                   sample_order order) {
  using Record = record_of<Layout>;
  // the radix sort, and the merges of runs' and sets' samples, write into second records
  const bool merged = order == sample_order::merged_sets;
  const bool two =
      radix_samples<typename Layout::key_type, Comp> || merges_sample_runs<Layout> || merged;
  const std::size_t samples = order == sample_order::sorted || merged ? l.samples() : 0;
  splitter_arrays<Record> a;
  a.cub_bytes = merged ? 0 : sort_samples_temp_bytes<Record, Comp>(samples, l.sets());
  a.records_in = c.take<Record>(samples);
  a.records_out = c.take<Record>(two ? samples : 0);
  a.words = c.take<std::uint64_t>(merged ? samples : 0);
  a.cuts = c.take<std::size_t>(l.groups() * l.columns());
  a.offsets = c.take<std::size_t>(l.groups() + 1);
  a.cub_temp = c.take_bytes(a.cub_bytes);
  return a;
}

/// Orders the records of runs' samples (a layout of one set of runs, merges_sample_runs):
/// merged or sorted, whichever is the faster, into the same order. Returns where they are.
template <class Key>
const sample_record<Key, false>* order_run_samples(const splitter_arrays<sample_record<Key, false>>& a,
                                                   const runs_shape& r, cudaStream_t stream) {
  if (merge_sample_runs_wins<Key>(r)) {
    merge_sample_runs(a.records_in, a.records_out, r, stream);
    return a.records_out;
  }
  return sort_samples(a.cub_temp, a.cub_bytes, a.records_in, a.records_out, r.samples, 1,
                      less<Key>{}, stream);
}

/// Temporary storage of split_sequences.
template <class Layout, class Comp>
std::size_t split_sequences_temp_bytes(const Layout& l, sample_order order) {
  temp_carver c(nullptr);
  carve_splitters<Layout, Comp>(c, l, order);
  return c.used();
}

/// Step 3 over the layout's sequences, the samples ordered as `order` says (ranked only for
/// equal sequences, staged only where a set's samples fit a block); by_position false takes
/// key-only splitters.
template <class Layout, class Comp>
split_layout split_sequences(const Layout& l, sample_order order, bool by_position, void* temp,
                             std::size_t temp_bytes, Comp comp, cudaStream_t stream) {
  using Key = typename Layout::key_type;
  temp_carver c(temp);
  const splitter_arrays<record_of<Layout>> a = carve_splitters<Layout, Comp>(c, l, order);
  if (c.used() > temp_bytes)
    throw input_error("warpsort: step 3 was given too little temporary storage");
  const unsigned threads = 256, warps_a_block = threads / policy::warp_threads;
  if constexpr (Layout::can_rank_on_chip) {
    const round_shape& r = l.r;
    if (order == sample_order::ranked_staged) {
      // Each warp ranks its samples one after another: where sets are few, split a set over
      // blocks (each loads the whole set) until a warp ranks about 4 samples or the blocks fill
      // every SM several times.
      constexpr std::size_t per_warp = 4;
      const std::size_t least_blocks = 8 * static_cast<std::size_t>(device_limits_of().sm_count);
      const std::size_t by_work = ceil_div(max_size(r.set_samples, 1), warps_a_block * per_warp);
      const std::size_t chunks = max_size(1, min_size(by_work, ceil_div(least_blocks, r.sets)));
      const std::size_t smem = r.set_samples * sizeof(Key);
      allow_dynamic_smem(rank_set_samples_kernel<Key, Comp, true>, smem);
      rank_set_samples_kernel<Key, Comp, true>
          <<<static_cast<unsigned>(r.sets * chunks), threads, smem, stream>>>(
              l, static_cast<unsigned>(chunks), ceil_div(r.set_samples, chunks), a.cuts,
              a.offsets, comp);
      WARPSORT_CHECK_LAUNCH();
      return {a.cuts, a.offsets};
    }
    if (order == sample_order::ranked_in_place) {  // a warp a sample
      const std::size_t chunks = ceil_div(max_size(r.set_samples, 1), warps_a_block);
      rank_set_samples_kernel<Key, Comp, false>
          <<<static_cast<unsigned>(r.sets * chunks), threads, 0, stream>>>(
              l, static_cast<unsigned>(chunks), ceil_div(r.set_samples, chunks), a.cuts,
              a.offsets, comp);
      WARPSORT_CHECK_LAUNCH();
      return {a.cuts, a.offsets};
    }
  } else if (order != sample_order::sorted) {
    throw input_error("warpsort: step 3 ranks samples on chip only for equal sequences");
  }
  if (l.samples() >= most_sorted_samples)
    throw input_error("warpsort: step 3 sorts at most 2^32 - 1 samples; this round has " +
                      std::to_string(l.samples()));
  if constexpr (cuda::std::is_same_v<Layout, equal_sequences<Key>> && sizeof(Key) == 4) {
    if (order == sample_order::merged_sets) {
      if (!merges_set_samples<Key, Comp>(l.r.set_samples))
        throw input_error("warpsort: step 3 merges the samples of sets of at most " +
                          std::to_string(most_merged_set_samples) + " 4-byte keys");
      gather_samples<Layout, Comp>(l, a.records_in, l.samples(), stream, 0, a.words);
      const int capacity = static_cast<int>(l.r.set_samples);
      const thread_block_shape shape =
          merge_sets_shape<std::uint64_t>(capacity, static_cast<int>(l.columns()));
      allow_dynamic_smem(merge_set_samples_kernel<Key>, shape.smem_bytes);
      merge_set_samples_kernel<Key><<<static_cast<unsigned>(l.sets()), shape.threads,
                                      shape.smem_bytes, stream>>>(l, a.words, a.records_in,
                                                                  a.records_out, capacity);
      WARPSORT_CHECK_LAUNCH();
      cut_sets(l, a.records_out, by_position, a.cuts, a.offsets, comp, stream, a.records_in);
      return {a.cuts, a.offsets};
    }
  }
  if (order == sample_order::merged_sets)
    throw input_error("warpsort: step 3 merges the samples of equal sequences of 4-byte keys only");
  gather_samples<Layout, Comp>(l, a.records_in, l.samples(), stream);
  const record_of<Layout>* sorted = nullptr;
  if constexpr (merges_sample_runs<Layout> && cuda::std::is_same_v<Comp, less<Key>>)
    sorted = order_run_samples<Key>(a, l.r, stream);
  else
    sorted = sort_samples(a.cub_temp, a.cub_bytes, a.records_in, a.records_out, l.samples(),
                          l.sets(), comp, stream);
  // the radix sort leaves the gathered records as they were; the merge sort sorts them in place
  cut_sets(l, sorted, by_position, a.cuts, a.offsets, comp, stream,
           sorted != a.records_in ? a.records_in : nullptr);
  return {a.cuts, a.offsets};
}

}  // namespace warpsort::stages

#pragma once
// The distributed sort over any transport (warpsort/distributed.cuh says what it does):
//   0. every rank tells every other its count, capacity and free memory; all check all, so a
//      bad input or too little memory anywhere makes every rank throw the same error;
//   1. each rank sorts its keys into a few sorted sequences: step 1 and every round of version
//      5 but the last, on the order's unsigned words (max_sequences / P sequences a rank, up to
//      64 / P where that saves a round: plan_local; pairs, and CUB's local sorts, run the
//      whole single-GPU sort: one sequence; with options::bucket_last_round and
//      several exchange rounds, one round less: that round runs in step 3, bucket by bucket);
//   2. splitters, step 3 of stages/splitters.cuh over every rank's samples (rank_sequences):
//      ranks sample their sequences at global positions g - 1, 2g - 1, ...; the samples, (key,
//      global position), are gathered by all and sorted; P K - 1 splitters cut every sequence
//      into P K buckets, K parts of each rank's share, and the cut tables are gathered (and read
//      by the host: what moves, and the output counts the caller needs); keys alone, with each
//      splitter's key's bounds, so that runs of equal keys stay with their rank (keep_own_ties);
//   3. exchange and merge, K rounds: round k sends every rank part k of its buckets (packed,
//      or merged by the bucketed last round, one piece a peer; every piece aligned where it
//      lands) on a second stream, and the receiver merges part k's runs (the last round of
//      version 5, over runs; pairs of 32-bit words as packed (word, place) items, wider pairs
//      re-sorted stably) while part k + 1 travels;
//   4. optionally, an exchange of contiguous ranges rebalances the output to the input counts.
// Small totals, where every rank copies into its peers' arenas, skip steps 2-4 (gather_and_merge):
// every rank's sorted share (its local sequences) goes to every rank, which merges its own slice;
// from a transport's second call a rank begins that local sort while the ranks agree (early_sort).
// The host waits for a few bytes twice a call: the statuses, and the counts, which also carry
// whether each rank's allocation succeeded, so every rank learns of a failure before keys move.
// Every rank makes the same sequence of collectives whatever its count (a rank with no keys
// included), both sides of every exchange come from counts every rank holds alike (the gathered
// matrix; rebalancing's plan is checked side against side before it is posted), and every host
// wait goes through transport::wait, which gives up at options::timeout_seconds.
#include "partition.hpp"
#include <warpsort/transport.hpp>

#include <warpsort/detail/cub_merge_sort.cuh>
#include <warpsort/detail/event_marks.hpp>
#include <warpsort/detail/pairs_impl.cuh>
#include <warpsort/detail/stages/merge_runs_impl.cuh>
#include <warpsort/stages.hpp>
#include <warpsort/distributed.cuh>
#include <warpsort/warpsort.cuh>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <type_traits>
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace warpsort::distributed::detail {

namespace merge_sort = warpsort::detail::cub_merge_sort;

/// What each rank tells every other before any work.
struct rank_status {
  std::uint64_t n, capacity, free_bytes;
  std::uint64_t arena;  // bytes its transport's receive arena holds now; no_arena: it has none
  std::int32_t code;
  std::int32_t exact;  // 1: free_bytes is the driver's count too; 0: only its pool's unused bytes
  std::int32_t zero_signs;  // pairs of float keys: zero_minus if a key is -0.0, | zero_plus if +0.0
};
enum zero_sign : std::int32_t { zero_minus = 1, zero_plus = 2 };
constexpr std::uint64_t no_arena = ~std::uint64_t{0};
enum status_code : std::int32_t { status_ok = 0, status_null_keys = 1, status_over_capacity = 2 };

/// Every rank's end of output: rank q's buckets end at ends[q + 1] keys (P + 1 entries).
struct rank_ends {
  std::size_t at[most_runs + 1];
};

/// Step 3 (stages/splitters.cuh) over all ranks: this rank's sorted sequences (`sequences` of
/// sequence_keys keys, the last maybe shorter) among every rank's samples. The ranks' keys, in
/// rank order, are one sequence of N keys sampled at global positions stride - 1, 2 stride - 1,
/// ... (samples_of_rank); every rank's records, `slots` a rank (rank p's sample t is number
/// p slots + t), are gathered and sorted stably by key, which orders them by (key, global
/// position): every key of every rank is ordered uniquely, so equal keys are divided between
/// ranks by place. Splitter b, the end of bucket b, is the sorted sample nearest its target
/// (splitter_samples), and each rank cuts its own sequences at it. Sequence ids order ties:
/// this rank's sequences are 1..sequences, a sample of an earlier rank is in sequence 0 (before
/// all of them), of a later one in sequence ~0 (after). With splitters_first, every splitter is
/// placed as an earlier rank's: each cut is then the lower bound of its splitter's key.
template <class Bits>
struct rank_sequences {
  using key_type = Bits;
  static constexpr bool can_rank_on_chip = false, one_set = false;  // the unused slots: a set
  const Bits* keys;
  std::size_t n, sequence_keys, sequences, rows;  // rows: the most sequences any rank cuts
  std::size_t rank, slots, offset, stride;        // offset: this rank's first global position
  std::size_t my_samples, all_samples;            // every rank's (unused slots aside)
  std::size_t parts, buckets;
  rank_ends ends;
  bool splitters_first = false;

  WARPSORT_HD const Bits* sequence(std::size_t seq) const {
    return keys + (seq - 1) * sequence_keys;
  }
  WARPSORT_HD std::size_t length(std::size_t seq) const {
    return min_size(sequence_keys, n - (seq - 1) * sequence_keys);
  }
  WARPSORT_HD std::size_t samples() const { return my_samples; }
  WARPSORT_HD std::size_t first_index() const { return rank * slots; }
  WARPSORT_HD stages::key_site sample_at(std::size_t index) const {
    const std::size_t p = index / slots;
    if (p < rank || splitters_first) return {0, 0};
    if (p > rank) return {~std::size_t{0}, 0};
    const std::size_t at = sample_position(index - p * slots, offset, stride);
    return {1 + at / sequence_keys, at % sequence_keys};
  }
  WARPSORT_HD std::size_t set_of_sequence(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t sets() const { return 1; }
  WARPSORT_HD std::size_t first_sequence(std::size_t) const { return 1; }
  WARPSORT_HD std::size_t sequences_in(std::size_t) const { return sequences; }
  WARPSORT_HD std::size_t columns() const { return rows; }
  WARPSORT_HD std::size_t set_begin(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t first_sample(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t first_group(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t groups() const { return buckets; }
  WARPSORT_HD std::size_t keys_total() const { return n; }
  WARPSORT_HD std::size_t splitters() const { return buckets - 1; }
  WARPSORT_HD std::size_t set_of_splitter(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t first_splitter(std::size_t) const { return 0; }
  WARPSORT_HD std::size_t splitter_sample(std::size_t, std::size_t s) const {
    const std::size_t c =
        splitter_samples(bucket_target(s + 1, parts, ends.at), stride, all_samples);
    return c == 0 ? stages::no_sample : c - 1;
  }
};

/// Words of 16 bytes: where the exchange starts each peer's piece.
template <class Bits>
constexpr std::size_t aligned_words = 16 / sizeof(Bits);

/// Up to most_runs contiguous copies of words, as one launch: piece j copies
/// end[j + 1] - end[j] words from from[j] to to[j], block_words a block.
template <class Bits>
struct copy_list {
  static constexpr std::size_t block_words = 8192;
  int count = 0;
  const Bits* from[most_runs];
  Bits* to[most_runs];
  std::size_t end[most_runs + 1] = {};
  std::size_t first_block[most_runs + 1] = {};  // blocks before piece j
  /// Appends the copy of `len` words from `source` to `target`.
  __host__ void add(const Bits* source, Bits* target, std::size_t len) {
    from[count] = source;
    to[count] = target;
    end[count + 1] = end[count] + len;
    first_block[count + 1] = first_block[count] + stages::ceil_div(len, block_words);
    ++count;
  }
};

template <class Bits>
__global__ void copy_pieces_kernel(copy_list<Bits> list) {
  const std::size_t block = blockIdx.x;
  int j = 0, hi = list.count - 1;  // the piece this block copies from
  while (j < hi) {
    const int mid = (j + hi + 1) / 2;
    if (list.first_block[mid] <= block) j = mid;
    else hi = mid - 1;
  }
  const std::size_t len = list.end[j + 1] - list.end[j];
  const std::size_t begin = (block - list.first_block[j]) * copy_list<Bits>::block_words;
  const std::size_t stop = min_size(len, begin + copy_list<Bits>::block_words);
  const Bits* __restrict__ from = list.from[j];
  Bits* __restrict__ to = list.to[j];
  constexpr int unroll = 4;  // several loads in flight a thread
  for (std::size_t x = begin + threadIdx.x; x < stop; x += unroll * blockDim.x) {
    Bits v[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const std::size_t at = x + static_cast<std::size_t>(u) * blockDim.x;
      if (at < stop) v[u] = from[at];
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const std::size_t at = x + static_cast<std::size_t>(u) * blockDim.x;
      if (at < stop) to[at] = v[u];
    }
  }
}

/// Launches copy_pieces_kernel over the list (nothing where it is empty).
template <class Bits>
void copy_pieces(const copy_list<Bits>& list, cudaStream_t stream) {
  if (list.count == 0) return;
  const auto blocks = static_cast<unsigned>(list.first_block[list.count]);
  copy_pieces_kernel<Bits><<<blocks, 256, 0, stream>>>(list);
  WARPSORT_CHECK_LAUNCH();
}

// The last local round run bucket by bucket (local_plan::bucketed): its step 3 splits every
// set into groups as the local sort would, and a group that straddles a bucket's edge is merged
// as two sub-groups, one in each bucket. Every (set, bucket) piece, a final sequence's piece,
// is then merged on its own, straight to where its send (or, the rank's own, its run among the
// received ones) starts. A group's and a bucket's cuts are both cuts of this rank's keys in one
// order (key, then position), so the one's cut of every sequence lies on the same side of the
// other's: their intersection is the piece between the later starts and the earlier ends.

/// starts[c (buckets + 1) + b]: where bucket b starts in cut sequence c (cuts: this rank's cut
/// table from the splitters, cuts[b rows + c] = where bucket b ends in sequence c).
template <class Cut>
__global__ void bucket_starts_kernel(const Cut* cuts, std::size_t rows,
                                     std::size_t sequences, std::size_t sequence_keys,
                                     std::size_t n, std::size_t buckets, std::size_t* starts) {
  const std::size_t c = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= sequences) return;
  starts[c * (buckets + 1)] = 0;
  for (std::size_t b = 1; b < buckets; ++b)
    starts[c * (buckets + 1) + b] = cuts[(b - 1) * rows + c];
  starts[c * (buckets + 1) + buckets] = min_size(sequence_keys, n - c * sequence_keys);
}

/// Where one part's pieces lie: entry t = set P + peer, bucket peer K + part.
struct bucket_part {
  std::size_t peers, parts, part, buckets;
  WARPSORT_HD std::size_t bucket(std::size_t t) const { return (t % peers) * parts + part; }
};

/// One block, a thread an entry (sets x peers <= most_runs): first_group[t], the first group of
/// set t / P that meets its bucket; first_sub[t], the sub-groups before entry t (first_sub[entries]:
/// all of them). A group starts in the set's output at group_offsets[g] - set_begin. (A template
/// only so that this header defines it once however many units include it.)
template <class Unused = void>
__global__ void plan_bucket_groups_kernel(stages::round_shape r, const std::size_t* group_offsets,
                                          const std::size_t* starts, bucket_part part,
                                          std::size_t* first_group, std::size_t* first_sub) {
  __shared__ std::size_t count[most_runs];
  const std::size_t t = threadIdx.x, entries = r.sets * part.peers;
  if (t < entries) {
    const std::size_t set = t / part.peers, b = part.bucket(t);
    const std::size_t first_seq = set * r.set_sequences, ways = r.sequences_in(set);
    std::size_t lo = 0, hi = 0;  // the bucket's piece of the set's merged output
    for (std::size_t c = 0; c < ways; ++c) {
      lo += starts[(first_seq + c) * (part.buckets + 1) + b];
      hi += starts[(first_seq + c) * (part.buckets + 1) + b + 1];
    }
    const std::size_t g0 = r.first_group(set), base = r.set_begin(set);
    const auto last_starting = [&](auto before) {  // the last group j whose start is before(x)
      std::size_t a = 0, z = r.groups_of(set) - 1;
      while (a < z) {
        const std::size_t mid = (a + z + 1) / 2;
        if (before(group_offsets[g0 + mid] - base)) a = mid;
        else z = mid - 1;
      }
      return a;
    };
    const std::size_t j0 = last_starting([&](std::size_t x) { return x <= lo; });
    const std::size_t j1 = last_starting([&](std::size_t x) { return x < hi; });
    first_group[t] = g0 + j0;
    count[t] = hi > lo ? j1 - j0 + 1 : 0;
  }
  __syncthreads();
  if (t == 0) {
    std::size_t at = 0;
    for (std::size_t e = 0; e < entries; ++e) {
      first_sub[e] = at;
      at += count[e];
    }
    first_sub[entries] = at;
  }
}

/// Where entry t's piece is merged to.
template <class Bits>
struct bucket_targets {
  Bits* at[most_runs];
};

/// Where a sub-group's pieces are, worked out once by one thread and kept in shared memory
/// (after the merge's), out of the merge's registers.
template <class Bits>
struct sub_group {
  const std::size_t* begin_cuts;  // the group's starting cuts (null: the set's start)
  const std::size_t* end_cuts;    // its ending cuts (null: the set's end)
  const std::size_t* edges;       // where the bucket starts in the set's first sequence
  const Bits* first_sequence;
  Bits* out;
  std::size_t group, first_seq;
  int ways;
};

/// Shared memory of merge_bucket_groups_kernel: the merge's, then the sub-group's place.
template <class Bits>
WARPSORT_HD std::size_t sub_group_at(int capacity, std::size_t set_sequences) {
  const std::size_t merge = static_cast<std::size_t>(
      stages::merge_sets_shape<Bits>(capacity, static_cast<int>(set_sequences)).smem_bytes);
  return (merge + 15) / 16 * 16;
}

/// A block merges sub-groups x = blockIdx.x, + gridDim.x, ... of the part (as many blocks as
/// fit the GPU at once: the count is on the device).
template <class Bits>
__global__ void __maxnreg__(stages::thread_merge_max_registers<Bits>())
    merge_bucket_groups_kernel(const Bits* src, stages::round_shape r, int capacity,
                               const std::size_t* cuts, const std::size_t* starts,
                               bucket_part part, const std::size_t* first_group,
                               const std::size_t* first_sub, bucket_targets<Bits> targets) {
  extern __shared__ __align__(16) unsigned char smem[];
  sub_group<Bits>& at =
      *reinterpret_cast<sub_group<Bits>*>(smem + sub_group_at<Bits>(capacity, r.set_sequences));
  const std::size_t entries = r.sets * part.peers, subs = first_sub[entries];
  const std::size_t edge_stride = part.buckets + 1;
  for (std::size_t x = blockIdx.x; x < subs; x += gridDim.x) {
    if (threadIdx.x == 0) {
      std::size_t t = 0;
      while (t + 1 < entries && first_sub[t + 1] <= x) ++t;
      const std::size_t set = t / part.peers, g = first_group[t] + (x - first_sub[t]);
      const std::size_t j = g - r.first_group(set);
      at.group = g;
      at.first_seq = set * r.set_sequences;
      at.ways = static_cast<int>(r.sequences_in(set));
      at.begin_cuts = j == 0 ? nullptr : cuts + (g - 1) * r.set_sequences;
      at.end_cuts = j + 1 == r.groups_of(set) ? nullptr : cuts + g * r.set_sequences;
      at.edges = starts + at.first_seq * edge_stride + part.bucket(t);
      at.first_sequence = src + at.first_seq * r.seq_len;
      at.out = targets.at[t];
    }
    __syncthreads();
    const auto piece_begin = [&](int i) {
      return max_size(at.begin_cuts ? at.begin_cuts[i] : 0, at.edges[i * edge_stride]);
    };
    const auto piece_end = [&](int i) {
      const std::size_t cut =
          at.end_cuts ? at.end_cuts[i] : r.sequence_keys(at.first_seq + static_cast<std::size_t>(i));
      return max_size(piece_begin(i), min_size(cut, at.edges[i * edge_stride + 1]));
    };
    if (threadIdx.x < policy::warp_threads) {  // the keys of the bucket's piece before it
      std::size_t before = 0;
      for (int i = static_cast<int>(threadIdx.x); i < at.ways; i += policy::warp_threads)
        before += piece_begin(i) - at.edges[i * edge_stride];
      before = stages::warp_sum(before);
      __syncwarp();
      if (threadIdx.x == 0) at.out += before;
    }
    stages::merge_pieces_on_chip<Bits>(
        smem, capacity, static_cast<int>(r.set_sequences), at.ways,
        [&](int i) { return at.first_sequence + static_cast<std::size_t>(i) * r.seq_len + piece_begin(i); },
        [&](int i) { return static_cast<int>(piece_end(i) - piece_begin(i)); },
        [&] { return at.out; }, at.group, less<Bits>{});
    __syncthreads();  // the next sub-group reuses the shared memory
  }
}

/// One stream-ordered allocation, freed when it goes out of scope (on the stream).
class stream_allocation {
 public:
  stream_allocation(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes > 0) status_ = cudaMallocAsync(&ptr_, bytes, stream);
    if (status_ != cudaSuccess) {
      ptr_ = nullptr;
      (void)cudaGetLastError();  // not sticky: the caller reports the failure to every rank
    }
  }
  ~stream_allocation() {
    if (ptr_) cudaFreeAsync(ptr_, stream_);
  }
  stream_allocation(const stream_allocation&) = delete;
  stream_allocation& operator=(const stream_allocation&) = delete;
  bool ok() const { return status_ == cudaSuccess; }
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
  cudaError_t status_ = cudaSuccess;
};

/// Bytes stream_allocation may still take: the device's free memory and what its pool holds
/// unused (a pool that keeps its memory between calls reports it as taken).
inline std::size_t pool_unused_bytes() {
  int device = 0;
  WARPSORT_CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool;
  WARPSORT_CUDA_CHECK(cudaDeviceGetMemPool(&pool, device));
  std::uint64_t reserved = 0, used = 0;
  WARPSORT_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  WARPSORT_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  return static_cast<std::size_t>(reserved > used ? reserved - used : 0);
}
inline std::size_t allocatable_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  WARPSORT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes + pool_unused_bytes();
}

/// A failure every rank learned of and throws alike: the communicator stays usable.
class agreed_failure : public cuda_error {
 public:
  using cuda_error::cuda_error;
};

/// Keys alone (Value = no_values) or key-value pairs.
struct no_values {};
template <class Value>
constexpr bool has_values = !std::is_same_v<Value, no_values>;
template <class Value>
constexpr std::size_t value_bytes = has_values<Value> ? sizeof(Value) : 0;

/// The single-GPU sort of words (or of the caller's keys by Comp; with their values): stable for
/// pairs, so equal keys keep their order, and with it the global (rank, position) order. With a
/// null temp, the bytes it needs.
template <class Bits, class Value, class Comp = less<Bits>>
std::size_t sort_locally(void* temp, std::size_t bytes, const Bits* keys_in, Bits* keys_out,
                         const Value* values_in, Value* values_out, std::size_t n,
                         cudaStream_t stream, const policy& local) {
  if constexpr (has_values<Value>)
    warpsort::sort_pairs<Bits, Value, Comp>(temp, bytes, keys_in, keys_out, values_in, values_out,
                                            n, {}, stream, local);
  else
    warpsort::sort_keys<Bits, Comp>(temp, bytes, keys_in, keys_out, n, {}, stream, local);
  return bytes;
}
template <class Bits, class Value>
std::size_t sort_locally_bytes(std::size_t n, const policy& local) {
  return sort_locally<Bits, Value>(nullptr, 0, nullptr, nullptr, nullptr, nullptr, n, 0, local);
}

/// A rank's whole share sorted by `algorithm` (warpsort's single-GPU sort, or CUB's radix or
/// merge sort of the words, or of the caller's keys by Comp; stable for pairs), from keys_in to
/// keys_out (`in_place`: the same buffers). With a null temp, the bytes it needs.
template <class Bits, class Value, class Comp = less<Bits>>
std::size_t sort_whole(local_algorithm algorithm, bool in_place, void* temp, std::size_t bytes,
                       const Bits* keys_in, Bits* keys_out, const Value* values_in,
                       Value* values_out, std::size_t n, cudaStream_t stream,
                       const policy& local) {
  if (algorithm == local_algorithm::warpsort)
    return sort_locally<Bits, Value, Comp>(temp, bytes, keys_in, keys_out, values_in, values_out,
                                           n, stream, local);
  const bool query = temp == nullptr;
  const auto items = static_cast<std::int64_t>(n);
  stages::temp_carver c(temp);
  std::size_t cub_bytes = 0;
  if (algorithm == local_algorithm::cub_radix) {
    // CUB's radix sort writes other buffers than it reads: in place, it sorts into storage of
    // its own and copies back
    Bits* const sorted_keys = in_place ? c.take<Bits>(n) : keys_out;
    Value* sorted_values = values_out;
    if constexpr (has_values<Value>)
      if (in_place) sorted_values = c.take<Value>(n);
    constexpr int bits = 8 * static_cast<int>(sizeof(Bits));
    const auto radix = [&](void* t) {
      if constexpr (order_traits<Bits, Comp>::descending) {
        if constexpr (has_values<Value>)
          WARPSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
              t, cub_bytes, keys_in, sorted_keys, values_in, sorted_values, items, 0, bits, stream));
        else
          WARPSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(
              t, cub_bytes, keys_in, sorted_keys, items, 0, bits, stream));
      } else if constexpr (has_values<Value>) {
        WARPSORT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(t, cub_bytes, keys_in, sorted_keys,
                                                            values_in, sorted_values, items, 0,
                                                            bits, stream));
      } else {
        WARPSORT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(t, cub_bytes, keys_in, sorted_keys,
                                                           items, 0, bits, stream));
      }
    };
    radix(nullptr);
    void* const cub_temp = c.take_bytes(cub_bytes);
    if (query || n == 0) return c.used();
    radix(cub_temp);
    if (in_place) {
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys_out, sorted_keys, n * sizeof(Bits),
                                          cudaMemcpyDeviceToDevice, stream));
      if constexpr (has_values<Value>)
        WARPSORT_CUDA_CHECK(cudaMemcpyAsync(values_out, sorted_values, n * sizeof(Value),
                                            cudaMemcpyDeviceToDevice, stream));
    }
    return c.used();
  }
  // CUB's merge sort: pairs stably, in place (copied to the output first)
  const Comp comp{};
  const auto merge = [&](void* t) {
    if constexpr (has_values<Value>)
      WARPSORT_CUDA_CHECK(merge_sort::stable_sort_pairs(t, cub_bytes, keys_out, values_out, items,
                                                        comp, stream));
    else if (in_place)
      WARPSORT_CUDA_CHECK(merge_sort::sort_keys(t, cub_bytes, keys_out, items, comp, stream));
    else
      WARPSORT_CUDA_CHECK(
          merge_sort::sort_keys_copy(t, cub_bytes, keys_in, keys_out, items, comp, stream));
  };
  merge(nullptr);
  void* const cub_temp = c.take_bytes(cub_bytes);
  if (query || n == 0) return c.used();
  if constexpr (has_values<Value>)
    if (!in_place) {
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys_out, keys_in, n * sizeof(Bits),
                                          cudaMemcpyDeviceToDevice, stream));
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(values_out, values_in, n * sizeof(Value),
                                          cudaMemcpyDeviceToDevice, stream));
    }
  merge(cub_temp);
  return c.used();
}
template <class Bits, class Value>
std::size_t sort_whole_bytes(local_algorithm algorithm, bool in_place, std::size_t n,
                             const policy& local) {
  return sort_whole<Bits, Value>(algorithm, in_place, nullptr, 0, nullptr, nullptr, nullptr,
                                 nullptr, n, 0, local);
}

/// Where a rank's local sort leaves its keys: `sequences` sorted sequences of `sequence_keys`
/// keys each (the last shorter), after step 1 and the rounds of `plan` (version 5 stopped short
/// of its last round, which the receivers run). `whole`: a single-GPU sort by `algorithm`, one
/// sequence (pairs, and CUB's sorts). `bucketed`: the plan's
/// last round is run during the exchange, bucket by bucket; the local sort then leaves the
/// `cut_sequences` sequences of `cut_keys` keys before it, `ways` of them merging into each
/// of the `sequences` (otherwise the splitters cut the `sequences` themselves, ways = 1).
struct local_plan {
  std::size_t n = 0, sequence_keys = 1, sequences = 0;
  bool whole = false;
  local_algorithm algorithm = local_algorithm::warpsort;
  sort_plan plan;
  bool bucketed = false;
  std::size_t cut_keys = 1, cut_sequences = 0, ways = 1;
  int rounds_run() const { return plan.round_count - (bucketed ? 1 : 0); }
};

inline local_plan plan_sequences(std::size_t n, int ranks, const policy& p, bool pairs, int runs,
                                 local_algorithm algorithm) {
  local_plan lp;
  lp.n = n;
  lp.algorithm = algorithm;
  if (n == 0) return lp;
  if (pairs || algorithm != local_algorithm::warpsort) {
    lp.whole = true;
    lp.sequence_keys = n;
    lp.sequences = 1;
    return lp;
  }
  // a receiver merges as many runs as one of the local sort's rounds does (fewer runs merge
  // faster: two H200s, 2^30 keys a rank, 32 runs 6.6 ms against 64 runs 9.9), unless leaving
  // up to `runs` runs saves the local sort a round
  const auto plan_leaving = [&](int sequences) {
    return make_plan(n, p, static_cast<std::size_t>(sequences));
  };
  const int most = local_sequences(ranks, runs);
  const int round_wide = std::min(most, local_sequences(ranks, max_sequences_of(p)));
  lp.plan = plan_leaving(round_wide);
  if (round_wide < most) {
    const sort_plan fewer_rounds = plan_leaving(most);
    if (fewer_rounds.round_count < lp.plan.round_count) lp.plan = fewer_rounds;
  }
  lp.sequence_keys = static_cast<std::size_t>(p.block_sort_keys);
  for (int r = 0; r < lp.plan.round_count; ++r) lp.sequence_keys *= lp.plan.rounds[r].set_sequences;
  lp.sequences = ceil_div(n, lp.sequence_keys);
  return lp;
}

inline local_plan plan_local(std::size_t n, int ranks, const policy& p, bool pairs, int runs,
                             local_algorithm algorithm, bool bucketed = false) {
  local_plan lp = plan_sequences(n, ranks, p, pairs, runs, algorithm);
  lp.cut_keys = lp.sequence_keys;
  lp.cut_sequences = lp.sequences;
  if (bucketed && !lp.whole && lp.plan.round_count > 0) {
    lp.bucketed = true;
    const merge_round& last = lp.plan.rounds[lp.plan.round_count - 1];
    lp.ways = last.set_sequences;
    lp.cut_keys = last.sequence_keys;
    lp.cut_sequences = ceil_div(n, lp.cut_keys);
  }
  return lp;
}

/// Step 1 over the keys at `in` and the plan's rounds (but a bucketed last round),
/// ping-ponging between keys and spare and ending in spare (keys is overwritten; `in`, where
/// it is not keys, is only read); or the whole single-GPU sort of keys into spare.
template <class Bits, class Value>
void sort_into_sequences(const Bits* in, Bits* keys, Bits* spare, const Value* values,
                         Value* spare_values, const local_plan& lp, void* temp,
                         std::size_t temp_bytes, cudaStream_t stream, const policy& local) {
  if (lp.n == 0) return;
  if (lp.whole) {
    if (in != keys)
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys, in, lp.n * sizeof(Bits), cudaMemcpyDeviceToDevice,
                                          stream));
    sort_whole<Bits, Value>(lp.algorithm, false, temp, temp_bytes, keys, spare, values,
                            spare_values, lp.n, stream, local);
    return;
  }
  if constexpr (!has_values<Value>) {
    const less<Bits> comp{};
    const int passes = 1 + lp.rounds_run();
    const auto target = [&](int pass) { return (passes - 1 - pass) % 2 == 0 ? spare : keys; };
    stages::sort_chunks(in, target(0), lp.n, comp, local, stream);
    for (int r = 0; r < lp.rounds_run(); ++r) {
      const stages::split_layout layout = stages::split_sets<Bits, less<Bits>>(
          target(r), lp.n, lp.plan.rounds[r], temp, temp_bytes, comp, local, stream);
      stages::merge_sets<Bits, less<Bits>>(target(r), target(r + 1), lp.n, lp.plan.rounds[r],
                                           layout, comp, local, stream);
    }
  }
}

/// Temporary bytes of the local sort.
template <class Bits, class Value>
std::size_t local_sort_bytes(const local_plan& lp, const policy& local) {
  if (lp.whole) return sort_whole_bytes<Bits, Value>(lp.algorithm, false, lp.n, local);
  std::size_t bytes = 0;
  for (int r = 0; r < lp.rounds_run(); ++r)
    bytes = std::max(bytes, stages::split_sets_temp_bytes<Bits, less<Bits>>(lp.plan.rounds[r]));
  return bytes;
}

/// The local sort cut into `pieces` ranges of whole sequences, each sorted on its own by the
/// same rounds (a sequence never crosses a range's end, so the sequences are the plan's):
/// range i is keys [ends[i], ends[i + 1]). One range where the plan sorts the whole share.
inline std::vector<std::size_t> sequence_ranges(const local_plan& lp, int pieces) {
  std::vector<std::size_t> ends{0};
  if (lp.n == 0) return ends;
  const std::size_t asked = static_cast<std::size_t>(std::max(pieces, 1));
  const std::size_t ranges = lp.whole ? 1 : std::min(asked, lp.sequences);
  const std::size_t per_range = stages::ceil_div(lp.sequences, ranges);
  for (std::size_t at = per_range; ends.back() < lp.n; at += per_range)
    ends.push_back(std::min(lp.n, at * lp.sequence_keys));
  return ends;
}
/// lp's rounds over the n keys of one of its ranges.
inline local_plan range_plan(const local_plan& lp, std::size_t n, const policy& local) {
  if (lp.whole || n == lp.n) return lp;
  local_plan r = lp;
  r.n = n;
  r.plan.n = n;
  r.plan.chunks = stages::ceil_div(n, policy::chunk_keys);
  for (int k = 0; k < lp.plan.round_count; ++k)
    r.plan.rounds[k] = plan_round(n, lp.plan.rounds[k].sequence_keys,
                                  lp.plan.rounds[k].set_sequences, local);
  r.sequences = stages::ceil_div(n, lp.sequence_keys);
  r.cut_sequences = r.sequences;
  return r;
}
/// Temporary bytes of the local sort in ranges (the most any range needs).
template <class Bits>
std::size_t ranges_sort_bytes(const local_plan& lp, int pieces, const policy& local) {
  const std::vector<std::size_t> ends = sequence_ranges(lp, pieces);
  std::size_t bytes = 0;
  for (std::size_t i = 0; i + 1 < ends.size(); ++i)
    bytes = std::max(bytes, local_sort_bytes<Bits, no_values>(
                                range_plan(lp, ends[i + 1] - ends[i], local), local));
  return bytes;
}

/// Rounds of the exchange (parts of every bucket), the same on every rank: each round's keys
/// are merged while the next round's travel. Fewer for small shares, where a round's fixed
/// costs outweigh the overlap (two H200s: 4 from 2^26 keys a rank, 2 from 2^24). With the keys
/// in arenas (copies off the SMs, the merges the longer side) 8 from 2^28 keys a rank: the
/// first part arrives sooner (2 and 4 H200s at 2^31-2^32: 0.6% faster than 4; 12 and 16
/// slower). The caller then drops to one where the pipelined plan's buffers (the packing
/// halves; rebalancing's merged copy apart from the sent keys) would not fit every rank.
inline std::size_t exchange_parts(std::size_t total, int ranks, const options& o, bool in_arena) {
  if (ranks < 2) return 1;
  if (o.exchange_parts > 0) return static_cast<std::size_t>(std::min(o.exchange_parts, 16));
  const std::size_t share = total / static_cast<std::size_t>(ranks);
  if (in_arena && share >= (std::size_t{1} << 28)) return 8;
  return share >= (std::size_t{1} << 26) ? 4 : share >= (std::size_t{1} << 24) ? 2 : 1;
}

/// Pairs of 32-bit words merge as 64-bit items, (word << 32) | the pair's place in the part's
/// received range (the single-GPU sort_pairs' index words: low_digit_words_kernel,
/// gather_pairs_kernel): the place orders equal words by (source rank, source position), so
/// the merge keeps the pairs stable. Wider words re-sort each part (the stable sort_pairs).
template <class Bits, class Value>
constexpr bool merges_items = has_values<Value> && sizeof(Bits) == 4;
using item_word = std::uint64_t;

/// Elements from one received piece's start to the next's: 16 bytes of keys and of values
/// (NCCL copies into aligned ranges fastest; the sender's alignment matters less), or 1 where
/// the received pairs are re-sorted as one contiguous range (pairs of wider words).
template <class Bits, class Value>
constexpr std::size_t receive_align() {
  if constexpr (!has_values<Value>) return aligned_words<Bits>;
  else if constexpr (merges_items<Bits, Value>)
    return 16 / std::min(sizeof(Bits), sizeof(Value));
  else return 1;
}

/// Room the aligned pieces add to the received keys: at most one gap before every peer's piece
/// in every part.
template <class Bits, class Value>
std::size_t receive_slack(std::size_t parts, int ranks) {
  return parts * static_cast<std::size_t>(ranks) * (receive_align<Bits, Value>() - 1);
}

/// An item merge's group capacity: the same shared memory as the words' (the pairs' policy).
inline int item_capacity(const policy& local) {
  return warpsort::detail::item_policy<item_word>(local, sizeof(std::uint32_t)).group_capacity;
}

/// Storage of merging `keys` pairs in these runs as items: the items, the merged items, and
/// merge_runs' own.
inline std::size_t item_merge_bytes(const std::size_t* lengths, int runs, std::size_t keys,
                                    const options& o, const policy& local) {
  stages::temp_carver c(nullptr);
  c.take<item_word>(keys);
  c.take<item_word>(keys);
  c.take_bytes(stages::merge_runs_temp_bytes<item_word>(stages::make_runs_shape(
      lengths, runs, item_capacity(local), o.merge_oversampling)));
  return c.used();
}

/// Temporary bytes of merging (keys; pairs of 32-bit words, as items) or stably re-sorting
/// (pairs of 64-bit words) at most `bound` received keys in `runs` runs.
template <class Bits, class Value>
std::size_t receive_bytes(std::size_t bound, std::size_t runs, const options& o,
                          const policy& local) {
  if constexpr (merges_items<Bits, Value>) {
    std::vector<std::size_t> lengths(runs, 0);
    lengths[0] = bound;
    // the received range holds gaps before the aligned pieces: at most one a run
    return item_merge_bytes(lengths.data(), static_cast<int>(runs),
                            bound + runs * (receive_align<Bits, Value>() - 1), o, local);
  } else if constexpr (has_values<Value>) {
    return sort_locally_bytes<Bits, Value>(bound, local);
  } else {
    std::vector<std::size_t> lengths(runs, 0);
    lengths[0] = bound;  // the most samples and groups any split of `bound` keys can have
    return stages::merge_runs_temp_bytes<Bits>(stages::make_runs_shape(
        lengths.data(), static_cast<int>(runs), local.group_capacity, o.merge_oversampling));
  }
}

/// Device scratch of the splitters: samples, cut tables, the sample sort's storage.
template <class Bits>
struct control_arrays {
  stages::sample_record<Bits>* my_samples;  // slots
  stages::sample_record<Bits>* samples;     // P x slots
  stages::sample_record<Bits>* sorted;      // P x slots
  std::size_t* my_cuts;  // (buckets - 1) x rows; keys alone, its keys' bounds too; then status
  std::size_t* cuts;         // P of those
  std::size_t* bucket_offsets;  // where each bucket of this rank starts: buckets + 1
  void* cub_temp;
};

/// Everything one rank allocates once every rank has agreed (besides the control arrays):
/// the sorted sequences (the sent keys), the received keys, and storage the local sort and
/// then the merges share.
template <class Bits, class Value>
struct work_buffers {
  Bits* spare = nullptr;
  unsigned char* spare_values = nullptr;
  Bits* received = nullptr;
  unsigned char* received_values = nullptr;
  Bits* packed = nullptr;  // rounds' sent pieces made contiguous (two halves, used in turn)
  std::size_t packed_half = 0;
  // rebalancing: where the merges write, before the ranges go to their ranks
  Bits* merged = nullptr;
  unsigned char* merged_values = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  // the bucketed last round: its step 3, where buckets start in its sequences, a part's groups
  void* last_split = nullptr;
  std::size_t last_split_bytes = 0;
  std::size_t* bucket_starts = nullptr;
  std::size_t* first_group = nullptr;
  std::size_t* first_sub = nullptr;
};

/// What a rank needs: its capacity in keys, and device memory beyond its keys (temp_bytes
/// allocated by the call; arena_bytes its receive arena holds, where the received keys are
/// kept in the transport's arena: then not counted in temp_bytes).
struct rank_needs {
  std::size_t receive_bound, part_bound, capacity, temp_bytes, parts;
  int ranks;
  bool in_arena;
  std::size_t arena_bytes;
  bool two_copies;  // options::memory_plan::two_copies: the sequences in the caller's buffer
};

/// The received keys' room: the receive bound and the aligned pieces' gaps.
template <class Bits, class Value>
std::size_t receive_slots(const rank_needs& need) {
  return need.receive_bound + receive_slack<Bits, Value>(need.parts, need.ranks);
}
/// Where a rank's arena holds the received values: after the keys, 256-byte aligned.
template <class Bits, class Value>
std::size_t arena_values_at(const rank_needs& need) {
  return stages::ceil_div(receive_slots<Bits, Value>(need) * sizeof(Bits), std::size_t{256}) * 256;
}
/// Whether `need` fits the free memory `s` reports (an arena that grows gives back what it
/// held first; the packing the direct copies skip is counted: the refusal does not wait for
/// the arenas).
inline bool fits(const rank_needs& need, const rank_status& s) {
  const std::size_t held = need.in_arena && s.arena != no_arena ? s.arena : 0;
  const std::size_t more = need.arena_bytes > held ? need.arena_bytes - held : 0;
  return need.temp_bytes <= s.free_bytes && more <= s.free_bytes - need.temp_bytes;
}

/// `direct`: the keys are copied into the peers' arenas straight from their sequences (nothing
/// is packed but the bucketed round's merges); `arena`: this rank's, where need.in_arena.
template <class Bits, class Value>
work_buffers<Bits, Value> lay_out_work(stages::temp_carver& c, const local_plan& lp,
                                       const rank_needs& need, std::size_t runs,
                                       const options& o, const policy& local, bool direct,
                                       unsigned char* arena) {
  constexpr std::size_t vbytes = value_bytes<Value>;
  // rebalancing merges into a buffer of its own, which in one round is the spare buffer (its
  // sequences all sent by then) and in several apart from it (part k is merged while later
  // parts are still sent from the sequences); with two copies the local sort ping-pongs
  // through the arena and leaves the sequences in the caller's buffer
  const bool merged_in_spare = o.rebalance && need.parts == 1;
  const std::size_t spare = need.two_copies ? 0 : merged_in_spare ? std::max(lp.n, need.receive_bound) : lp.n;
  work_buffers<Bits, Value> w;
  w.spare = need.two_copies ? reinterpret_cast<Bits*>(arena) : c.take<Bits>(spare);
  w.spare_values = c.take<unsigned char>(spare * vbytes);
  if (merged_in_spare) {
    w.merged = w.spare;
    w.merged_values = w.spare_values;
  } else if (o.rebalance) {
    w.merged = c.take<Bits>(need.receive_bound);
    w.merged_values = c.take<unsigned char>(need.receive_bound * vbytes);
  }
  if (need.in_arena) {
    w.received = reinterpret_cast<Bits*>(arena);
    w.received_values = arena == nullptr ? nullptr : arena + arena_values_at<Bits, Value>(need);
  } else {
    w.received = c.take<Bits>(receive_slots<Bits, Value>(need));
    w.received_values = c.take<unsigned char>(receive_slots<Bits, Value>(need) * vbytes);
  }
  // keys in several sequences are packed before they are sent, one piece a peer (or merged
  // there by the bucketed last round); with one round the caller's buffer holds them (free
  // until the merge), else two halves alternate
  if (!has_values<Value> && ((lp.sequences > 1 && !direct) || lp.bucketed) && need.parts > 1) {
    w.packed_half = stages::ceil_div(std::min(lp.n, need.part_bound *
                                                        static_cast<std::size_t>(need.ranks - 1)) +
                                         static_cast<std::size_t>(need.ranks) * aligned_words<Bits>,
                                     aligned_words<Bits>) *
                    aligned_words<Bits>;
    w.packed = c.take<Bits>(2 * w.packed_half);
  }
  w.temp_bytes = std::max(local_sort_bytes<Bits, Value>(lp, local),
                          receive_bytes<Bits, Value>(need.part_bound, runs, o, local));
  w.temp = c.take_bytes(w.temp_bytes);
  if (lp.bucketed) {  // apart from temp: the receivers' merges run between the round's parts
    w.last_split_bytes =
        stages::split_sets_temp_bytes<Bits, less<Bits>>(lp.plan.rounds[lp.plan.round_count - 1]);
    w.last_split = c.take_bytes(w.last_split_bytes);
    w.bucket_starts = c.take<std::size_t>(lp.cut_sequences *
                                          (need.parts * static_cast<std::size_t>(need.ranks) + 1));
    w.first_group = c.take<std::size_t>(most_runs);
    w.first_sub = c.take<std::size_t>(most_runs + 1);
  }
  return w;
}

/// Everything a rank allocates, given every rank's count and its local plan (a pure function:
/// every rank computes every rank's needs and refuses alike).
template <class Bits, class Value>
rank_needs needs_of(std::size_t n, std::size_t total, int ranks, int rank, const options& o,
                    const policy& local, const local_plan& lp, std::size_t runs,
                    std::size_t parts, bool bucketed, bool in_arena, bool two_copies) {
  rank_needs need{};
  need.in_arena = in_arena;
  need.two_copies = two_copies;
  const std::size_t cut = cut_sequences_bound(ranks, bucketed);
  const std::size_t stride = sample_stride(total, ranks, o.oversampling, cut);
  const std::size_t share = o.rebalance ? n
                                        : balanced_prefix(rank + 1, ranks, total) -
                                              balanced_prefix(rank, ranks, total);
  need.parts = parts;
  need.ranks = ranks;
  need.receive_bound = std::min(total, bucket_bound(share, stride, cut));
  need.part_bound = std::min(need.receive_bound, bucket_bound(ceil_div(share, parts), stride, cut));
  need.capacity = o.rebalance ? n : std::max(n, need.receive_bound);  // the input, then the output
  if (has_values<Value> && std::max(n, need.receive_bound + receive_slack<Bits, Value>(parts, ranks)) >=
                               (std::size_t{1} << 32)) {
    need.temp_bytes = ~std::size_t{0};  // refused before this matters (sort_words)
    return need;
  }
  const policy& p = local;
  if (ranks == 1) {  // one rank sorts in place
    need.temp_bytes = sort_whole_bytes<Bits, Value>(o.local_sort, true, n, p);
    return need;
  }
  stages::temp_carver c(nullptr);
  lay_out_work<Bits, Value>(c, lp, need, std::max<std::size_t>(runs, 1), o, p, false, nullptr);
  need.temp_bytes = c.used();
  if (two_copies)  // keys alone: the received keys, and the local sort's second buffer
    need.arena_bytes = stages::ceil_div(std::max(n, receive_slots<Bits, Value>(need)) * sizeof(Bits),
                                        std::size_t{256}) * 256;
  else if (in_arena)
    need.arena_bytes =
        arena_values_at<Bits, Value>(need) + receive_slots<Bits, Value>(need) * value_bytes<Value>;
  return need;
}

/// The gathered path (options::gather_all): every rank's sorted share copied whole into every
/// other rank's arena, each merging its slice of all N keys. Rank q's arena holds first its
/// own region (its share sorted: the spare buffer; the local sort's other buffer, so that the
/// caller's keys are only read until the merge; the local sort's storage), whose layout
/// depends on its own count alone, so that the local sort may start before the agreement;
/// then the other ranks' shares in rank order (each aligned); then the merge's storage, which
/// starts with step 3's records: every rank writes its own samples' records there, so that
/// they are sorted while the keys travel. It is all of a rank's work memory, reserved with the
/// arenas, whose reservation every rank learns the outcome of before any key moves.
struct own_region {
  std::size_t spare_at = 0, pong_at = 0, temp_at = 0, temp_bytes = 0, end = 0;  // in bytes
};
struct gather_layout {
  own_region own;
  std::vector<std::size_t> share_at;  // share_at[p]: where rank p's share is, in keys (p != q)
  std::size_t merge_at = 0, bytes = 0;  // in bytes
};
/// The runs every rank merges: every rank's sequences (its local plan's), in rank order.
inline stages::runs_shape gather_runs_shape(const std::vector<local_plan>& plans,
                                            const options& o, const policy& local) {
  std::vector<std::size_t> lengths;
  for (const local_plan& lp : plans)
    for (std::size_t i = 0; i < lp.sequences; ++i)
      lengths.push_back(std::min(lp.sequence_keys, lp.n - i * lp.sequence_keys));
  return stages::make_runs_shape(lengths.data(), static_cast<int>(lengths.size()),
                                 local.group_capacity, o.merge_oversampling);
}
/// Ranges the gathered path's local sort runs in, each copied to the peers while the next is
/// sorted (options::gather_pieces; alike on every rank: a pure function of the counts). Two
/// hide about half of the copies and cost one range's fixed costs (its rounds' launches and
/// sample sorts, 0.04-0.14 ms), so they pay where a rank receives at least 96 MiB: on four
/// H200s (uint32) 2^25 keys in all (96 MiB) 0.765-0.788 ms against 0.821-0.836 in one range,
/// 2^26 1.388-1.392 against 1.531; on two 2^27 (256 MiB) 3.461 against 3.520, while 2^24 (32
/// MiB) lost, 0.576 against 0.546. Four and eight ranges lost to two at every total.
constexpr std::size_t gather_two_pieces_bytes = std::size_t{96} << 20;
template <class Bits>
int gather_pieces(const options& o, const std::vector<std::size_t>& counts, std::size_t rank) {
  if (o.gather_pieces > 0) return o.gather_pieces;
  std::size_t received = 0;
  for (std::size_t p = 0; p < counts.size(); ++p) received += p == rank ? 0 : counts[p];
  return received * sizeof(Bits) >= gather_two_pieces_bytes ? 2 : 1;
}
inline std::size_t round_up(std::size_t x, std::size_t to) { return stages::ceil_div(x, to) * to; }
/// A rank's own region of its arena, from its count, plan and ranges alone.
template <class Bits>
own_region own_region_of(std::size_t n, const local_plan& lp, int pieces, const policy& local) {
  own_region r;
  r.pong_at = round_up(n * sizeof(Bits), 256);
  r.temp_at = round_up(r.pong_at + n * sizeof(Bits), 256);
  r.temp_bytes = ranges_sort_bytes<Bits>(lp, pieces, local);
  r.end = r.temp_at + r.temp_bytes;
  return r;
}
/// Rank q's arena; `merge_bytes`: the merge's storage (alike on every rank).
template <class Bits>
gather_layout gather_layout_of(const std::vector<std::size_t>& counts, std::size_t q,
                               const local_plan& lp, std::size_t merge_bytes, const options& o,
                               const policy& local) {
  const std::size_t P = counts.size();
  gather_layout g;
  g.own = own_region_of<Bits>(counts[q], lp, gather_pieces<Bits>(o, counts, q), local);
  g.share_at.assign(P, 0);
  std::size_t at = round_up(g.own.end, 256) / sizeof(Bits);
  for (std::size_t p = 0; p < P; ++p) {
    g.share_at[p] = at;
    if (p != q) at = round_up(at + counts[p], aligned_words<Bits>);
  }
  g.merge_at = round_up(at * sizeof(Bits), 256);
  g.bytes = g.merge_at + merge_bytes;
  return g;
}
/// What the gathered path lays out, alike on every rank: the runs every rank merges, the
/// merge's storage, and every rank's arena.
struct gather_plan {
  stages::runs_shape shape;
  std::size_t merge_bytes = 0;
  std::vector<gather_layout> layouts;  // layouts[q]: rank q's arena
};
template <class Bits>
gather_plan plan_gather(const std::vector<std::size_t>& counts, const std::vector<local_plan>& plans,
                        const options& o, const policy& local) {
  gather_plan g;
  g.shape = gather_runs_shape(plans, o, local);
  g.merge_bytes = stages::merge_runs_temp_bytes<Bits>(g.shape);
  for (std::size_t q = 0; q < counts.size(); ++q)
    g.layouts.push_back(gather_layout_of<Bits>(counts, q, plans[q], g.merge_bytes, o, local));
  return g;
}

/// The extra keys' bytes a rank may receive on the gathered path, (P - 1)^2 / P^2 N keys more
/// than the exchange's, where options::gather_all is automatic: on two, three and four H200s
/// (uint32, the local sort sent in ranges) the gathered path was the faster up to 2^26 keys in
/// all on four GPUs (144 MiB of extra keys a rank: 1.365 against 1.526 ms) and three (114 MiB),
/// up to 2^27 on two (128 MiB), and the exchange from 2^27 on four (288 MiB): the splitters'
/// ~0.2 ms of host round trips against the extra copies at ~300 GB/s, half of them under the
/// local sort (gather_pieces).
constexpr std::size_t gather_extra_bytes = std::size_t{160} << 20;
inline bool gather_pays(std::size_t total, int ranks, std::size_t key_bytes) {
  const std::size_t P = static_cast<std::size_t>(ranks);
  return total * key_bytes * (P - 1) * (P - 1) <= gather_extra_bytes * P * P;
}
/// Whether the options take the gathered path for `total` keys where it can run: always, or
/// automatically where the ranks are known to write into each other's arenas (they gather
/// through host memory: processes of one host whose arenas every rank has opened, from a
/// transport's second call, so that ranks on several hosts keep the exchange), nothing else is
/// forced, and it pays.
inline bool gather_asked(const options& o, std::size_t total, int ranks, std::size_t key_bytes,
                         bool gathers_on_host) {
  using gp = options::gather_path;
  return o.gather_all == gp::always ||
         (o.gather_all == gp::automatic && gathers_on_host && o.exchange_parts == 0 &&
          o.memory == options::memory_plan::automatic &&
          o.exchange == options::exchange_path::automatic &&
          gather_pays(total, ranks, key_bytes));
}

/// A second stream, for the exchange: on leaving, the caller's stream waits for it.
class side_stream {
 public:
  explicit side_stream(cudaStream_t main, int lane = 0) : main_(main), stream_(of_thread(lane)) {}
  ~side_stream() {
    cudaEvent_t done = nullptr;
    if (cudaEventCreateWithFlags(&done, cudaEventDisableTiming) == cudaSuccess) {
      (void)cudaEventRecord(done, stream_);
      (void)cudaStreamWaitEvent(main_, done, 0);
      (void)cudaEventDestroy(done);
    }
  }
  side_stream(const side_stream&) = delete;
  side_stream& operator=(const side_stream&) = delete;
  cudaStream_t get() const { return stream_; }
  /// The calling thread's stream `lane` (of `lanes`) on the current device, of the highest
  /// priority (the transfers' blocks start ahead of the merges' waiting blocks), made once:
  /// making and destroying a stream costs tens of microseconds of the host, a small total's
  /// whole exchange.
  static constexpr int lanes = 2;
  static cudaStream_t of_thread(int lane = 0) {
    struct kept_streams {
      std::vector<cudaStream_t> by_device;
      ~kept_streams() {
        for (cudaStream_t s : by_device)
          if (s) (void)cudaStreamDestroy(s);
      }
    };
    thread_local kept_streams kept;
    int device = 0;
    WARPSORT_CUDA_CHECK(cudaGetDevice(&device));
    const std::size_t d = static_cast<std::size_t>(device) * lanes + static_cast<std::size_t>(lane);
    if (kept.by_device.size() <= d) kept.by_device.resize(d + 1, nullptr);
    if (!kept.by_device[d]) {
      int least = 0, greatest = 0;
      WARPSORT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      WARPSORT_CUDA_CHECK(
          cudaStreamCreateWithPriority(&kept.by_device[d], cudaStreamNonBlocking, greatest));
    }
    return kept.by_device[d];
  }
  /// `waiter` waits for the work queued on `from` so far.
  static void order(cudaStream_t from, cudaStream_t waiter) {
    cudaEvent_t e = nullptr;
    WARPSORT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    const cudaError_t recorded = cudaEventRecord(e, from);
    const cudaError_t waited = recorded == cudaSuccess ? cudaStreamWaitEvent(waiter, e, 0) : recorded;
    (void)cudaEventDestroy(e);
    WARPSORT_CUDA_CHECK(waited);
  }

 private:
  cudaStream_t main_;
  cudaStream_t stream_ = nullptr;
};

/// A copy into a peer's arena, by a copy engine.
struct direct_copy {
  void* to;
  const void* from;
  std::size_t bytes;
};
/// Queues `copies` as one batch (cudaMemcpyBatchAsync), in no order among themselves: on four
/// H200s a round's copies so queued took 0.76-0.91x the time of the same copies queued one by one
/// on the same stream (the exchange of 2^28-2^32 keys at 0.96-1.19x NCCL's all-to-all of the same
/// bytes, against 0.72-1.03x). One by one where the runtime or the driver has no batches.
inline void copy_batch(const std::vector<direct_copy>& copies, cudaStream_t stream) {
  if (copies.empty()) return;
#if CUDART_VERSION >= 12080
  std::vector<void*> to;
  std::vector<void*> from;  // CUDA 12.8-12.9 take the sources as void**
  std::vector<std::size_t> bytes;
  for (const direct_copy& c : copies) {
    to.push_back(c.to);
    from.push_back(const_cast<void*>(c.from));
    bytes.push_back(c.bytes);
  }
  cudaMemcpyAttributes in_stream_order{};
  in_stream_order.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  std::size_t first = 0;
#if CUDART_VERSION >= 13000
  const cudaError_t batched = cudaMemcpyBatchAsync(to.data(), from.data(), bytes.data(), to.size(),
                                                   &in_stream_order, &first, 1, stream);
#else
  std::size_t failed = 0;
  const cudaError_t batched = cudaMemcpyBatchAsync(to.data(), from.data(), bytes.data(), to.size(),
                                                   &in_stream_order, &first, 1, &failed, stream);
#endif
  if (batched != cudaErrorNotSupported && batched != cudaErrorCallRequiresNewerDriver) {
    WARPSORT_CUDA_CHECK(batched);
    return;
  }
  (void)cudaGetLastError();  // not sticky: the copies go one by one instead
#endif
  for (const direct_copy& c : copies)
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(c.to, c.from, c.bytes, cudaMemcpyDeviceToDevice, stream));
}

/// The gathered path's local sort of keys [at, at + len), a range of whole sequences: from `in`
/// (the caller's keys, or their words in the pong buffer), ping-ponging between the pong and
/// spare buffers of the rank's own region and ending in spare.
template <class Bits>
void sort_gathered_range(const Bits* in, unsigned char* arena, const own_region& own,
                         const local_plan& lp, std::size_t at, std::size_t len,
                         cudaStream_t stream, const policy& local) {
  Bits* const pong = reinterpret_cast<Bits*>(arena + own.pong_at);
  Bits* const spare = reinterpret_cast<Bits*>(arena + own.spare_at);
  sort_into_sequences<Bits, no_values>(in + at, pong + at, spare + at, nullptr, nullptr,
                                       range_plan(lp, len, local), arena + own.temp_at,
                                       own.temp_bytes, stream, local);
}

/// The gathered path's first range, sorted before the agreement where that path is likely
/// (the host's agreement and planning, ~0.03-0.05 ms, then overlap the sort instead of
/// preceding it): on a side stream, into the own region of the arena this rank already holds,
/// which depends on its count alone and which no peer writes. The caller's keys are only read.
/// Used where the agreement takes the gathered path with that arena and those ranges; otherwise
/// only waited for (the stream waits for the lane when it is reset, before any other work).
struct early_sort {
  std::optional<side_stream> lane;
  std::size_t arena_bytes = 0;  // what the arena held: a reserve that grows it replaces it
  local_plan plan;
  int pieces = 0;
  bool mapped = false;  // the keys' words are in the pong buffer (else the keys are the words)
};

/// The gathered path, once every rank has agreed on it and reserved its arena (gather_layout):
/// the local sort into sequences (its plan's, as for the exchange) in the arena's spare buffer,
/// in ranges of sequences (the first sorted before the agreement where sorted_early), each
/// range copied into every peer's arena (copy engines, or one
/// kernel where options::exchange asks) while the next sorts; step 3's records of their samples
/// (one kernel) copied likewise; each followed by an event; one host barrier; the records of
/// every rank put in order on a side stream while the keys travel; then this rank's slice of
/// the merge of every rank's sequences, into keys.
template <class Bits, class ToWords, class FromWords, class Enter>
void gather_and_merge(transport& t, Bits* keys, std::size_t n, cudaStream_t stream,
                      const options& o, const policy& local, const std::vector<std::size_t>& counts,
                      const std::vector<local_plan>& plans, const gather_plan& gp,
                      const peer_memory::arenas& arenas, bool sorted_early, bool early_mapped,
                      warpsort::detail::event_marks<6>& events, sort_result& result,
                      ToWords to_words, FromWords from_words, Enter enter) {
  using record = stages::record_of<stages::any_runs<Bits>>;
  static_assert(sizeof(record) % sizeof(Bits) == 0, "records are copied as words");
  constexpr std::size_t record_words = sizeof(record) / sizeof(Bits);
  enum event_part : int { keys_sent = 0, records_sent = 1 };
  const int ranks = t.size(), me = t.rank();
  const std::size_t P = counts.size(), mine = static_cast<std::size_t>(me);
  peer_memory* const peers = t.peers();
  const stages::runs_shape& shape = gp.shape;
  const gather_layout& g = gp.layouts[mine];
  unsigned char* const arena = arenas.at[mine];
  Bits* const spare = reinterpret_cast<Bits*>(arena + g.own.spare_at);
  // every rank's sequences as the merge's runs: this rank's in its spare buffer, the others'
  // where they land in its arena
  std::vector<std::size_t> first_run(P + 1, 0);
  stages::run_sources<Bits> sources{};
  for (std::size_t p = 0; p < P; ++p) {
    first_run[p + 1] = first_run[p] + plans[p].sequences;
    const Bits* const share = p == mine ? spare : reinterpret_cast<const Bits*>(arena) + g.share_at[p];
    for (std::size_t i = 0; i < plans[p].sequences; ++i)
      sources.at[first_run[p] + i] = share + i * plans[p].sequence_keys;
  }
  const stages::any_runs<Bits> runs{sources, shape};
  // step 3's storage, the records first (where every peer writes its own: offset 0)
  stages::temp_carver carver(arena + g.merge_at);
  const stages::splitter_arrays<record> a =
      stages::carve_splitters<stages::any_runs<Bits>, less<Bits>>(carver, runs,
                                                                  stages::sample_order::sorted);
  const std::size_t first_sample = shape.sample_start[first_run[mine]];
  const std::size_t my_samples = shape.sample_start[first_run[mine + 1]] - first_sample;

  // the local sort in ranges of whole sequences (the first one already sorted where
  // sorted_early), each range's keys copied into every peer's arena on a second stream (by copy
  // engines as one batch; by one kernel only where asked) while the next range sorts
  enter("local_sort");
  if (!sorted_early) events.mark(0);
  const bool by_kernel = o.exchange == options::exchange_path::sm_copies;
  side_stream sends(stream, 1);
  const std::vector<std::size_t> ends =
      sequence_ranges(plans[mine], gather_pieces<Bits>(o, counts, mine));
  Bits* const pong = reinterpret_cast<Bits*>(arena + g.own.pong_at);
  const bool mapped = sorted_early ? early_mapped : n > 0 && to_words(keys, pong, stream);
  for (std::size_t i = 0; i + 1 < ends.size(); ++i) {
    const std::size_t at = ends[i], len = ends[i + 1] - ends[i];
    if (!(sorted_early && i == 0))
      sort_gathered_range<Bits>(mapped ? pong : keys, arena, g.own, plans[mine], at, len, stream,
                                local);
    side_stream::order(stream, sends.get());
    copy_list<Bits> key_copies;
    std::vector<direct_copy> engine_copies;
    for (std::size_t j = 1; j < P; ++j) {
      const std::size_t q = (mine + j) % P;
      Bits* const to = reinterpret_cast<Bits*>(arenas.at[q]) + gp.layouts[q].share_at[mine] + at;
      if (by_kernel)
        key_copies.add(spare + at, to, len);
      else
        engine_copies.push_back({to, spare + at, len * sizeof(Bits)});
    }
    copy_batch(engine_copies, sends.get());
    copy_pieces(key_copies, sends.get());
  }
  WARPSORT_CUDA_CHECK(cudaEventRecord(peers->sent(me, keys_sent), sends.get()));
  events.mark(1);
  enter("splitters");  // this rank's samples; every rank's are sorted while the keys travel
  stages::gather_samples<stages::any_runs<Bits>, less<Bits>>(runs, a.records_in + first_sample,
                                                            my_samples, stream, first_sample);
  events.mark(2);

  enter("exchange");
  // the records by one kernel, ahead of the last range's keys
  copy_list<Bits> record_copies;
  for (std::size_t j = 1; j < P; ++j) {
    const std::size_t q = (mine + j) % P;
    if (my_samples > 0)
      record_copies.add(reinterpret_cast<const Bits*>(a.records_in + first_sample),
                        reinterpret_cast<Bits*>(arenas.at[q] + gp.layouts[q].merge_at) +
                            first_sample * record_words,
                        my_samples * record_words);
  }
  copy_pieces(record_copies, stream);
  WARPSORT_CUDA_CHECK(cudaEventRecord(peers->sent(me, records_sent), stream));
  peers->barrier("exchange");
  const record* sorted = a.records_in;
  {
    side_stream side(stream);
    for (int p = 0; p < ranks; ++p)  // this rank's own records included
      WARPSORT_CUDA_CHECK(cudaStreamWaitEvent(side.get(), peers->sent(p, records_sent), 0));
    sorted = stages::order_run_samples<Bits>(a, shape, side.get());
  }  // the stream waits for the sort here
  for (int p = 0; p < ranks; ++p)  // this rank's own sends too: they read its sequences
    WARPSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, peers->sent(p, keys_sent), 0));
  events.mark(3);

  enter("merge");
  const std::vector<std::size_t> offsets = prefix(counts);
  const std::size_t total = offsets[P];
  const auto first = [&](std::size_t q) {
    return o.rebalance ? offsets[q] : balanced_prefix(static_cast<int>(q), ranks, total);
  };
  stages::cut_sets(runs, sorted, true, a.cuts, a.offsets, less<Bits>{}, stream);
  stages::merge_run_groups(runs, {a.cuts, a.offsets}, keys, local.group_capacity,
                           {first(mine), first(mine + 1)}, stream);
  peers->release_after(stream);  // the arena is read until the merge is done
  events.mark(4);

  result.gathered = true;
  result.gather_pieces = ends.size() - 1;
  result.sorted_before_agreement = sorted_early;
  result.copy_engines = true;  // straight into the arenas (by_kernel: with the SMs)
  result.sm_copies = by_kernel;
  result.exchange_rounds = 1;
  result.temp_bytes = g.own.end + (g.bytes - g.merge_at);
  for (std::size_t q = 0; q < P; ++q) {
    result.counts[q] = first(q + 1) - first(q);
    for (std::size_t p = 0; p < P; ++p) result.sent[p * P + q] = p == q ? 0 : counts[p];
  }
  result.count = result.counts[mine];
  from_words(result.count, stream);
  events.mark(5);
}

/// The sort of unsigned words (ascending) on this rank; to_words(from, to, stream) maps the
/// caller's keys into words (in place once every rank has agreed to go ahead, or into the
/// arena; it returns whether it ran a pass: false where the keys are their words) and
/// from_words maps them back at the end. One rank sorts its
/// keys in place by sort_one_rank(temp, bytes, stream) instead (a null temp: the bytes it needs).
/// zero_signs: the caller's float keys' zeros (zero_sign), for pairs.
template <class Bits, class Value, class ToWords, class FromWords, class OneRank>
sort_result sort_words(transport& t, Bits* keys, Value* values, std::size_t n, std::size_t capacity,
                       cudaStream_t stream, const options& o, const policy& local, ToWords to_words,
                       FromWords from_words, OneRank sort_one_rank, std::int32_t zero_signs = 0) {
  const int ranks = t.size(), me = t.rank();
  const std::size_t P = static_cast<std::size_t>(ranks), mine_at = static_cast<std::size_t>(me);
  constexpr std::size_t vbytes = value_bytes<Value>;
  if (ranks > most_runs)  // every rank sees the same size: all throw
    throw input_error("warpsort::distributed::sort_keys: " + std::to_string(ranks) +
                      " ranks; at most " + std::to_string(most_runs) +
                      " (a rank merges one run from every rank on chip)");
  if (o.oversampling < 1 || o.merge_oversampling < 1)
    throw input_error("warpsort::distributed::sort_keys: oversampling must be positive");
  if (o.merge_runs < 1 || o.merge_runs > most_runs)
    throw input_error("warpsort::distributed::sort_keys: merge_runs must be in [1, " +
                      std::to_string(most_runs) + "]");
  if (o.gather_pieces < 0)
    throw input_error("warpsort::distributed::sort_keys: gather_pieces must be at least 0 "
                      "(0: automatic)");
  (void)make_plan(n, local);  // the policy's own checks, alike on every rank
  sort_result result;
  t.set_timeout(o.timeout_seconds);
  const auto enter = [&](const char* phase) {
    t.set_phase(phase);
    if (o.on_phase) o.on_phase(phase);
  };
  warpsort::detail::event_marks<6> events(o.timed, stream);
  warpsort::detail::event_marks<2> last_part(o.timed, stream);  // the last part's merge
  bool last_part_marked = false;
  // the end of the call: with a deadline or timings, wait (within the deadline) for the work
  const auto finish = [&](bool marked = true) {  // marked: every event was recorded
    enter("finish");
    if (o.timed || o.timeout_seconds > 0) t.wait(stream, "finish");
    if (!marked) return;
    phase_times& times = result.times;
    events.read({&times.local_sort_ms, &times.splitters_ms, &times.exchange_ms, &times.merge_ms,
                 &times.rebalance_ms});
    if (last_part_marked) last_part.read({&times.last_part_merge_ms});
  };
  // the gathered path's first range sorted before the agreement, where that path is likely:
  // decided from this rank's count, options and arena alone (the agreement then decides whether
  // it is used)
  peer_memory* const peers = t.peers();
  const bool second_round_cheap = t.gathers_on_host(sizeof(rank_status));
  early_sort early;
  if constexpr (!has_values<Value>) {
    if (ranks > 1 && n > 0 && keys != nullptr && n <= capacity && peers && second_round_cheap &&
        o.local_sort == local_algorithm::warpsort &&
        o.exchange != options::exchange_path::transport &&
        gather_asked(o, n * P, ranks, sizeof(Bits), second_round_cheap)) {
      early.plan = plan_local(n, ranks, local, false, o.merge_runs, o.local_sort, false);
      early.pieces = gather_pieces<Bits>(o, std::vector<std::size_t>(P, n), mine_at);
      const own_region own = own_region_of<Bits>(n, early.plan, early.pieces, local);
      auto* const arena = static_cast<unsigned char*>(peers->arena());
      early.arena_bytes = peers->arena_bytes();
      if (!early.plan.whole && arena != nullptr && early.arena_bytes >= own.end) {
        events.mark(0);
        early.lane.emplace(stream, 0);
        side_stream::order(stream, early.lane->get());
        Bits* const pong = reinterpret_cast<Bits*>(arena + own.pong_at);
        early.mapped = to_words(keys, pong, early.lane->get());
        const std::vector<std::size_t> ends = sequence_ranges(early.plan, early.pieces);
        sort_gathered_range<Bits>(early.mapped ? pong : keys, arena, own, early.plan, 0, ends[1],
                                  early.lane->get(), local);
      }
    }
  }
  enter("agree");

  // 0. statuses, in a small allocation of their own
  stream_allocation status_block(sizeof(rank_status) * (P + 1), stream);
  if (!status_block.ok())
    throw cuda_error(cudaErrorMemoryAllocation,
                     "warpsort::distributed::sort_keys: no device memory for the status exchange");
  auto* statuses = static_cast<rank_status*>(status_block.get());
  // The free memory each rank counts: first its pool's unused bytes alone, a lower bound read at
  // once (the driver's count takes tens of microseconds, as long as a small total's exchange);
  // where that does not cover some rank's plan, every rank reads the driver and the statuses go
  // round again (below). Where the statuses travel by collectives, the driver is read first.
  rank_status mine{n, capacity, second_round_cheap ? pool_unused_bytes() : allocatable_bytes(),
                   peers ? peers->arena_bytes() : no_arena, status_ok, second_round_cheap ? 0 : 1,
                   zero_signs};
  if (n > 0 && (keys == nullptr || (has_values<Value> && values == nullptr)))
    mine.code = status_null_keys;
  else if (n > capacity) mine.code = status_over_capacity;
  std::vector<rank_status> all(P);
  gather_to_host(t, &mine, all.data(), sizeof mine, statuses, stream, "agree");

  std::vector<std::size_t> counts(P);
  for (std::size_t p = 0; p < P; ++p) counts[p] = all[p].n;
  const std::vector<std::size_t> offsets = prefix(counts);
  const std::size_t total = offsets[P];
  // the received keys are kept in the transports' arenas where every rank's has one
  bool in_arena = ranks > 1;
  for (const rank_status& s : all) in_arena = in_arena && s.arena != no_arena;
  // the exchange's rounds, and with several, whether the last local round runs bucket by
  // bucket during them (then the splitters cut the sequences before it): alike on every rank
  std::size_t parts = exchange_parts(total, ranks, o, in_arena);
  const auto bucketing = [&](std::size_t k) {
    return o.bucket_last_round && k > 1 && !has_values<Value> &&
           o.local_sort == local_algorithm::warpsort;
  };
  // every rank's local plan: its sequences, numbered over all ranks in rank order
  std::vector<local_plan> plans(P);
  std::vector<std::size_t> first_sequence(P + 1, 0);
  const auto plan_all = [&](bool bucketed) {
    for (std::size_t p = 0; p < P; ++p) {
      plans[p] = plan_local(counts[p], ranks, local, has_values<Value>, o.merge_runs, o.local_sort,
                            bucketed);
      first_sequence[p + 1] = first_sequence[p] + plans[p].sequences;
    }
  };
  plan_all(bucketing(parts));
  const std::size_t runs = first_sequence[P];  // what every rank merges: <= sequences_bound(P)
  // every rank's needs; the exchange in fewer rounds where the pipelined plan's buffers do not
  // fit every rank
  bool two_copies = false;  // options::memory_plan
  const auto needs_with = [&](std::size_t k) {
    std::vector<rank_needs> v(P);
    for (std::size_t p = 0; p < P; ++p)
      v[p] = needs_of<Bits, Value>(counts[p], total, ranks, static_cast<int>(p), o, local,
                                   plans[p], runs, k, bucketing(k), in_arena, two_copies);
    return v;
  };
  // two copies: one round, keys alone, no rebalancing, the keys copied into the peers' arenas
  const bool two_copies_possible = !has_values<Value> && !o.rebalance && in_arena &&
                                   o.exchange != options::exchange_path::transport;
  const auto use_two_copies = [&] {
    if (bucketing(parts)) plan_all(false);  // one round has no bucketed last round
    parts = 1;
    two_copies = true;
  };
  if (o.memory == options::memory_plan::two_copies && ranks > 1 && total > 0) {
    if (!two_copies_possible)  // alike on every rank: the options, and whether all have arenas
      throw input_error("warpsort::distributed::sort_keys: memory_plan::two_copies needs keys "
                        "without values, no rebalancing, and a transport with receive arenas "
                        "(the keys copied straight into them)");
    use_two_copies();
  }
  std::vector<rank_needs> needs = needs_with(parts);
  // small totals: every rank's share to every rank, each merging its slice (options::gather_all;
  // alike on every rank: the options, the gathered counts, whether all have arenas)
  const bool gather_possible = ranks > 1 && total > 0 && !has_values<Value> && in_arena &&
                               o.exchange != options::exchange_path::transport;
  if (o.gather_all == options::gather_path::always && ranks > 1 && total > 0 && !gather_possible)
    throw input_error("warpsort::distributed::sort_keys: gather_all = always needs keys without "
                      "values and a transport with receive arenas every rank copies into");
  bool gather =
      gather_possible && gather_asked(o, total, ranks, sizeof(Bits), second_round_cheap);
  // its plan: the local plans without a bucketed round (one round), everything in the arena,
  // the same capacity asked as of the exchange
  gather_plan gathered;
  const auto gather_needs = [&] {
    if (bucketing(parts)) plan_all(false);
    gathered = plan_gather<Bits>(counts, plans, o, local);
    std::vector<rank_needs> v = needs;
    for (std::size_t p = 0; p < P; ++p) {
      v[p].parts = 1;
      v[p].temp_bytes = 0;
      v[p].in_arena = true;
      v[p].arena_bytes = gathered.layouts[p].bytes;
    }
    return v;
  };
  if (gather) needs = gather_needs();
  bool counted = true;  // every rank's free memory covers its plan, or is the driver's count
  for (std::size_t p = 0; p < P; ++p) {
    const std::uint64_t arena = all[p].arena == no_arena ? 0 : all[p].arena;
    counted = counted && (all[p].exact || (fits(needs[p], all[p]) && needs[p].arena_bytes <= arena));
  }
  if (!counted) {  // alike on every rank: all gathered the same statuses
    mine.free_bytes = allocatable_bytes();
    mine.exact = 1;
    gather_to_host(t, &mine, all.data(), sizeof mine, statuses, stream, "agree");
  }
  const auto all_fit = [&] {
    for (std::size_t p = 0; p < P; ++p)
      if (!fits(needs[p], all[p])) return false;
    return true;
  };
  if (gather && o.gather_all == options::gather_path::automatic && !all_fit()) {
    gather = false;  // the exchange's plan, which receives fewer keys
    plan_all(bucketing(parts));
    needs = needs_with(parts);
  }
  if (gather) parts = 1;
  if (!gather && parts > 1 && o.exchange_parts == 0 && !all_fit()) {
    if (bucketing(parts)) plan_all(false);  // one round has no bucketed last round
    parts = 1;
    needs = needs_with(parts);
  }
  // where even one round's three copies do not fit some rank, two (alike on every rank: the
  // statuses are exact here, gathered again above where the first count fell short)
  if (!gather && !two_copies && two_copies_possible && o.memory == options::memory_plan::automatic &&
      (o.exchange_parts == 0 || o.exchange_parts == 1) && !all_fit()) {
    use_two_copies();
    needs = needs_with(parts);
  }
  const bool bucketed = bucketing(parts);
  result.exchange_rounds = total == 0 || ranks == 1 ? 0 : parts;
  std::string refused;
  for (int p = 0; p < ranks; ++p) {
    const rank_status& s = all[static_cast<std::size_t>(p)];
    const rank_needs& need = needs[static_cast<std::size_t>(p)];
    std::string why;
    if (s.code == status_null_keys) why = "null key or value pointer with n = " + std::to_string(s.n);
    else if (has_values<Value> &&
             std::max<std::size_t>(s.n, need.receive_bound + receive_slack<Bits, Value>(parts, ranks)) >=
                 (std::size_t{1} << 32))
      why = "pairs: at most 2^32 - 1 a rank, counting the received pieces' alignment (n = " +
            std::to_string(s.n) + ", may receive " + std::to_string(need.receive_bound) + ")";
    else if (s.code == status_over_capacity)
      why = "n = " + std::to_string(s.n) + " exceeds its capacity " + std::to_string(s.capacity);
    else if (s.capacity < need.capacity)
      why = "capacity " + std::to_string(s.capacity) + " keys; the output may need " +
            std::to_string(need.capacity) + " (warpsort::distributed::required_capacity)";
    else if (!fits(need, s))
      why = "needs " + std::to_string(need.temp_bytes + need.arena_bytes) +
            " bytes of device memory beyond its keys" +
            (need.in_arena ? " (" + std::to_string(need.arena_bytes) + " of them its receive arena, which holds " +
                                 std::to_string(s.arena) + " now)"
                           : std::string()) +
            ", " + std::to_string(s.free_bytes) + " are free";
    if (!why.empty()) refused += "\n  rank " + std::to_string(p) + ": " + why;
  }
  // Pairs: a float's word keeps its bits, so -0.0 would come before +0.0, which the order holds
  // equal: where both occur, their pairs' input order could not be kept (one rank sorts them
  // with the single-GPU sort, which keeps it)
  std::int32_t signs = 0;
  for (const rank_status& s : all) signs |= s.zero_signs;
  if (has_values<Value> && ranks > 1 && signs == (zero_minus | zero_plus))
    refused += "\n  float keys hold both -0.0 and +0.0, whose pairs' input order this sort cannot "
               "keep (it would order -0.0 first); make the zeros one sign first (adding +0.0 to "
               "every key makes -0.0 +0.0)";
  if (!refused.empty())
    throw input_error("warpsort::distributed::sort_keys refused, on every rank (" +
                      std::to_string(total) + " keys over " + std::to_string(ranks) +
                      " ranks):" + refused);
  result.input_counts = counts;
  result.counts.assign(P, 0);
  result.sent.assign(P * P, 0);
  if (total == 0) {  // every rank sees the same total: all return here alike
    finish(false);
    return result;
  }

  if (ranks == 1) {  // one rank: the single-GPU sort in place; nothing to split or move
    enter("local_sort");
    events.mark(0);
    const std::size_t sort_bytes = sort_one_rank(nullptr, 0, stream);
    stream_allocation work(sort_bytes, stream);
    if (!work.ok())
      throw cuda_error(cudaErrorMemoryAllocation, "warpsort::distributed::sort_keys: allocating " +
                                                      std::to_string(sort_bytes) + " bytes failed");
    sort_one_rank(work.get(), sort_bytes, stream);
    for (int e = 1; e < 6; ++e) events.mark(e);
    result.count = n;
    result.counts = counts;
    result.sent = counts;
    result.temp_bytes = sort_bytes;
    finish();
    return result;
  }

  // the receive arenas, grown where this call needs more: a failure on one rank is every
  // rank's, before keys move
  peer_memory::arenas arenas;
  if (in_arena) {
    // an arena about to be replaced is written by no early sort meanwhile
    if (early.lane && needs[mine_at].arena_bytes > peers->arena_bytes())
      t.wait(early.lane->get(), "agree");
    std::vector<std::size_t> arena_bytes(P);
    for (std::size_t p = 0; p < P; ++p) arena_bytes[p] = needs[p].arena_bytes;
    arenas = peers->reserve(arena_bytes, stream, "agree");
    if (!arenas.failed.empty()) {
      std::string ranks_failed;
      for (int p : arenas.failed) ranks_failed += (ranks_failed.empty() ? "" : ", ") + std::to_string(p);
      throw agreed_failure(cudaErrorMemoryAllocation,
                           "warpsort::distributed::sort_keys: allocating the receive arena failed "
                           "on rank(s) " + ranks_failed + " (every rank stops here; no key moved)");
    }
  }
  // the first range sorted early is used where the gathered path runs (its plan is the early
  // one: plan_local of this count) in the same arena (a reserve replaces it only to grow it)
  // with the same ranges; the stream waits for it either way
  const bool sorted_early = early.lane && gather && peers->arena_bytes() == early.arena_bytes &&
                            gather_pieces<Bits>(o, counts, mine_at) == early.pieces;
  early.lane.reset();
  // the keys copied by copy engines into the peers' arenas, or moved by the transport
  const bool direct = in_arena && arenas.direct && o.exchange != options::exchange_path::transport;
  result.copy_engines = direct;
  result.two_copies = two_copies;
  if (gather) {
    if (!direct)  // alike on every rank (peer_memory::arenas::direct)
      throw agreed_failure(cudaErrorNotSupported,
                           "warpsort::distributed::sort_keys: gathering every rank's keys needs "
                           "them copied straight into the peers' arenas, which this transport "
                           "cannot (every rank stops here; no key moved)");
    if constexpr (!has_values<Value>) {
      gather_and_merge<Bits>(t, keys, n, stream, o, local, counts, plans, gathered, arenas,
                             sorted_early, early.mapped, events, result, to_words, from_words,
                             enter);
      finish();
      return result;
    }
  }
  if (two_copies && !direct)  // alike on every rank (peer_memory::arenas::direct)
    throw agreed_failure(cudaErrorNotSupported,
                         "warpsort::distributed::sort_keys: the two-copy memory plan needs the keys "
                         "copied straight into the peers' arenas, which this transport cannot "
                         "(every rank stops here; no key moved)");

  // 1. the local sort, into sorted sequences
  enter("local_sort");
  events.mark(0);
  const local_plan& lp = plans[mine_at];
  const rank_needs& need = needs[mine_at];
  const std::size_t buckets = P * parts;
  result.last_round_bucketed = lp.bucketed;
  std::size_t rows = 1;  // the most sequences a rank's splitters cut
  for (const local_plan& q : plans) rows = std::max(rows, q.cut_sequences);
  const std::size_t stride =
      sample_stride(total, ranks, o.oversampling, cut_sequences_bound(ranks, bucketed));
  std::size_t slots = 0, m = 0;
  for (std::size_t p = 0; p < P; ++p) {
    const std::size_t s = samples_of_rank(offsets[p], counts[p], stride);
    slots = std::max(slots, s);
    m += s;
  }
  // the records sort as two sets: every rank's samples, then the unused slots
  const std::size_t cub_bytes =
      stages::sort_samples_temp_bytes<stages::sample_record<Bits>, less<Bits>>(P * slots, 2);
  // keys alone: each splitter's key's lower and upper bounds too (keep_own_ties)
  const std::size_t tables = has_values<Value> ? 1 : 3;
  const cut_tables cut_layout{tables * rows * (buckets - 1) + 1, rows, buckets - 1};
  const std::size_t row_words = cut_layout.row_words, status_at = row_words - 1;
  const auto lay_out_control = [&](stages::temp_carver& c) {
    control_arrays<Bits> a{};
    a.my_samples = c.take<stages::sample_record<Bits>>(slots);
    a.samples = c.take<stages::sample_record<Bits>>(P * slots);
    a.sorted = c.take<stages::sample_record<Bits>>(P * slots);
    a.my_cuts = c.take<std::size_t>(row_words);
    a.cuts = c.take<std::size_t>(P * row_words);
    a.bucket_offsets = c.take<std::size_t>(buckets + 1);
    a.cub_temp = c.take_bytes(cub_bytes);
    return a;
  };
  stages::temp_carver control_size(nullptr);
  lay_out_control(control_size);
  stream_allocation control_block(control_size.used(), stream);
  if (!control_block.ok())
    throw cuda_error(cudaErrorMemoryAllocation,
                     "warpsort::distributed::sort_keys: no device memory for the splitters");
  stages::temp_carver control_carver(control_block.get());
  const control_arrays<Bits> a = lay_out_control(control_carver);
  // whether the work storage was allocated travels with the cut tables: every rank learns it
  // there
  stages::temp_carver work_size(nullptr);
  unsigned char* const arena = in_arena ? arenas.at[mine_at] : nullptr;
  lay_out_work<Bits, Value>(work_size, lp, need, runs, o, local, direct, arena);
  stream_allocation work_block(work_size.used(), stream);
  const bool allocated = work_block.ok();
  stages::temp_carver work_carver(work_block.get());
  work_buffers<Bits, Value> w =
      lay_out_work<Bits, Value>(work_carver, lp, need, runs, o, local, direct, arena);
  result.temp_bytes = control_size.used() + work_size.used();
  auto* spare_values = reinterpret_cast<Value*>(w.spare_values);
  if (allocated && n > 0) {
    to_words(keys, keys, stream);
    sort_into_sequences<Bits, Value>(keys, keys, w.spare, values, spare_values, lp, w.temp,
                                     w.temp_bytes, stream, local);
    // two copies: the sequences back into the caller's buffer, before the counts go round (no
    // peer writes into the arena before it has every rank's counts)
    if (need.two_copies)
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys, w.spare, n * sizeof(Bits),
                                          cudaMemcpyDeviceToDevice, stream));
  }
  if (need.two_copies) w.spare = keys;
  const Bits* sorted = allocated ? w.spare : keys;  // the sequences (unsorted if not allocated)
  events.mark(1);

  // 2. splitters and counts
  enter("splitters");
  const unsigned threads = 256;
  rank_ends ends{};
  for (std::size_t q = 0; q <= P; ++q)
    ends.at[q] = o.rebalance ? offsets[q] : balanced_prefix(static_cast<int>(q), ranks, total);
  const rank_sequences<Bits> my_layout{sorted,
                                       allocated ? n : 0,
                                       lp.cut_keys,
                                       allocated ? lp.cut_sequences : 0,
                                       rows,
                                       mine_at,
                                       slots,
                                       offsets[mine_at],
                                       stride,
                                       allocated ? samples_of_rank(offsets[mine_at], n, stride) : 0,
                                       m,
                                       parts,
                                       buckets,
                                       ends};
  const stages::sample_record<Bits>* sorted_samples = a.samples;
  if (slots > 0) {
    stages::gather_samples<rank_sequences<Bits>, less<Bits>>(my_layout, a.my_samples, slots,
                                                             stream, my_layout.first_index());
    all_gather(t, a.my_samples, a.samples, slots * sizeof(stages::sample_record<Bits>), stream,
               "splitters");
    sorted_samples = stages::sort_samples(a.cub_temp, cub_bytes, a.samples, a.sorted, P * slots,
                                          2, less<Bits>{}, stream);
  }
  if constexpr (!has_values<Value>) {  // (the cut last: its bucket offsets are the ones kept)
    rank_sequences<Bits> lower = my_layout;
    lower.splitters_first = true;
    stages::cut_sets(lower, sorted_samples, true, a.my_cuts + cut_layout.table(),
                     a.bucket_offsets, less<Bits>{}, stream);
    stages::cut_sets(my_layout, sorted_samples, false, a.my_cuts + 2 * cut_layout.table(),
                     a.bucket_offsets, less<Bits>{}, stream);
  }
  stages::cut_sets(my_layout, sorted_samples, true, a.my_cuts, a.bucket_offsets, less<Bits>{},
                   stream);
  // the status travels with the cuts: nonzero where this rank could not allocate its storage
  WARPSORT_CUDA_CHECK(cudaMemsetAsync(a.my_cuts + status_at, allocated ? 0 : 1,
                                      sizeof(std::size_t), stream));
  std::vector<std::size_t> matrix(P * row_words);
  const std::size_t row_bytes = row_words * sizeof(std::size_t);
  if (t.gathers_on_host(row_bytes)) {
    std::vector<std::size_t> row(row_words);
    read_to_host(t, row.data(), a.my_cuts, row_bytes, stream, "splitters");
    t.gather_on_host(row.data(), matrix.data(), row_bytes, stream, "splitters");
  } else {
    t.all_gather(a.my_cuts, a.cuts, row_bytes, stream);
    read_to_host(t, matrix.data(), a.cuts, matrix.size() * sizeof(std::size_t), stream,
                 "splitters");
  }
  std::string failed;
  for (std::size_t p = 0; p < P; ++p)
    if (matrix[p * row_words + status_at] != 0)
      failed += (failed.empty() ? "" : ", ") + std::to_string(p);
  if (!failed.empty()) {
    if (allocated && n > 0) {  // the caller's keys back, sorted in sequences
      if (w.spare != keys)
        WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys, w.spare, n * sizeof(Bits),
                                            cudaMemcpyDeviceToDevice, stream));
      if constexpr (has_values<Value>)
        WARPSORT_CUDA_CHECK(cudaMemcpyAsync(values, spare_values, n * sizeof(Value),
                                            cudaMemcpyDeviceToDevice, stream));
      from_words(n, stream);
    }
    throw agreed_failure(cudaErrorMemoryAllocation,
                         "warpsort::distributed::sort_keys: allocating " +
                             std::to_string(work_size.used()) + " bytes to sort and exchange failed "
                             "on rank(s) " + failed +
                             " (every rank stops here, before keys move; its keys are as they were, "
                             "in another order)");
  }
  if constexpr (!has_values<Value>) {  // equal keys: each rank's own copies stay with it
    std::vector<std::size_t> sequences(P);
    for (std::size_t p = 0; p < P; ++p) sequences[p] = plans[p].cut_sequences;
    const auto mine = matrix.begin() + static_cast<std::ptrdiff_t>(mine_at * row_words);
    const auto table = static_cast<std::ptrdiff_t>(cut_layout.table());
    const std::vector<std::size_t> before(mine, mine + table);
    if (!keep_own_ties(matrix, cut_layout, sequences, parts))
      throw agreed_failure(cudaErrorInvalidValue,
                           "warpsort::distributed::sort_keys: the cut tables contradict "
                           "themselves (a bug: a cut outside its splitter's key)");
    if (!std::equal(before.begin(), before.end(), mine))  // the bucketed round reads them there
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(a.my_cuts, &*mine, before.size() * sizeof(std::size_t),
                                          cudaMemcpyHostToDevice, stream));
  }
  // piece (p, i, b): keys of rank p's sequence i in bucket b (rank b / parts, part b % parts),
  // the sum of its cut sequences' (a bucketed last round merges them into it)
  std::size_t most_sequences = 0;
  for (const local_plan& q : plans) most_sequences = std::max(most_sequences, q.sequences);
  std::vector<std::size_t> pieces(P * most_sequences * buckets, 0);
  for (std::size_t p = 0; p < P; ++p)
    for (std::size_t c = 0; c < plans[p].cut_sequences; ++c) {
      // rank p's cut table: where bucket b ends in its sequence c, the last bucket at its end
      const std::size_t len = std::min(plans[p].cut_keys, counts[p] - c * plans[p].cut_keys);
      const auto end_of = [&](std::size_t b) {
        return b + 1 == buckets ? len : matrix[p * row_words + b * rows + c];
      };
      for (std::size_t b = 0; b < buckets; ++b)
        pieces[(p * most_sequences + c / plans[p].ways) * buckets + b] +=
            end_of(b) - (b == 0 ? 0 : end_of(b - 1));
    }
  const auto piece = [&](std::size_t p, std::size_t i, std::size_t b) -> std::size_t {
    return pieces[(p * most_sequences + i) * buckets + b];
  };
  for (std::size_t p = 0; p < P; ++p)
    for (std::size_t i = 0; i < plans[p].sequences; ++i)
      for (std::size_t b = 0; b < buckets; ++b) result.sent[p * P + b / parts] += piece(p, i, b);
  events.mark(2);
  for (std::size_t q = 0; q < P; ++q)
    for (std::size_t p = 0; p < P; ++p) result.counts[q] += result.sent[p * P + q];
  const std::size_t received = result.counts[mine_at];
  for (std::size_t q = 0; q < P; ++q)  // the sampling bound makes this impossible; every rank checks
    if (result.counts[q] > needs[q].receive_bound)
      throw agreed_failure(cudaErrorInvalidValue,
                           "warpsort::distributed::sort_keys: rank " + std::to_string(q) +
                               " would receive " + std::to_string(result.counts[q]) +
                               " keys, over its bound (a bug: the splitters' bound was broken)");

  // 3. exchange part k of every bucket on a second stream while part k - 1 is merged
  enter("exchange");
  side_stream side(stream);
  side_stream::order(stream, side.get());
  Bits* const merged = o.rebalance ? w.merged : keys;
  unsigned char* const merged_values =
      o.rebalance ? w.merged_values : reinterpret_cast<unsigned char*>(values);
  std::vector<std::size_t> sent_before(lp.sequences * buckets, 0);  // piece (i, b) in sequence i
  for (std::size_t i = 0; i < lp.sequences; ++i)
    for (std::size_t b = 0, at = 0; b < buckets; at += piece(mine_at, i, b), ++b)
      sent_before[i * buckets + b] = at;
  // Keys in several sequences are packed, one piece a peer (or merged there by the bucketed
  // last round); a single sequence's pieces are contiguous already. A rank's own pieces stay
  // where they are and are merged from there (keys), or are copied (or merged) among the
  // received runs (pairs, which re-sort them together; rebalancing in one round, which merges
  // into the spare buffer that holds them; and the bucketed last round).
  const bool pack = !has_values<Value> && (lp.sequences > 1 || lp.bucketed);
  // (with two copies the merges write over the sequences: every piece is copied into the arena)
  const bool merges_over_spare = o.rebalance && w.merged == w.spare;
  const bool own_in_place =
      !has_values<Value> && !merges_over_spare && !lp.bucketed && !need.two_copies;
  // each part's runs, (rank, sequence) in order, and the storage merging them takes: the
  // storage allocated was for the most any part may hold; a smaller part's may differ
  std::vector<std::vector<std::size_t>> part_runs(parts);
  std::size_t merge_bytes = 0;
  for (std::size_t k = 0; k < parts; ++k) {
    std::size_t part_keys = 0;
    for (std::size_t p = 0; p < P; ++p)
      for (std::size_t i = 0; i < plans[p].sequences; ++i) {
        part_runs[k].push_back(piece(p, i, mine_at * parts + k));
        part_keys += part_runs[k].back();
      }
    if constexpr (merges_items<Bits, Value>)
      merge_bytes = std::max(merge_bytes, item_merge_bytes(part_runs[k].data(), static_cast<int>(runs),
                                                           part_keys + receive_slack<Bits, Value>(1, ranks),
                                                           o, local));  // with its gaps
    else if constexpr (has_values<Value>)
      merge_bytes = std::max(merge_bytes, sort_locally_bytes<Bits, Value>(part_keys, local));
    else
      merge_bytes = std::max(merge_bytes, stages::merge_runs_temp_bytes<Bits>(stages::make_runs_shape(
                                              part_runs[k].data(), static_cast<int>(runs),
                                              local.group_capacity, o.merge_oversampling)));
  }
  stream_allocation more_temp(merge_bytes > w.temp_bytes ? merge_bytes : 0, stream);
  if (!more_temp.ok())
    throw cuda_error(cudaErrorMemoryAllocation,
                     "warpsort::distributed::sort_keys: allocating " + std::to_string(merge_bytes) +
                         " bytes to merge failed");
  void* const merge_temp = merge_bytes > w.temp_bytes ? more_temp.get() : w.temp;
  merge_bytes = std::max(merge_bytes, w.temp_bytes);
  // where this rank's piece of sequence i in bucket b starts
  const auto own_piece = [&](std::size_t i, std::size_t b) {
    return w.spare + i * lp.sequence_keys + sent_before[i * buckets + b];
  };
  // every peer's piece starts aligned where it is received (and, keys, where it is sent)
  const std::size_t align = receive_align<Bits, Value>();
  const auto aligned = [&](std::size_t words) { return stages::ceil_div(words, align) * align; };
  // where rank q receives part k: rank p's pieces (its sequences', adjacent) start at
  // [k (P + 1) + p] of the received keys, and the part ends at [k (P + 1) + P]; every rank
  // computes it for every rank alike
  const auto receive_layout = [&](std::size_t q) {
    std::vector<std::size_t> start(parts * (P + 1));
    std::size_t at = 0;
    for (std::size_t k = 0; k < parts; ++k) {
      for (std::size_t p = 0; p < P; ++p) {
        at = aligned(at);
        start[k * (P + 1) + p] = at;
        for (std::size_t i = 0; i < plans[p].sequences; ++i) at += piece(p, i, q * parts + k);
      }
      start[k * (P + 1) + P] = at;
    }
    return start;
  };
  const std::vector<std::size_t> received_layout = receive_layout(mine_at);
  // with direct copies, where this rank's pieces go in every rank's arena (keys; values after
  // the keys' room)
  std::vector<std::vector<std::size_t>> layouts(direct ? P : 0);
  for (std::size_t q = 0; q < layouts.size(); ++q) layouts[q] = receive_layout(q);
  const auto remote = [&](std::size_t q, std::size_t k, bool of_values) {
    const std::size_t at = layouts[q][k * (P + 1) + mine_at];
    return of_values ? arenas.at[q] + arena_values_at<Bits, Value>(needs[q]) + at * vbytes
                     : arenas.at[q] + at * sizeof(Bits);
  };
  // every part's pieces: what it sends and receives, where its runs are, and how its sent
  // pieces are made (packing copies, or the bucketed round's merge targets)
  struct part_exchange {
    std::vector<transport::send_piece> sends;
    std::vector<transport::receive_piece> receives;
    std::vector<direct_copy> direct;  // with direct copies: into the peers' arenas
    stages::run_sources<Bits> sources{};
    std::size_t received_at = 0, received_end = 0;  // the part's range of the received keys
    copy_list<Bits> copies;
    bucket_targets<Bits> targets{};
  };
  std::vector<part_exchange> plan_of(parts);
  // Direct copies of small pieces (under 1 MiB on average; options::exchange): one launch a
  // part copies them all with the SMs, since a copy engine's call costs a few microseconds of
  // the host, longer than such a piece travels. Larger pieces go by copy engines, leaving the
  // SMs to the merges of the parts that have arrived.
  std::size_t pieces_sent = 0, bytes_sent = 0;
  for (std::size_t b = 0; b < buckets; ++b)
    for (std::size_t i = 0; i < lp.sequences; ++i)
      if (b / parts != mine_at && piece(mine_at, i, b) > 0) {
        ++pieces_sent;
        bytes_sent += piece(mine_at, i, b) * sizeof(Bits);
      }
  const bool copy_by_kernel =
      direct && !has_values<Value> && !lp.bucketed &&
      lp.sequences * P <= static_cast<std::size_t>(most_runs) &&
      (o.exchange == options::exchange_path::sm_copies ||
       (o.exchange == options::exchange_path::automatic &&
        bytes_sent < pieces_sent * (std::size_t{1} << 20)));
  result.sm_copies = copy_by_kernel;
  for (std::size_t k = 0; k < parts; ++k) {
    part_exchange& e = plan_of[k];
    e.received_at = k == 0 ? 0 : received_layout[(k - 1) * (P + 1) + P];
    e.received_end = received_layout[k * (P + 1) + P];
    // the receiving side: one piece from every rank, at the runs' places in the part
    const std::size_t own_at = received_layout[k * (P + 1) + mine_at];
    for (std::size_t p = 0, run = 0; p < P; ++p) {
      const std::size_t at = received_layout[k * (P + 1) + p];
      std::size_t from_p = 0;
      for (std::size_t i = 0; i < plans[p].sequences; ++i, ++run) {
        const std::size_t len = piece(p, i, mine_at * parts + k);
        e.sources.at[run] = p == mine_at && own_in_place ? own_piece(i, mine_at * parts + k)
                                                         : w.received + at + from_p;
        from_p += len;
      }
      if (!direct && !(p == mine_at && (own_in_place || pack)))
        for (int with_values = 0; with_values < (has_values<Value> ? 2 : 1); ++with_values) {
          const std::size_t unit = with_values ? vbytes : sizeof(Bits);
          auto* to = with_values ? w.received_values : reinterpret_cast<unsigned char*>(w.received);
          e.receives.push_back({static_cast<int>(p), to + at * unit, from_p * unit});
        }
    }
    // the sending side; direct copies go as one batch a part, listed to the next rank first
    if (direct && !lp.bucketed) {
      for (std::size_t j = 1; j <= P; ++j) {
        const std::size_t q = (mine_at + j) % P, b = q * parts + k;
        if (q == mine_at && own_in_place) continue;
        std::size_t to_q = 0;
        for (std::size_t i = 0; i < lp.sequences; ++i) {  // each piece from its sequence
          const std::size_t len = piece(mine_at, i, b);
          if (len == 0) continue;
          const std::size_t from = i * lp.sequence_keys + sent_before[i * buckets + b];
          if (copy_by_kernel) {  // one launch writes every piece of the part
            e.copies.add(w.spare + from, reinterpret_cast<Bits*>(remote(q, k, false)) + to_q, len);
          } else {
            e.direct.push_back({remote(q, k, false) + to_q * sizeof(Bits), w.spare + from,
                                len * sizeof(Bits)});
            if constexpr (has_values<Value>)
              e.direct.push_back({remote(q, k, true) + to_q * vbytes,
                                  w.spare_values + from * vbytes, len * vbytes});
          }
          to_q += len;
        }
      }
    } else if (pack) {
      Bits* const half = parts > 1 ? w.packed + (k % 2) * w.packed_half : keys;
      // the caller's buffer (one round) holds the padded pieces only where its capacity allows
      std::size_t send_align = align;
      if (parts == 1) {
        std::size_t padded = 0;
        for (std::size_t q = 0; q < P; ++q) {
          if (q == mine_at) continue;
          padded = stages::ceil_div(padded, align) * align;
          for (std::size_t i = 0; i < lp.sequences; ++i) padded += piece(mine_at, i, q * parts + k);
        }
        if (padded > capacity) send_align = 1;
      }
      std::size_t packed = 0;
      // piece (i, q) of the part goes to `to`: merged there, or copied from sequence i
      const auto place = [&](std::size_t i, std::size_t q, Bits* to) {
        const std::size_t b = q * parts + k, len = piece(mine_at, i, b);
        if (lp.bucketed) {
          e.targets.at[i * P + q] = to;
        } else if (len > 0) {
          e.copies.add(own_piece(i, b), to, len);
        }
        return len;
      };
      for (std::size_t j = 1; j <= P; ++j) {
        const std::size_t q = (mine_at + j) % P;
        if (q == mine_at) {
          if (own_in_place) continue;
          for (std::size_t i = 0, at = own_at; i < lp.sequences; ++i)
            at += place(i, q, w.received + at);
          continue;
        }
        std::size_t to_q = 0;
        packed = stages::ceil_div(packed, send_align) * send_align;
        for (std::size_t i = 0; i < lp.sequences; ++i) to_q += place(i, q, half + packed + to_q);
        if (direct) {
          if (to_q > 0) e.direct.push_back({remote(q, k, false), half + packed, to_q * sizeof(Bits)});
        } else {
          e.sends.push_back({static_cast<int>(q), half + packed, to_q * sizeof(Bits)});
        }
        packed += to_q;
      }
    } else {
      for (int with_values = 0; with_values < (has_values<Value> ? 2 : 1); ++with_values) {
        const std::size_t unit = with_values ? vbytes : sizeof(Bits);
        const auto* from = with_values ? w.spare_values
                                       : reinterpret_cast<const unsigned char*>(w.spare);
        for (std::size_t q = 0; q < P; ++q) {  // one sequence: its piece for q is contiguous
          if (q == mine_at && own_in_place) continue;
          const std::size_t b = q * parts + k;
          const std::size_t len = lp.sequences == 0 ? 0 : piece(mine_at, 0, b);
          e.sends.push_back({static_cast<int>(q),
                             from + (lp.sequences == 0 ? 0 : sent_before[b]) * unit, len * unit});
        }
      }
    }
  }
  // the bucketed last round: its step 3 once, over the sequences before it
  stages::round_shape last_shape{};
  stages::split_layout last_layout{};
  unsigned last_grid = 0;
  stages::thread_block_shape last_block{};
  if (lp.bucketed) {
    const merge_round& m = lp.plan.rounds[lp.plan.round_count - 1];
    last_layout = stages::split_sets<Bits, less<Bits>>(w.spare, n, m, w.last_split,
                                                       w.last_split_bytes, less<Bits>{}, local,
                                                       stream);
    last_shape = stages::shape_of(n, m, local);
    bucket_starts_kernel<std::size_t>
        <<<static_cast<unsigned>(stages::ceil_div(lp.cut_sequences, threads)), threads, 0,
           stream>>>(a.my_cuts, rows, lp.cut_sequences, lp.cut_keys, n, buckets,
                     w.bucket_starts);
    WARPSORT_CHECK_LAUNCH();
    last_block = stages::merge_sets_shape<Bits>(local.group_capacity,
                                                static_cast<int>(m.set_sequences));
    last_block.smem_bytes =
        sub_group_at<Bits>(local.group_capacity, m.set_sequences) + sizeof(sub_group<Bits>);
    stages::allow_dynamic_smem(merge_bucket_groups_kernel<Bits>, last_block.smem_bytes);
    const int sms = warpsort::device_limits_of().sm_count;
    int per_sm = 0;
    WARPSORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, merge_bucket_groups_kernel<Bits>, last_block.threads, last_block.smem_bytes));
    // a part's sub-groups: at most every group, and one more a (sequence, peer) piece
    const std::size_t most_subs = m.groups + lp.sequences * P;
    last_grid = static_cast<unsigned>(
        std::max<std::size_t>(1, std::min<std::size_t>(most_subs, static_cast<std::size_t>(sms) *
                                                                      std::max(per_sm, 1))));
  }
  // part k's sent pieces made (packed on the side stream; merged on this one, the side
  // stream then waiting for them) and sent; `arrived[k]` marks its exchange done
  std::vector<cudaEvent_t> arrived(parts, nullptr);
  struct event_list {
    std::vector<cudaEvent_t>& events;
    ~event_list() {
      for (cudaEvent_t& e : events)
        if (e) (void)cudaEventDestroy(e);
    }
  } arrived_owner{arrived};
  if (!direct)  // with direct copies the peers' part events say it
    for (cudaEvent_t& e : arrived)
      WARPSORT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  const auto send_part = [&](std::size_t k) {
    const part_exchange& e = plan_of[k];
    if (lp.bucketed) {
      // with direct copies every part is queued at once: part k's half of the send buffer is
      // free once part k - 2's copies are done
      if (direct && k >= 2)
        WARPSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, peers->sent(me, static_cast<int>(k - 2)), 0));
      const bucket_part part{P, parts, k, buckets};
      plan_bucket_groups_kernel<><<<1, most_runs, 0, stream>>>(
          last_shape, last_layout.group_offsets, w.bucket_starts, part, w.first_group,
          w.first_sub);
      WARPSORT_CHECK_LAUNCH();
      merge_bucket_groups_kernel<Bits><<<last_grid, last_block.threads, last_block.smem_bytes,
                                         stream>>>(w.spare, last_shape, local.group_capacity,
                                                   last_layout.cuts, w.bucket_starts, part,
                                                   w.first_group, w.first_sub, e.targets);
      WARPSORT_CHECK_LAUNCH();
      side_stream::order(stream, side.get());
    } else {
      copy_pieces(e.copies, side.get());
    }
    if (direct) {
      copy_batch(e.direct, side.get());
    } else {
      t.exchange(e.sends, e.receives, side.get());
    }
    if (k + 1 == parts) events.mark_on(3, side.get());
    WARPSORT_CUDA_CHECK(cudaEventRecord(direct ? peers->sent(me, static_cast<int>(k)) : arrived[k],
                                        side.get()));
  };
  // Through the transport, two parts are made and sent ahead of the merges: part k + 2 once
  // part k has arrived (it reuses part k's half of the send buffer), before part k is merged,
  // so that with the bucketed round the exchange is fed first and part k + 1 travels while
  // this stream merges. With direct copies every part's copies are queued first; once every
  // rank has recorded its events (the barrier), part k is merged once every rank's copies of
  // it are done, while later parts travel.
  const std::size_t ahead = direct ? parts : std::min<std::size_t>(parts, 2);
  for (std::size_t k = 0; k < ahead; ++k) send_part(k);
  if (direct) peers->barrier("exchange");
  std::size_t part_start = 0;  // where part k starts in the output
  for (std::size_t k = 0; k < parts; ++k) {
    if (direct) {
      for (int p = 0; p < ranks; ++p)
        WARPSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, peers->sent(p, static_cast<int>(k)), 0));
    } else {
      WARPSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, arrived[k], 0));
      if (k + 2 < parts) send_part(k + 2);
    }
    if (k + 1 == parts) {
      last_part.mark(0);
      last_part_marked = o.timed;
    }
    const part_exchange& e = plan_of[k];
    std::size_t part_keys = 0;
    for (std::size_t len : part_runs[k]) part_keys += len;
    if constexpr (merges_items<Bits, Value>) {
      // the items of the part's received range, gaps between the aligned pieces included (no
      // run reads them); an item's place is its offset in that range
      const std::size_t span = e.received_end - e.received_at;
      stages::temp_carver items(merge_temp);
      item_word* const items_in = items.take<item_word>(span);
      item_word* const items_out = items.take<item_word>(part_keys);
      const std::size_t item_merge_temp = merge_bytes - items.used();
      void* const merge_rest = items.take_bytes(item_merge_temp);
      const unsigned blocks = static_cast<unsigned>(stages::ceil_div(part_keys, threads));
      const auto* received_values = reinterpret_cast<const Value*>(w.received_values) + e.received_at;
      if (span > 0) {
        warpsort::detail::low_digit_words_kernel<Bits, Value, less<Bits>>
            <<<static_cast<unsigned>(stages::ceil_div(span, threads)), threads, 0, stream>>>(
                w.received + e.received_at, received_values, items_in, nullptr, nullptr, span);
        WARPSORT_CHECK_LAUNCH();
      }
      stages::run_sources<item_word> item_sources{};
      for (std::size_t r = 0; r < runs; ++r)
        item_sources.at[r] = items_in + (e.sources.at[r] - (w.received + e.received_at));
      const int capacity = item_capacity(local);
      stages::merge_runs<item_word>(
          item_sources, items_out,
          stages::make_runs_shape(part_runs[k].data(), static_cast<int>(runs), capacity,
                                  o.merge_oversampling),
          capacity, merge_rest, item_merge_temp, stream);
      if (part_keys > 0) {
        warpsort::detail::gather_pairs_kernel<Bits, Value, less<Bits>><<<blocks, threads, 0, stream>>>(
            items_out, nullptr, received_values, nullptr, merged + part_start,
            reinterpret_cast<Value*>(merged_values) + part_start, part_keys);
        WARPSORT_CHECK_LAUNCH();
      }
    } else if constexpr (has_values<Value>) {
      sort_locally<Bits, Value>(merge_temp, merge_bytes, w.received + e.received_at,
                                merged + part_start,
                                reinterpret_cast<const Value*>(w.received_values) + e.received_at,
                                reinterpret_cast<Value*>(merged_values) + part_start, part_keys,
                                stream, local);
    } else {
      const stages::runs_shape shape = stages::make_runs_shape(
          part_runs[k].data(), static_cast<int>(runs), local.group_capacity, o.merge_oversampling);
      stages::merge_runs<Bits>(e.sources, merged + part_start, shape, local.group_capacity,
                               merge_temp, merge_bytes, stream);
    }
    part_start += part_keys;
  }
  if (in_arena) peers->release_after(stream);  // the arena is read until the merges are done
  // with a deadline, a stalled exchange is named as such (the merges are queued already)
  if (o.timed || o.timeout_seconds > 0) t.wait(side.get(), "exchange");
  enter("merge");
  events.mark(4);
  last_part.mark(1);

  // 4. rebalance: contiguous ranges to the ranks whose input positions they cover
  result.count = received;
  if (o.rebalance) {
    enter("rebalance");
    const std::vector<std::size_t> have = prefix(result.counts);
    // every rank plans every rank's ranges from the agreed counts and checks both sides meet
    // (the keys' exchange needs no such check: both its sides are read from one gathered matrix)
    std::vector<std::size_t> plan_sends(P * P), plan_receives(P * P);
    std::vector<segment> out, in;
    for (int p = 0; p < ranks; ++p) {
      std::vector<segment> sends = overlaps(have, offsets, p, true);
      std::vector<segment> receives = overlaps(have, offsets, p, false);
      for (std::size_t q = 0; q < P; ++q) {
        plan_sends[static_cast<std::size_t>(p) * P + q] = sends[q].count;
        plan_receives[static_cast<std::size_t>(p) * P + q] = receives[q].count;
      }
      if (p == me) {
        out = std::move(sends);
        in = std::move(receives);
      }
    }
    const std::string why = count_disagreement(plan_sends, plan_receives, ranks, "rebalance", "keys");
    if (!why.empty()) throw disagreement_error("warpsort::distributed::sort_keys: " + why);
    std::vector<transport::send_piece> sends;
    std::vector<transport::receive_piece> receives;
    for (std::size_t p = 0; p < P; ++p) {
      sends.push_back({static_cast<int>(p), merged + out[p].from, out[p].count * sizeof(Bits)});
      receives.push_back({static_cast<int>(p), keys + in[p].to, in[p].count * sizeof(Bits)});
    }
    if constexpr (has_values<Value>)
      for (std::size_t p = 0; p < P; ++p) {
        sends.push_back({static_cast<int>(p), merged_values + out[p].from * vbytes,
                         out[p].count * vbytes});
        receives.push_back({static_cast<int>(p),
                            reinterpret_cast<unsigned char*>(values) + in[p].to * vbytes,
                            in[p].count * vbytes});
      }
    t.exchange(sends, receives, stream);
    result.count = n;
    result.counts = counts;
  }
  from_words(result.count, stream);
  events.mark(5);
  finish();
  return result;
}

}  // namespace warpsort::distributed::detail

#pragma once
// The distributed sort over any transport (warpsort/distributed.cuh says what it does):
//   0. every rank tells every other its count, capacity and free memory; all check all, so a
//      bad input or too little memory anywhere makes every rank throw the same error;
//   1. each rank sorts its keys (the single-GPU sort, on the order's unsigned words);
//   2. splitters: ranks sample their sorted keys at global positions g - 1, 2g - 1, ...; the
//      samples, (key, rank, position), are gathered by all and sorted; splitter j sits after
//      the sample nearest j N / P keys; every rank cuts its keys at the P - 1 splitters and the
//      P x P counts are gathered (and read by the host: the output counts the caller needs);
//   3. exchange: all-to-all of the keys, straight between device buffers;
//   4. each rank merges its P received runs (one round of steps 3 and 4 over runs);
//   5. optionally, an exchange of contiguous ranges rebalances the output to the input counts.
// The host waits for a few bytes at each point where a rank could fail (allocations), so every
// rank learns of a failure before the next exchange of keys. Every rank makes the same sequence
// of collectives whatever its count (a rank with no keys included), both sides of every exchange
// come from counts every rank holds alike (the gathered matrix; rebalancing's plan is checked
// side against side before it is posted), and every host wait goes through transport::wait,
// which gives up at options::timeout_seconds.
#include "order_bits.cuh"
#include "partition.hpp"
#include "transport.hpp"

#include <warpsort/detail/event_marks.hpp>
#include <warpsort/detail/stages/merge_runs_impl.cuh>
#include <warpsort/distributed.cuh>
#include <warpsort/warpsort.cuh>

#include <cub/device/device_merge_sort.cuh>

#include <algorithm>
#include <type_traits>
#include <array>
#include <string>
#include <vector>

namespace warpsort::distributed::detail {

/// What each rank tells every other before any work.
struct rank_status {
  std::uint64_t n, capacity, free_bytes;
  std::int32_t code, pad;
};
enum status_code : std::int32_t { status_ok = 0, status_null_keys = 1, status_over_capacity = 2 };

/// Splitter j's target: keys ranks 0..j-1 end with (0 < j < P).
struct splitter_targets {
  std::size_t at[stages::runs_shape::max_runs];
};

template <class Bits>
__global__ void take_samples_kernel(const Bits* keys, std::size_t offset, std::size_t stride,
                                    std::size_t count, std::size_t slots, std::uint32_t rank,
                                    sample* out) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= slots) return;
  if (t < count) {
    const std::size_t position = sample_position(t, offset, stride);
    out[t] = {static_cast<std::uint64_t>(keys[position]), rank, 0, position};
  } else {
    out[t] = {0, 0, 1, 0};
  }
}

struct by_sample_order {
  __host__ __device__ bool operator()(const sample& a, const sample& b) const {
    return sample_before(a, b);
  }
};

/// Thread j < P - 1 cuts this rank's sorted keys at splitter j + 1 (after the first c sorted
/// samples); then thread 0 writes how many keys go to each rank.
template <class Bits>
__global__ void cut_at_splitters_kernel(const Bits* keys, std::size_t n, const sample* sorted,
                                        std::size_t m, std::size_t stride,
                                        splitter_targets targets, int ranks, int me,
                                        std::uint64_t* counts) {
  __shared__ std::size_t cuts[stages::runs_shape::max_runs + 1];
  const int j = static_cast<int>(threadIdx.x);
  if (j + 1 < ranks) {
    const std::size_t c = splitter_samples(targets.at[j + 1], stride, m);
    std::size_t cut = 0;
    if (c > 0) {
      const sample& s = sorted[c - 1];
      cut = stages::cut_sequence(keys, n, static_cast<std::size_t>(me),
                                 static_cast<std::size_t>(s.rank), s.position,
                                 static_cast<Bits>(s.key), less<Bits>{});
    }
    cuts[j + 1] = cut;
  }
  if (j == 0) {
    cuts[0] = 0;
    cuts[ranks] = n;
  }
  __syncthreads();
  if (j == 0)  // cuts are monotone: splitters are sorted and targets grow
    for (int p = 0; p < ranks; ++p) counts[p] = cuts[p + 1] - cuts[p];
}

/// Device scratch of the splitters: samples, counts, the sample sort's storage.
struct control_arrays {
  sample* my_samples;        // slots
  sample* samples;           // P x slots
  std::uint64_t* my_counts;  // P
  std::uint64_t* counts;     // P x P: row = sender
  void* cub_temp;
};

/// One stream-ordered allocation, freed when it goes out of scope (on the stream).
class stream_allocation {
 public:
  stream_allocation(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes > 0) status_ = cudaMallocAsync(&ptr_, bytes, stream);
    if (status_ != cudaSuccess) {
      ptr_ = nullptr;
      (void)cudaGetLastError();  // not sticky: the failure is reported through agree()
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

/// A failure every rank learned of and throws alike: the communicator stays usable.
class agreed_failure : public cuda_error {
 public:
  using cuda_error::cuda_error;
};

/// Every rank learns every rank's code (0: fine); throws, on every rank alike, if one failed.
inline void agree(transport& t, std::int32_t code, std::int32_t* d_codes, cudaStream_t stream,
                  const std::string& what) {
  const int ranks = t.size();
  std::vector<std::int32_t> codes(static_cast<std::size_t>(ranks));
  gather_to_host(t, &code, codes.data(), sizeof code, d_codes, stream, t.phase());
  std::string failed;
  for (int p = 0; p < ranks; ++p)
    if (codes[static_cast<std::size_t>(p)] != 0)
      failed += (failed.empty() ? "" : ", ") + std::to_string(p);
  if (!failed.empty())
    throw agreed_failure(cudaErrorMemoryAllocation,
                     "warpsort::distributed::sort_keys: " + what + " failed on rank(s) " + failed +
                         " (every rank stops here; the keys are as step 1 left them)");
}

/// Temporary bytes of merging at most `bound` received keys in `ranks` runs.
template <class Bits>
std::size_t merge_temp_bound(std::size_t bound, int ranks, const policy& local, int oversampling) {
  std::vector<std::size_t> lengths(static_cast<std::size_t>(ranks), 0);
  lengths[0] = bound;  // the most samples and groups any split of `bound` keys can have
  return stages::merge_runs_temp_bytes<Bits>(
      stages::make_runs_shape(lengths.data(), ranks, local.group_capacity, oversampling));
}

/// What a rank needs: its capacity in keys, and device memory beyond its keys.
struct rank_needs {
  std::size_t receive_bound, capacity, temp_bytes;
};

/// Keys alone (Value = no_values) or key-value pairs.
struct no_values {};
template <class Value>
constexpr bool has_values = !std::is_same_v<Value, no_values>;
template <class Value>
constexpr std::size_t value_bytes = has_values<Value> ? sizeof(Value) : 0;

/// The single-GPU sort of words (with their values): stable for pairs, so equal keys keep their
/// order, and with it the global (rank, position) order. With a null temp, the bytes it needs.
template <class Bits, class Value>
std::size_t sort_locally(void* temp, std::size_t bytes, const Bits* keys_in, Bits* keys_out,
                         const Value* values_in, Value* values_out, std::size_t n,
                         cudaStream_t stream, const policy& local) {
  if constexpr (has_values<Value>)
    warpsort::sort_pairs<Bits, Value, less<Bits>>(temp, bytes, keys_in, keys_out, values_in,
                                                  values_out, n, {}, stream, local);
  else
    warpsort::sort_keys<Bits, less<Bits>>(temp, bytes, keys_in, keys_out, n, {}, stream, local);
  return bytes;
}
template <class Bits, class Value>
std::size_t sort_locally_bytes(std::size_t n, const policy& local) {
  return sort_locally<Bits, Value>(nullptr, 0, nullptr, nullptr, nullptr, nullptr, n, 0, local);
}

/// Bytes of merging the received runs: keys merge them (merge_runs); pairs sort them again,
/// stably (sort_pairs), which keeps the runs' (rank, position) order among equal keys.
template <class Bits, class Value>
std::size_t merge_bytes_for(const stages::runs_shape& runs, const policy& local) {
  if constexpr (has_values<Value>) return sort_locally_bytes<Bits, Value>(runs.keys(), local);
  else return stages::merge_runs_temp_bytes<Bits>(runs);
}

/// Everything a rank allocates, given every rank's count (a pure function: every rank computes
/// every rank's needs and refuses alike).
template <class Bits, class Value>
rank_needs needs_of(std::size_t n, std::size_t total, int ranks, int rank, const options& o,
                    const policy& local) {
  rank_needs need{};
  const std::size_t stride = sample_stride(total, ranks, o.oversampling);
  const std::size_t share = o.rebalance ? n
                                        : balanced_prefix(rank + 1, ranks, total) -
                                              balanced_prefix(rank, ranks, total);
  need.receive_bound = std::min(total, bucket_bound(share, stride, ranks));
  need.capacity = o.rebalance ? n : std::max(n, need.receive_bound);  // the input, then the output
  if (has_values<Value> && std::max(n, need.receive_bound) >= (std::size_t{1} << 32)) {
    need.temp_bytes = ~std::size_t{0};  // refused before this matters (sort_words)
    return need;
  }
  const std::size_t sort_bytes = sort_locally_bytes<Bits, Value>(n, local);
  std::size_t merge_bytes = 0;
  if constexpr (has_values<Value>)
    merge_bytes = sort_locally_bytes<Bits, Value>(need.receive_bound, local);
  else
    merge_bytes = merge_temp_bound<Bits>(need.receive_bound, ranks, local, o.merge_oversampling);
  const std::size_t words = need.receive_bound * (sizeof(Bits) + value_bytes<Value>);
  // step 1's storage is freed before the receive buffer (and, rebalancing, the merged copy)
  need.temp_bytes = std::max(sort_bytes, words + merge_bytes + (o.rebalance ? words : 0));
  return need;
}

/// The sort of unsigned words (ascending) on this rank; to_words / from_words map the caller's
/// keys in place once every rank has agreed to go ahead, and back at the end.
template <class Bits, class Value, class ToWords, class FromWords>
sort_result sort_words(transport& t, Bits* keys, Value* values, std::size_t n, std::size_t capacity,
                       cudaStream_t stream, const options& o, const policy& local, ToWords to_words,
                       FromWords from_words) {
  const int ranks = t.size(), me = t.rank();
  const std::size_t P = static_cast<std::size_t>(ranks);
  if (ranks > stages::runs_shape::max_runs)  // every rank sees the same size: all throw
    throw input_error("warpsort::distributed::sort_keys: " + std::to_string(ranks) +
                      " ranks; at most " + std::to_string(stages::runs_shape::max_runs) +
                      " (a rank merges one run from every rank on chip)");
  if (o.oversampling < 1 || o.merge_oversampling < 1)
    throw input_error("warpsort::distributed::sort_keys: oversampling must be positive");
  sort_result result;
  t.set_timeout(o.timeout_seconds);
  const auto enter = [&](const char* phase) {
    t.set_phase(phase);
    if (o.on_phase) o.on_phase(phase);
  };
  warpsort::detail::event_marks<6> events(o.timed, stream);
  // the end of the call: with a deadline or timings, wait (within the deadline) for the work
  const auto finish = [&](bool marked = true) {  // marked: every event was recorded
    enter("finish");
    if (o.timed || o.timeout_seconds > 0) t.wait(stream, "finish");
    if (!marked) return;
    phase_times& times = result.times;
    events.read({&times.local_sort_ms, &times.splitters_ms, &times.exchange_ms, &times.merge_ms,
                 &times.rebalance_ms});
  };
  enter("agree");

  // 0. statuses, in a small allocation of their own
  stream_allocation status_block(sizeof(rank_status) * (P + 1) + sizeof(std::int32_t) * (P + 1),
                                 stream);
  if (!status_block.ok())
    throw cuda_error(cudaErrorMemoryAllocation,
                     "warpsort::distributed::sort_keys: no device memory for the status exchange");
  auto* statuses = static_cast<rank_status*>(status_block.get());
  auto* codes = reinterpret_cast<std::int32_t*>(statuses + P + 1);
  std::size_t free_bytes = 0, total_bytes = 0;
  WARPSORT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  rank_status mine{n, capacity, free_bytes, status_ok, 0};
  if (n > 0 && (keys == nullptr || (has_values<Value> && values == nullptr)))
    mine.code = status_null_keys;
  else if (n > capacity) mine.code = status_over_capacity;
  std::vector<rank_status> all(P);
  gather_to_host(t, &mine, all.data(), sizeof mine, statuses, stream, "agree");

  std::vector<std::size_t> counts(P);
  for (std::size_t p = 0; p < P; ++p) counts[p] = all[p].n;
  const std::vector<std::size_t> offsets = prefix(counts);
  const std::size_t total = offsets[P];
  std::string refused;
  for (int p = 0; p < ranks; ++p) {
    const rank_status& s = all[static_cast<std::size_t>(p)];
    const rank_needs need = needs_of<Bits, Value>(s.n, total, ranks, p, o, local);
    std::string why;
    if (s.code == status_null_keys) why = "null key or value pointer with n = " + std::to_string(s.n);
    else if (has_values<Value> && std::max<std::size_t>(s.n, need.receive_bound) >= (std::size_t{1} << 32))
      why = "pairs: at most 2^32 - 1 a rank (n = " + std::to_string(s.n) + ", may receive " +
            std::to_string(need.receive_bound) + ")";
    else if (s.code == status_over_capacity)
      why = "n = " + std::to_string(s.n) + " exceeds its capacity " + std::to_string(s.capacity);
    else if (s.capacity < need.capacity)
      why = "capacity " + std::to_string(s.capacity) + " keys; the output may need " +
            std::to_string(need.capacity) + " (warpsort::distributed::required_capacity)";
    else if (need.temp_bytes > s.free_bytes)
      why = "needs " + std::to_string(need.temp_bytes) + " bytes of device memory beyond its keys, " +
            std::to_string(s.free_bytes) + " are free";
    if (!why.empty()) refused += "\n  rank " + std::to_string(p) + ": " + why;
  }
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

  // 1. the local sort, with the control scratch allocated beside its storage
  enter("local_sort");
  events.mark(0);
  to_words(stream);
  const std::size_t stride = sample_stride(total, ranks, o.oversampling);
  std::size_t slots = 0, m = 0;
  for (std::size_t p = 0; p < P; ++p) {
    const std::size_t s = samples_of_rank(offsets[p], counts[p], stride);
    slots = std::max(slots, s);
    m += s;
  }
  std::size_t cub_bytes = 0;
  WARPSORT_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, cub_bytes,
                                                     static_cast<sample*>(nullptr),
                                                     static_cast<std::int64_t>(P * slots),
                                                     by_sample_order{}, stream));
  std::size_t sort_bytes = sort_locally_bytes<Bits, Value>(n, local);
  stages::temp_carver carve(nullptr);
  const auto lay_out = [&](stages::temp_carver& c) {
    control_arrays a{};
    a.my_samples = c.take<sample>(slots);
    a.samples = c.take<sample>(P * slots);
    a.my_counts = c.take<std::uint64_t>(P);
    a.counts = c.take<std::uint64_t>(P * P);
    a.cub_temp = c.take_bytes(cub_bytes);
    return a;
  };
  lay_out(carve);
  const std::size_t control_bytes = carve.used();
  std::size_t step1_bytes = 0;
  {
    stream_allocation work(control_bytes + sort_bytes, stream);
    agree(t, work.ok() ? 0 : 1, codes, stream,
          "allocating " + std::to_string(control_bytes + sort_bytes) + " bytes for step 1");
    stages::temp_carver c(work.get());
    const control_arrays a = lay_out(c);
    void* sort_temp = c.take_bytes(sort_bytes);
    step1_bytes = control_bytes + sort_bytes;
    sort_locally<Bits, Value>(sort_temp, sort_bytes, keys, keys, values, values, n, stream, local);
    events.mark(1);
    if (ranks == 1) {  // one rank: its sorted keys are the whole; nothing to split or move
      result.count = n;
      result.counts = counts;
      result.sent = counts;
      result.temp_bytes = control_bytes + sort_bytes;
      for (int e = 2; e < 5; ++e) events.mark(e);
      from_words(n, stream);
      events.mark(5);
      finish();
      return result;
    }

    // 2. splitters and counts
    enter("splitters");
    const unsigned threads = 256;
    if (slots > 0) {
      take_samples_kernel<<<static_cast<unsigned>(stages::ceil_div(slots, threads)), threads, 0,
                            stream>>>(keys, offsets[static_cast<std::size_t>(me)], stride,
                                      samples_of_rank(offsets[static_cast<std::size_t>(me)], n,
                                                      stride),
                                      slots, static_cast<std::uint32_t>(me), a.my_samples);
      WARPSORT_CHECK_LAUNCH();
      t.all_gather(a.my_samples, a.samples, slots * sizeof(sample), stream);
      std::size_t bytes = cub_bytes;
      WARPSORT_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(a.cub_temp, bytes, a.samples,
                                                         static_cast<std::int64_t>(P * slots),
                                                         by_sample_order{}, stream));
    }
    splitter_targets targets{};
    for (int j = 1; j < ranks; ++j)
      targets.at[j] = o.rebalance ? offsets[static_cast<std::size_t>(j)]
                                  : balanced_prefix(j, ranks, total);
    cut_at_splitters_kernel<<<1, std::max(ranks, 32), 0, stream>>>(
        keys, n, a.samples, m, stride, targets, ranks, me, a.my_counts);
    WARPSORT_CHECK_LAUNCH();
    t.all_gather(a.my_counts, a.counts, P * sizeof(std::uint64_t), stream);
    std::vector<std::uint64_t> matrix(P * P);
    read_to_host(t, matrix.data(), a.counts, matrix.size() * sizeof(std::uint64_t), stream,
                 "splitters");
    for (std::size_t i = 0; i < P * P; ++i) result.sent[i] = matrix[i];
  }  // step 1's storage goes back to the pool here
  events.mark(2);
  for (std::size_t q = 0; q < P; ++q)
    for (std::size_t p = 0; p < P; ++p) result.counts[q] += result.sent[p * P + q];
  const std::size_t received = result.counts[static_cast<std::size_t>(me)];
  for (std::size_t q = 0; q < P; ++q)  // the sampling bound makes this impossible; every rank checks
    if (!o.rebalance && result.counts[q] > all[q].capacity)
      throw agreed_failure(cudaErrorInvalidValue,
                           "warpsort::distributed::sort_keys: rank " + std::to_string(q) +
                               " would receive " + std::to_string(result.counts[q]) +
                               " keys, over its capacity " + std::to_string(all[q].capacity) +
                               " (a bug: the splitters' bound was broken)");

  // 3. the exchange, into a receive buffer (and the merge's storage)
  enter("exchange");
  std::vector<std::size_t> lengths(P);
  for (std::size_t p = 0; p < P; ++p) lengths[p] = result.sent[p * P + static_cast<std::size_t>(me)];
  const stages::runs_shape runs = stages::make_runs_shape(
      lengths.data(), ranks, local.group_capacity, o.merge_oversampling);
  const std::size_t merge_bytes = merge_bytes_for<Bits, Value>(runs, local);
  constexpr std::size_t vbytes = value_bytes<Value>;
  stages::temp_carver rc(nullptr);
  const auto lay_out_receive = [&](stages::temp_carver& c) {
    struct {
      Bits *incoming, *merged;
      unsigned char *incoming_values, *merged_values;
      void* merge_temp;
    } r{};
    r.incoming = c.take<Bits>(received);
    r.incoming_values = c.take<unsigned char>(received * vbytes);
    r.merge_temp = c.take_bytes(merge_bytes);
    r.merged = o.rebalance ? c.take<Bits>(received) : keys;
    r.merged_values = o.rebalance ? c.take<unsigned char>(received * vbytes)
                                  : reinterpret_cast<unsigned char*>(values);
    return r;
  };
  lay_out_receive(rc);
  stream_allocation receive(rc.used(), stream);
  agree(t, receive.ok() ? 0 : 1, codes, stream,
        "allocating " + std::to_string(rc.used()) + " bytes to receive and merge");
  stages::temp_carver c(receive.get());
  const auto buffers = lay_out_receive(c);
  Bits* const incoming = buffers.incoming;
  Bits* const merged = buffers.merged;
  result.temp_bytes = std::max(step1_bytes, rc.used());
  // keys, then their values, each an all-to-all of the same counts
  const auto exchange = [&](const Bits* from_keys, const unsigned char* from_values,
                            const std::vector<std::size_t>& send_at,
                            const std::vector<std::size_t>& send_n, Bits* to_keys,
                            unsigned char* to_values, const std::vector<std::size_t>& recv_at,
                            const std::vector<std::size_t>& recv_n) {
    const auto scaled = [](const std::vector<std::size_t>& v, std::size_t by) {
      std::vector<std::size_t> out(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i] * by;
      return out;
    };
    t.all_to_all(from_keys, scaled(send_at, sizeof(Bits)), scaled(send_n, sizeof(Bits)), to_keys,
                 scaled(recv_at, sizeof(Bits)), scaled(recv_n, sizeof(Bits)), stream);
    if constexpr (has_values<Value>)
      t.all_to_all(from_values, scaled(send_at, vbytes), scaled(send_n, vbytes), to_values,
                   scaled(recv_at, vbytes), scaled(recv_n, vbytes), stream);
  };

  // (in keys: positions and counts; scaled to bytes for keys and for values)
  std::vector<std::size_t> send_off(P), send_n(P), recv_off(P), recv_n(P);
  std::size_t at = 0;
  for (std::size_t p = 0; p < P; ++p) {
    send_off[p] = at;
    send_n[p] = result.sent[static_cast<std::size_t>(me) * P + p];
    at += send_n[p];
    recv_off[p] = runs.start[p];
    recv_n[p] = lengths[p];
  }
  exchange(keys, reinterpret_cast<const unsigned char*>(values), send_off, send_n, incoming,
           buffers.incoming_values, recv_off, recv_n);
  events.mark(3);

  // 4. merge the P runs
  enter("merge");
  if constexpr (has_values<Value>)
    sort_locally<Bits, Value>(buffers.merge_temp, merge_bytes, incoming, merged,
                              reinterpret_cast<const Value*>(buffers.incoming_values),
                              reinterpret_cast<Value*>(buffers.merged_values), received, stream,
                              local);
  else
    stages::merge_runs<Bits>(incoming, merged, runs, local.group_capacity, buffers.merge_temp,
                             merge_bytes, stream);
  events.mark(4);

  // 5. rebalance: contiguous ranges to the ranks whose input positions they cover
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
    for (std::size_t p = 0; p < P; ++p) {
      send_off[p] = out[p].from;
      send_n[p] = out[p].count;
      recv_off[p] = in[p].to;
      recv_n[p] = in[p].count;
    }
    exchange(merged, buffers.merged_values, send_off, send_n, keys,
             reinterpret_cast<unsigned char*>(values), recv_off, recv_n);
    result.count = n;
    result.counts = counts;
  }
  from_words(result.count, stream);
  events.mark(5);
  finish();
  return result;
}

}  // namespace warpsort::distributed::detail

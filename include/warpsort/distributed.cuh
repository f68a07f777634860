// warpsort::distributed: Warp Sort across GPUs, over NCCL. Keys already resident on P GPUs
// (one rank a GPU) end globally sorted in rank order: every key on rank r orders at or before
// every key on rank r + 1.
//
//   ncclComm_t comm;  ncclCommInitRank(&comm, P, id, rank);        // one process a GPU
//   std::size_t cap = std::max(n, warpsort::distributed::required_capacity(total, P, rank));
//   ... d_keys: cap keys, the first n this rank's ...
//   auto r = warpsort::distributed::sort_keys<std::uint32_t>(d_keys, n, cap, comm, stream);
//   // r.count keys of d_keys are this rank's share of the sorted whole
//
// The steps: each rank sorts its keys into a few sorted sequences (the single-GPU sort but its
// last merge round), splitters are chosen from a sample of (key, global position) pairs
// gathered from all ranks (so equal keys are divided by place and all-equal input stays
// balanced; keys alone, a bucket then takes its own rank's copies of a key first, so fewer
// move), each rank cuts its sequences at them, the counts and then the keys are exchanged
// (grouped ncclSend/ncclRecv between device buffers, in rounds on a second stream), and each
// rank merges the runs it received, one round's while the next round's travel: the last merge
// round of the single-GPU sort, run where the keys end. No rank receives more than N/P + (2S +
// 1) ceil(N / (oversampling P S)) keys, S <= 64 the sequences over all ranks; with
// options::rebalance the output counts equal the input counts.
//
// Errors: every rank checks every rank's count, capacity and free memory before any work, and
// all throw the same warpsort::input_error if one cannot go on; a failed allocation on one rank
// makes every rank throw at the next agreement point, before keys move. A CUDA or NCCL failure
// after that (which leaves the peers unable to finish) aborts the communicator (ncclCommAbort:
// do not use or destroy it afterwards) and throws. With options::timeout_seconds every host
// wait of the call gives up at that deadline: the rank aborts the communicator and throws
// timeout_error naming itself and the phase (use a non-blocking communicator, config.blocking
// = 0, so that NCCL's own calls cannot block the host either).
#pragma once

#include <warpsort/transport.hpp>
#include <warpsort/error.hpp>
#include <warpsort/order.cuh>
#include <warpsort/policy.hpp>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace warpsort::distributed {

/// Thrown for a failed NCCL call.
class nccl_error : public std::runtime_error {
 public:
  nccl_error(ncclResult_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ncclResult_t code() const noexcept { return code_; }

 private:
  ncclResult_t code_;
};

namespace detail {
class ipc_peer_memory;  // nccl_transport's arenas (src/distributed)
}  // namespace detail

/// Throws nccl_error for a failed NCCL call `expr` at file:line, with NCCL's own words on it
/// (what WARPSORT_NCCL_CHECK does; for a code polled from ncclCommGetAsyncError, say).
[[noreturn]] inline void throw_nccl_error(ncclResult_t code, const char* expr, const char* file,
                                          int line) {
  const char* last = ncclGetLastError(nullptr);
  throw nccl_error(code, std::string(file) + ":" + std::to_string(line) + ": " + expr +
                             " failed: " + ncclGetErrorString(code) +
                             (last && *last ? std::string(" (") + last + ")" : std::string()));
}

#define WARPSORT_NCCL_CHECK(expr)                                                           \
  do {                                                                                      \
    const ncclResult_t warpsort_nccl_status_ = (expr);                                      \
    if (warpsort_nccl_status_ != ncclSuccess)                                               \
      ::warpsort::distributed::throw_nccl_error(warpsort_nccl_status_, #expr, __FILE__,         \
                                                        __LINE__);                          \
  } while (0)

/// The local sort's algorithm: warpsort's, which leaves sorted sequences for the receivers'
/// merge to finish, or one of CUB's single-GPU sorts of a rank's whole share (one run a rank;
/// the same splitters, exchange and merge), which tells what the layer costs from what the
/// local sort costs and, for built-in keys, may be the faster choice.
enum class local_algorithm { warpsort, cub_radix, cub_merge };

struct options {
  /// Output counts equal to the input counts (one more exchange of contiguous ranges, at most
  /// a few per cent of the keys; capacity n per rank suffices). Otherwise each rank ends with
  /// about N / P keys.
  bool rebalance = false;
  /// Samples over all ranks: oversampling x P x S, S = P x local_sequences(P) <= 64 the sorted
  /// sequences over all ranks (a rank then receives at most (2S + 1) / (S oversampling) more
  /// than its share, N / P: 1.031x N / P for the default).
  int oversampling = 64;
  /// The final merge's splitters: every merge_oversampling-th sample of the received runs
  /// (more: fewer, fuller groups; 128 measured best of 32, 64, 128, 256 on two H200s).
  int merge_oversampling = 128;
  /// Rounds the exchange is sent in, each merged while the next travels (0: 8 from 2^28 keys a
  /// rank where the transport keeps receive arenas, 4 from 2^26, 2 from 2^24, else 1; 1 where
  /// the rounds' buffers would not fit every rank: the packing halves, and with rebalance the
  /// merged copy apart from the sorted sequences). The same on every rank; at most 16.
  int exchange_parts = 0;
  /// Runs a rank merges at most, one from each sorted sequence of every rank. The local sort
  /// leaves max_sequences / P sequences a rank (the local policy's; a receiver's merge is then
  /// as wide as one of the local rounds), or up to merge_runs / P (powers of two) where that
  /// saves the local sort a round. In [1, 64]; the same on every rank.
  int merge_runs = 64;
  /// Where the exchange runs in several rounds (keys, warpsort's version-5 local sort), stop
  /// the local sort one round short: the splitters cut the sequences before that round, and
  /// the round runs bucket by bucket during the exchange, each part's merges written where its
  /// sends start. Off by default: on four H200s it saved 3% at 2^31-2^32 keys, on two it cost
  /// 2-3% (NCCL's copies and the merges share the SMs rather than overlap; docs/distributed.md).
  /// The same on every rank.
  bool bucket_last_round = false;
  /// How the keys move: `automatic` copies them straight into the peers' receive arenas where
  /// the transport can (transport::peers: nccl_transport, when every rank is a process of one
  /// host), with copy engines, so that no SM carries a byte and the merges run while later
  /// parts travel, or, where a rank's pieces average under 1 MiB, with one kernel a part (a
  /// copy engine's call costs a few microseconds of the host, longer than such a piece takes);
  /// else the transport's exchange (NCCL's grouped send and receive). `copy_engines` and
  /// `sm_copies`: straight into the arenas where the transport can, always by copy engines, or
  /// always by kernels (keys; pairs' pieces go by copy engines). `transport`: always the
  /// transport's exchange. The same on every rank.
  enum class exchange_path { automatic, copy_engines, sm_copies, transport };
  exchange_path exchange = exchange_path::automatic;
  /// What a rank holds beside its keys. `automatic`: the sorted sequences, the received keys
  /// and, with several rounds, two packing halves apart (about 3 to 3.5 copies of its keys; the
  /// merges of one round run while the next travels) where that fits every rank, else
  /// `two_copies`. `two_copies`: the local sort ping-pongs through the receive arena and leaves
  /// the sequences in the caller's buffer, every piece (its own too) is copied into the arenas
  /// in one round, and the merges then write into the caller's buffer (about 2 copies; no
  /// overlap of merges and copies). Two copies need keys without values, no rebalancing, and
  /// the keys copied straight into the arenas. The same on every rank.
  enum class memory_plan { automatic, two_copies };
  memory_plan memory = memory_plan::automatic;
  /// Small totals: every rank copies its sorted share (its local sort's sequences) into every
  /// peer's receive arena and merges its own slice of all N keys (output positions
  /// balanced_start(r) .. balanced_start(r + 1), or its input's with rebalance: exact, nothing
  /// to rebalance). No splitters and no counts go round, one host barrier instead of two host
  /// round trips, for about (P - 1) / P N keys received a rank where the exchange receives
  /// (P - 1) / P^2 N. The shares go by copy engines (`sm_copies`: by one kernel), each rank's
  /// sample records by one small kernel ahead of them, so that every rank sorts the samples
  /// while the keys travel.
  /// `automatic`: for keys without values, where the ranks are known to copy into each other's
  /// receive arenas (transport::gathers_on_host: for nccl_transport, processes of one host from
  /// its second call, its first having opened the arenas) and the extra keys received,
  /// (P - 1)^2 / P^2 N, are at most 160 MiB a rank (exchange, exchange_parts and memory left to
  /// choose themselves); `never`; `always`: wherever it can run (refused, on every rank, where
  /// it cannot). The same on every rank.
  enum class gather_path { automatic, never, always };
  gather_path gather_all = gather_path::automatic;
  /// The gathered path: a rank's local sort runs in this many ranges of whole sequences (at
  /// most its sequences), each range's keys copied to the peers while the next range sorts
  /// (0: automatic: two where a rank receives at least 96 MiB of its peers' keys, else one).
  /// The same on every rank. Where the path is likely (from the rank's own count and options)
  /// and the rank's receive arena from an earlier call holds its own region, the first range
  /// is sorted into the arena before the ranks agree (the caller's keys only read), and used
  /// where the agreement takes the gathered path with the same arena and ranges
  /// (sort_result::sorted_before_agreement).
  int gather_pieces = 0;
  /// Record CUDA events between the phases and wait for them (sort_result::times).
  bool timed = false;
  /// The local sort's tuning; null: warpsort's default for the key type.
  const policy* local = nullptr;
  /// The local sort's algorithm; the same on every rank.
  local_algorithm local_sort = local_algorithm::warpsort;
  /// Seconds every host wait of the call may take (0: no deadline). Past it the rank aborts
  /// the communicator and throws timeout_error. With a deadline the call also waits for its
  /// own completion (the merge and the map back) before it returns, so that a stall anywhere
  /// ends inside the call.
  double timeout_seconds = 0;
  /// Called by every rank at the start of every phase ("agree", "local_sort", "splitters",
  /// "exchange", "merge", "rebalance", "finish"), on the calling thread: for progress on long
  /// runs (and, in tests, for stalling one rank on purpose).
  std::function<void(const char* phase)> on_phase;
};

/// Device time of each phase on this rank, in milliseconds (options::timed).
struct phase_times {
  float local_sort_ms = 0;  // the order's map into words, and the single-GPU sort
  float splitters_ms = 0;   // sample, gather, splitters, cuts, the counts' exchange
  float exchange_ms = 0;    // the all-to-all of the keys
  float merge_ms = 0;       // merging the received runs
  float rebalance_ms = 0;   // the optional rebalancing exchange, and the map back
  // of merge_ms, the last part's merge once its pieces are in (the rest waits for the pieces or
  // for earlier parts' merges; 0 where the keys are not exchanged in parts)
  float last_part_merge_ms = 0;
  float total_ms() const {
    return local_sort_ms + splitters_ms + exchange_ms + merge_ms + rebalance_ms;
  }
};

struct sort_result {
  std::size_t count = 0;                 // keys this rank now holds
  std::vector<std::size_t> counts;       // every rank's output count
  std::vector<std::size_t> input_counts; // every rank's input count
  std::vector<std::size_t> sent;         // P x P: sent[p * P + q] keys went from rank p to q
  std::size_t temp_bytes = 0;            // device memory this rank allocated at most
  std::size_t exchange_rounds = 0;       // rounds the exchange ran in (options::exchange_parts)
  bool last_round_bucketed = false;      // this rank ran its last local round during the exchange
  bool copy_engines = false;             // the keys copied straight into the peers' arenas
  bool sm_copies = false;                // ... by one kernel a part on this rank (else copy engines)
  bool two_copies = false;               // the two-copy memory plan (options::memory_plan)
  bool gathered = false;                 // every rank's keys copied to every rank (options::gather_all)
  std::size_t gather_pieces = 0;         // ... the ranges this rank's local sort ran in, each sent as it ended
  bool sorted_before_agreement = false;  // ... its first range sorted while the ranks agreed
  phase_times times;
  std::size_t keys_sent_to_others(int rank) const;
};

/// Keys rank `rank` of `ranks` may receive when N keys are sorted without rebalancing: its
/// buffer must hold this many, and its own input count (with rebalancing, its input count
/// suffices).
std::size_t required_capacity(std::size_t total, int ranks, int rank, const options& o = {});

/// Where rank `rank`'s share starts when `total` keys are split evenly over `ranks` ranks
/// (rank * total / ranks, rounded down; `ranks` gives `total`): a caller's even split of its
/// input, and the output counts the sort aims at without rebalancing.
std::size_t balanced_start(int rank, int ranks, std::size_t total);

/// A transport over an NCCL communicator (one rank a GPU; the calling thread's device must be
/// the communicator's).
class nccl_transport final : public transport {
 public:
  /// `arenas`: keep receive arenas for copy-engine exchanges (peers()); the overloads that
  /// take a communicator make a transport for one call and pass false (an arena set up for one
  /// call costs more than it saves, and its release waits for the device).
  explicit nccl_transport(ncclComm_t comm, bool arenas = true);
  ~nccl_transport() override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void all_gather(const void* send, void* recv, std::size_t bytes, cudaStream_t stream) override;
  void exchange(const std::vector<send_piece>& sends, const std::vector<receive_piece>& receives,
                cudaStream_t stream) override;
  void abort() noexcept override;
  /// Receive arenas over CUDA IPC (one allocation a rank, kept until the transport is
  /// destroyed, which waits for the device): direct copies where every rank is a process of one
  /// host, else NCCL moves the keys into them. Null where constructed without arenas.
  peer_memory* peers() override;
  /// Polls the stream and the communicator's asynchronous error until both are done, or the
  /// deadline passes.
  void wait(cudaStream_t stream, const char* phase) override;
  /// Where the ranks are processes of one host and share the arenas' mailbox (from the first
  /// call that sets the arenas up): gathers of up to 256 KiB a rank go through host memory.
  bool gathers_on_host(std::size_t bytes) const override;
  /// Whether abort() ended the communicator (then it must not be destroyed).
  bool aborted() const noexcept { return aborted_; }
  /// For a non-blocking communicator: waits until the communicator has finished its last call
  /// (ncclInProgress), giving up at the deadline; throws nccl_error on an asynchronous error.
  void settle(const char* phase);

 protected:
  void host_all_gather(const void* mine, void* all, std::size_t bytes, const char* phase) override;

 private:
  /// Whether the communicator has finished its last call (throws nccl_error on its failure).
  bool idle();
  ncclComm_t comm_;
  std::unique_ptr<detail::ipc_peer_memory> peers_;
  bool arenas_ = true;
  int rank_ = 0, size_ = 1;
  bool aborted_ = false;
};

/// transport::all_to_all after every rank has agreed that what each sends each is what that one
/// expects (an all-gather of both sides' sizes first): a disagreement throws
/// disagreement_error on every rank alike, naming both ranks and `phase`, instead of leaving one
/// waiting. Waits within the transport's deadline.
void checked_all_to_all(transport& t, const void* send,
                        const std::vector<std::size_t>& send_offsets,
                        const std::vector<std::size_t>& send_bytes, void* recv,
                        const std::vector<std::size_t>& recv_offsets,
                        const std::vector<std::size_t>& recv_bytes, cudaStream_t stream,
                        const char* phase);

/// Sorts the keys resident on every rank of `t`; this rank's are d_keys[0..n), with room for
/// `capacity` keys. Key: the six key types; Comp: warpsort::less or warpsort::greater (floats in
/// warpsort's total order). Every rank calls it, whatever its n (0 included); returns when the
/// keys are exchanged and the merge is queued on `stream` (with options::timed or
/// options::timeout_seconds, when it is done).
template <class Key, class Comp = less<Key>>
sort_result sort_keys(Key* d_keys, std::size_t n, std::size_t capacity, transport& t,
                      cudaStream_t stream = 0, Comp comp = {}, const options& o = {});

/// The same over an NCCL communicator, its keys moved by NCCL (for copy engines between the
/// processes of one host, keep an nccl_transport and pass it: its arenas last between calls).
template <class Key, class Comp = less<Key>>
sort_result sort_keys(Key* d_keys, std::size_t n, std::size_t capacity, ncclComm_t comm,
                      cudaStream_t stream = 0, Comp comp = {}, const options& o = {}) {
  nccl_transport t(comm, false);
  return sort_keys<Key, Comp>(d_keys, n, capacity, t, stream, comp, o);
}

/// Key-value pairs (values std::uint32_t or std::uint64_t, any 4- or 8-byte type reinterpreted
/// as one): sorted by key, stably, in the order of the ranks' inputs taken in rank order (equal
/// keys keep their (rank, position) order). d_values holds n values with room for `capacity`.
/// At most 2^32 - 1 pairs a rank (the single-GPU sort_pairs' limit). A rank re-sorts the runs it
/// receives with the stable single-GPU sort, where keys alone are merged. Float keys travel as
/// words that keep their bits, which would order -0.0 before +0.0 (equal keys): on several ranks,
/// float keys holding zeros of both signs are refused on every rank (input_error) before any key
/// moves; make the zeros one sign first (adding +0.0 to every key makes -0.0 +0.0). One rank
/// sorts pairs of float keys by the comparator itself, which keeps that order.
template <class Key, class Value, class Comp = less<Key>>
sort_result sort_pairs(Key* d_keys, Value* d_values, std::size_t n, std::size_t capacity,
                       transport& t, cudaStream_t stream = 0, Comp comp = {},
                       const options& o = {});

/// The same over an NCCL communicator.
template <class Key, class Value, class Comp = less<Key>>
sort_result sort_pairs(Key* d_keys, Value* d_values, std::size_t n, std::size_t capacity,
                       ncclComm_t comm, cudaStream_t stream = 0, Comp comp = {},
                       const options& o = {}) {
  nccl_transport t(comm, false);
  return sort_pairs<Key, Value, Comp>(d_keys, d_values, n, capacity, t, stream, comp, o);
}

/// One process driving every GPU of a host: keys[i] on the device of comms[i] (e.g. from
/// ncclCommInitAll); one host thread a rank. Rethrows the first rank's error, if any.
template <class Key, class Comp = less<Key>>
std::vector<sort_result> sort_keys_on_devices(const std::vector<Key*>& keys,
                                              const std::vector<std::size_t>& n,
                                              const std::vector<std::size_t>& capacity,
                                              const std::vector<ncclComm_t>& comms,
                                              const std::vector<cudaStream_t>& streams,
                                              Comp comp = {}, const options& o = {}) {
  const std::size_t ranks = comms.size();
  if (keys.size() != ranks || n.size() != ranks || capacity.size() != ranks ||
      streams.size() != ranks)
    throw input_error("warpsort::distributed::sort_keys_on_devices: keys, n, capacity, comms "
                      "and streams must have one entry a rank");
  std::vector<sort_result> results(ranks);
  std::vector<std::exception_ptr> errors(ranks);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < ranks; ++i)
    threads.emplace_back([&, i] {
      try {
        int device = 0;
        WARPSORT_NCCL_CHECK(ncclCommCuDevice(comms[i], &device));
        WARPSORT_CUDA_CHECK(cudaSetDevice(device));
        results[i] = sort_keys<Key, Comp>(keys[i], n[i], capacity[i], comms[i], streams[i], comp, o);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  for (auto& th : threads) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return results;
}

}  // namespace warpsort::distributed

// A transport for tests: P ranks as P host threads on one GPU, each with its own stream. Its
// collectives copy between the ranks' device buffers, ordered by events, so the distributed
// sort's logic (samples, splitters, cuts, exchange, merge, rebalance) runs for any P where NCCL
// would need P GPUs. It honours the transport's deadline as NCCL's does: a rank left waiting
// at a collective past it aborts the group and throws timeout_error.
#pragma once

#include <warpsort/transport.hpp>
#include <warpsort/error.hpp>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace warpsort::testing {

/// What the P ranks of one thread_transport share.
class thread_group {
 public:
  explicit thread_group(int ranks)
      : ranks_(ranks), sends_(ranks), ready_(ranks), done_(ranks), arenas_(ranks, nullptr),
        arena_sizes_(ranks, 0), arena_failed_(ranks, 0), released_(ranks),
        sent_(static_cast<std::size_t>(ranks) * distributed::peer_memory::most_parts) {
    for (int p = 0; p < ranks; ++p) {
      WARPSORT_CUDA_CHECK(cudaEventCreateWithFlags(&ready_[p], cudaEventDisableTiming));
      WARPSORT_CUDA_CHECK(cudaEventCreateWithFlags(&done_[p], cudaEventDisableTiming));
      WARPSORT_CUDA_CHECK(cudaEventCreateWithFlags(&released_[p], cudaEventDisableTiming));
    }
    for (cudaEvent_t& e : sent_) WARPSORT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~thread_group() {
    (void)cudaDeviceSynchronize();
    for (int p = 0; p < ranks_; ++p) {
      cudaEventDestroy(ready_[p]);
      cudaEventDestroy(done_[p]);
      cudaEventDestroy(released_[p]);
      if (arenas_[p]) cudaFree(arenas_[p]);
    }
    for (cudaEvent_t e : sent_) cudaEventDestroy(e);
  }
  int ranks() const { return ranks_; }

  /// Every rank waits here for all (throws once a rank has aborted); past `until`, this rank
  /// aborts the group and throws timeout_error.
  void barrier(int me = 0, const distributed::detail::deadline& until = {},
               const char* phase = "collective") {
    std::unique_lock<std::mutex> lock(mutex_);
    if (aborted_) throw std::runtime_error("thread_transport: a rank aborted");
    const long generation = generation_;
    if (++arrived_ == ranks_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    const auto released = [&] { return generation_ != generation || aborted_; };
    while (!released()) {
      if (until.passed(distributed::detail::deadline::clock::now())) {
        aborted_ = true;
        cv_.notify_all();
        throw distributed::timeout_error(me, phase, until.seconds());
      }
      cv_.wait_for(lock, std::chrono::milliseconds(until.set() ? 10 : 1000));
    }
    // a barrier every rank reached is passed, even where a rank has aborted since (it may have
    // refused the call right after it, as every rank then does)
    if (generation_ == generation) throw std::runtime_error("thread_transport: a rank aborted");
  }
  void abort() {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = true;
    cv_.notify_all();
  }

  using send_piece = distributed::transport::send_piece;
  using receive_piece = distributed::transport::receive_piece;

  /// One collective: each rank posts its send pieces, then pulls its receive pieces from the
  /// others' buffers on its own stream (matching each peer's pieces to it in order), then
  /// waits until every rank has pulled from it.
  void exchange(int me, const std::vector<send_piece>& sends,
                const std::vector<receive_piece>& receives, cudaStream_t stream,
                const distributed::detail::deadline& until = {}, const char* phase = "collective") {
    sends_[me] = sends;
    WARPSORT_CUDA_CHECK(cudaEventRecord(ready_[me], stream));
    barrier(me, until, phase);
    for (int p = 0; p < ranks_; ++p) {
      std::vector<const send_piece*> from;
      for (const auto& s : sends_[p])
        if (s.peer == me && s.bytes > 0) from.push_back(&s);
      std::vector<const receive_piece*> to;
      for (const auto& r : receives)
        if (r.peer == p && r.bytes > 0) to.push_back(&r);
      if (from.size() != to.size())
        throw std::logic_error("thread_transport: rank " + std::to_string(p) + " sends " +
                               std::to_string(from.size()) + " pieces to rank " +
                               std::to_string(me) + ", which expects " + std::to_string(to.size()));
      if (!to.empty()) WARPSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, ready_[p], 0));
      for (std::size_t i = 0; i < to.size(); ++i) {
        if (from[i]->bytes != to[i]->bytes)
          throw std::logic_error("thread_transport: rank " + std::to_string(p) + " sends " +
                                 std::to_string(from[i]->bytes) + " bytes to rank " +
                                 std::to_string(me) + ", which expects " +
                                 std::to_string(to[i]->bytes));
        WARPSORT_CUDA_CHECK(cudaMemcpyAsync(to[i]->to, from[i]->from, to[i]->bytes,
                                            cudaMemcpyDeviceToDevice, stream));
      }
    }
    WARPSORT_CUDA_CHECK(cudaEventRecord(done_[me], stream));
    barrier(me, until, phase);
    for (int p = 0; p < ranks_; ++p) WARPSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, done_[p], 0));
    barrier(me, until, phase);  // every rank has queued its waits: the events and tables may be reused
  }

  /// Every rank's `bytes` at host `mine` into host `all`, in rank order (transport's
  /// gather_on_host, once the caller's stream is drained).
  void gather_on_host(int me, const void* mine, void* all, std::size_t bytes,
                      const distributed::detail::deadline& until, const char* phase) {
    host_sources_[static_cast<std::size_t>(me)] = mine;
    barrier(me, until, phase);
    for (int p = 0; p < ranks_; ++p)
      std::memcpy(static_cast<unsigned char*>(all) + static_cast<std::size_t>(p) * bytes,
                  host_sources_[static_cast<std::size_t>(p)], bytes);
    barrier(me, until, phase);  // every rank has read every source
  }

  /// The ranks' receive arenas (peer_memory within this process: plain device copies).
  distributed::peer_memory::arenas reserve(int me, const std::vector<std::size_t>& bytes,
                                           cudaStream_t stream,
                                           const distributed::detail::deadline& until,
                                           const char* phase) {
    const std::size_t r = static_cast<std::size_t>(me);
    if (release_pending_[r]) WARPSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, released_[r], 0));
    if (bytes[r] > arena_sizes_[r]) {
      // the arena's last readers and writers are behind the agreement this call began with
      if (arenas_[r]) WARPSORT_CUDA_CHECK(cudaFree(arenas_[r]));
      arenas_[r] = nullptr;
      arena_sizes_[r] = 0;
      void* p = nullptr;
      cudaError_t status = cudaMalloc(&p, bytes[r]);
      if (status == cudaErrorMemoryAllocation) {
        // as nccl_transport's arenas: the stream-ordered pool may keep what the agreement
        // counted as free (its unused bytes): give it back and try once more
        (void)cudaGetLastError();
        cudaMemPool_t pool;
        WARPSORT_CUDA_CHECK(cudaDeviceGetMemPool(&pool, 0));
        WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
        WARPSORT_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
        status = cudaMalloc(&p, bytes[r]);
      }
      arena_failed_[r] = status != cudaSuccess;
      if (arena_failed_[r]) (void)cudaGetLastError();
      else {
        arenas_[r] = static_cast<unsigned char*>(p);
        arena_sizes_[r] = bytes[r];
      }
    }
    barrier(me, until, phase);  // every arena is in place; none changes before the next call
    distributed::peer_memory::arenas out;
    out.at = arenas_;
    out.direct = true;
    for (int p = 0; p < ranks_; ++p)
      if (arena_failed_[static_cast<std::size_t>(p)]) out.failed.push_back(p);
    return out;
  }
  std::size_t arena_bytes(int me) const { return arena_sizes_[static_cast<std::size_t>(me)]; }
  unsigned char* arena(int me) const { return arenas_[static_cast<std::size_t>(me)]; }
  cudaEvent_t sent(int rank, int part) const {
    return sent_[static_cast<std::size_t>(rank) * distributed::peer_memory::most_parts +
                 static_cast<std::size_t>(part)];
  }
  void release_after(int me, cudaStream_t stream) {
    WARPSORT_CUDA_CHECK(cudaEventRecord(released_[static_cast<std::size_t>(me)], stream));
    release_pending_[static_cast<std::size_t>(me)] = 1;
  }

 private:
  int ranks_;
  std::mutex mutex_;
  std::condition_variable cv_;
  int arrived_ = 0;
  long generation_ = 0;
  bool aborted_ = false;
  std::vector<std::vector<send_piece>> sends_;
  std::vector<cudaEvent_t> ready_, done_;
  std::vector<unsigned char*> arenas_;
  std::vector<std::size_t> arena_sizes_;
  std::vector<char> arena_failed_;
  std::vector<cudaEvent_t> released_;
  std::vector<char> release_pending_ = std::vector<char>(static_cast<std::size_t>(ranks_), 0);
  std::vector<cudaEvent_t> sent_;
  std::vector<const void*> host_sources_ = std::vector<const void*>(static_cast<std::size_t>(ranks_));
};

class thread_transport final : public distributed::transport {
 public:
  /// with_arenas: offer peer_memory (the sort then copies into the ranks' arenas directly) and
  /// gathers through host memory, as nccl_transport does for the processes of one host;
  /// without, the received keys are the sort's own, every piece moves through exchange() and
  /// every gather through all_gather().
  thread_transport(thread_group& group, int rank, bool with_arenas = true)
      : group_(group), rank_(rank), arenas_(*this), with_arenas_(with_arenas) {}
  int rank() const override { return rank_; }
  int size() const override { return group_.ranks(); }
  void all_gather(const void* send, void* recv, std::size_t bytes, cudaStream_t stream) override {
    const std::size_t P = static_cast<std::size_t>(size());
    std::vector<send_piece> sends(P);
    std::vector<receive_piece> receives(P);
    for (std::size_t p = 0; p < P; ++p) {
      sends[p] = {static_cast<int>(p), send, bytes};
      receives[p] = {static_cast<int>(p), static_cast<unsigned char*>(recv) + p * bytes, bytes};
    }
    group_.exchange(rank_, sends, receives, stream, deadline_, phase());
  }
  void exchange(const std::vector<send_piece>& sends, const std::vector<receive_piece>& receives,
                cudaStream_t stream) override {
    group_.exchange(rank_, sends, receives, stream, deadline_, phase());
  }
  void abort() noexcept override { group_.abort(); }
  distributed::peer_memory* peers() override { return with_arenas_ ? &arenas_ : nullptr; }
  bool gathers_on_host(std::size_t) const override { return with_arenas_; }

 protected:
  void host_all_gather(const void* mine, void* all, std::size_t bytes, const char* phase) override {
    group_.gather_on_host(rank_, mine, all, bytes, deadline_, phase);
  }

 private:
  class shared_arenas final : public distributed::peer_memory {
   public:
    explicit shared_arenas(thread_transport& t) : t_(t) {}
    std::size_t arena_bytes() const override { return t_.group_.arena_bytes(t_.rank_); }
    void* arena() const override { return t_.group_.arena(t_.rank_); }
    peer_memory::arenas reserve(const std::vector<std::size_t>& bytes, cudaStream_t stream,
                                const char* phase) override {
      return t_.group_.reserve(t_.rank_, bytes, stream, t_.deadline_, phase);
    }
    cudaEvent_t sent(int rank, int part) override { return t_.group_.sent(rank, part); }
    void barrier(const char* phase) override { t_.group_.barrier(t_.rank_, t_.deadline_, phase); }
    void release_after(cudaStream_t stream) override { t_.group_.release_after(t_.rank_, stream); }

   private:
    thread_transport& t_;
  };
  thread_group& group_;
  int rank_;
  shared_arenas arenas_;
  bool with_arenas_;
};

}  // namespace warpsort::testing

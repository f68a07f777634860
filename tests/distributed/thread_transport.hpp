// A transport for tests: P ranks as P host threads on one GPU, each with its own stream. Its
// collectives copy between the ranks' device buffers, ordered by events, so the distributed
// sort's logic (samples, splitters, cuts, exchange, merge, rebalance) runs for any P where NCCL
// would need P GPUs. It honours the transport's deadline as NCCL's does: a rank left waiting
// at a collective past it aborts the group and throws timeout_error.
#pragma once

#include <warpsort/detail/distributed/transport.hpp>
#include <warpsort/error.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace warpsort::testing {

/// What the P ranks of one thread_transport share.
class thread_group {
 public:
  explicit thread_group(int ranks)
      : ranks_(ranks), send_(ranks), send_offsets_(ranks), send_bytes_(ranks), ready_(ranks),
        done_(ranks) {
    for (int p = 0; p < ranks; ++p) {
      WARPSORT_CUDA_CHECK(cudaEventCreateWithFlags(&ready_[p], cudaEventDisableTiming));
      WARPSORT_CUDA_CHECK(cudaEventCreateWithFlags(&done_[p], cudaEventDisableTiming));
    }
  }
  ~thread_group() {
    for (int p = 0; p < ranks_; ++p) {
      cudaEventDestroy(ready_[p]);
      cudaEventDestroy(done_[p]);
    }
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
    if (aborted_) throw std::runtime_error("thread_transport: a rank aborted");
  }
  void abort() {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = true;
    cv_.notify_all();
  }

  /// One collective: each rank posts its send side, then pulls its receive side from the
  /// others' buffers on its own stream, then waits until every rank has pulled from it.
  void exchange(int me, const void* send, const std::vector<std::size_t>& send_offsets,
                const std::vector<std::size_t>& send_bytes, void* recv,
                const std::vector<std::size_t>& recv_offsets,
                const std::vector<std::size_t>& recv_bytes, cudaStream_t stream,
                const distributed::detail::deadline& until = {}, const char* phase = "collective") {
    send_[me] = static_cast<const unsigned char*>(send);
    send_offsets_[me] = send_offsets;
    send_bytes_[me] = send_bytes;
    WARPSORT_CUDA_CHECK(cudaEventRecord(ready_[me], stream));
    barrier(me, until, phase);
    for (int p = 0; p < ranks_; ++p) {
      if (send_bytes_[p][me] != recv_bytes[p])
        throw std::logic_error("thread_transport: rank " + std::to_string(p) + " sends " +
                               std::to_string(send_bytes_[p][me]) + " bytes to rank " +
                               std::to_string(me) + ", which expects " +
                               std::to_string(recv_bytes[p]));
      if (recv_bytes[p] == 0) continue;
      WARPSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, ready_[p], 0));
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(static_cast<unsigned char*>(recv) + recv_offsets[p],
                                          send_[p] + send_offsets_[p][me], recv_bytes[p],
                                          cudaMemcpyDeviceToDevice, stream));
    }
    WARPSORT_CUDA_CHECK(cudaEventRecord(done_[me], stream));
    barrier(me, until, phase);
    for (int p = 0; p < ranks_; ++p) WARPSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, done_[p], 0));
    barrier(me, until, phase);  // every rank has queued its waits: the events and tables may be reused
  }

 private:
  int ranks_;
  std::mutex mutex_;
  std::condition_variable cv_;
  int arrived_ = 0;
  long generation_ = 0;
  bool aborted_ = false;
  std::vector<const unsigned char*> send_;
  std::vector<std::vector<std::size_t>> send_offsets_, send_bytes_;
  std::vector<cudaEvent_t> ready_, done_;
};

class thread_transport final : public distributed::transport {
 public:
  thread_transport(thread_group& group, int rank) : group_(group), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return group_.ranks(); }
  void all_gather(const void* send, void* recv, std::size_t bytes, cudaStream_t stream) override {
    const std::size_t P = static_cast<std::size_t>(size());
    std::vector<std::size_t> zero(P, 0), each(P, bytes), at(P);
    for (std::size_t p = 0; p < P; ++p) at[p] = p * bytes;
    group_.exchange(rank_, send, zero, each, recv, at, each, stream, deadline_, phase());
  }
  void all_to_all(const void* send, const std::vector<std::size_t>& send_offsets,
                  const std::vector<std::size_t>& send_bytes, void* recv,
                  const std::vector<std::size_t>& recv_offsets,
                  const std::vector<std::size_t>& recv_bytes, cudaStream_t stream) override {
    group_.exchange(rank_, send, send_offsets, send_bytes, recv, recv_offsets, recv_bytes, stream,
                    deadline_, phase());
  }
  void abort() noexcept override { group_.abort(); }

 private:
  thread_group& group_;
  int rank_;
};

}  // namespace warpsort::testing

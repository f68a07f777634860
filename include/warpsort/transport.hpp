#pragma once
// What the distributed sort needs of a communicator: an all-gather and an all-to-all of byte
// ranges between device buffers, stream-ordered, and a wait for a stream that gives up at a
// deadline. nccl_transport (warpsort/distributed.cuh) is the one the library gives; the tests
// add one that runs several ranks on one GPU.
#include <warpsort/detail/distributed/peer_memory.hpp>

#include <warpsort/error.hpp>

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace warpsort::distributed {

/// A wait that passed its deadline: the rank aborted its communicator (which is then gone).
class timeout_error : public std::runtime_error {
 public:
  timeout_error(int rank, const std::string& phase, double seconds)
      : std::runtime_error("rank " + std::to_string(rank) + ": phase " + phase +
                           ": no progress within the deadline of " + format_seconds(seconds) +
                           " s (a peer stalled or posted a different exchange); the communicator "
                           "was aborted"),
        rank_(rank), phase_(phase), seconds_(seconds) {}
  int rank() const noexcept { return rank_; }
  const std::string& phase() const noexcept { return phase_; }
  double seconds() const noexcept { return seconds_; }

 private:
  static std::string format_seconds(double s) {
    std::string text = std::to_string(s);
    while (text.size() > 1 && text.back() == '0') text.pop_back();
    if (!text.empty() && text.back() == '.') text.pop_back();
    return text;
  }
  int rank_;
  std::string phase_;
  double seconds_;
};

/// Ranks that would post different exchanges (what one sends another is not what that one
/// expects): every rank finds it alike, before the exchange, so the communicator stays usable.
class disagreement_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

/// A point in time after which waits give up; none (the default) waits forever.
class deadline {
 public:
  using clock = std::chrono::steady_clock;
  deadline() = default;
  /// `seconds` from `now`; seconds <= 0: none.
  deadline(double seconds, clock::time_point now) : seconds_(seconds > 0 ? seconds : 0) {
    if (seconds_ > 0)
      at_ = now + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds_));
  }
  bool set() const { return seconds_ > 0; }
  double seconds() const { return seconds_; }
  bool passed(clock::time_point now) const { return set() && now >= at_; }

 private:
  double seconds_ = 0;
  clock::time_point at_{};
};

}  // namespace detail

class transport {
 public:
  virtual ~transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Every rank's `bytes` bytes at `send`, in rank order, into recv (size() x bytes), on stream.
  virtual void all_gather(const void* send, void* recv, std::size_t bytes,
                          cudaStream_t stream) = 0;
  /// Sends and receives contiguous pieces between device buffers, as one collective: what rank
  /// p sends rank q (its pieces with peer q, in order) is what q receives from p (its pieces
  /// with peer p, in order), piece by piece of the same sizes; a rank's pieces to itself are
  /// copies. Callers agree on the pieces first (from counts every rank holds alike).
  struct send_piece {
    int peer;
    const void* from;
    std::size_t bytes;
  };
  struct receive_piece {
    int peer;
    void* to;
    std::size_t bytes;
  };
  virtual void exchange(const std::vector<send_piece>& sends,
                        const std::vector<receive_piece>& receives, cudaStream_t stream) = 0;
  /// An exchange of one piece each way a rank: send_bytes[p] bytes at send + send_offsets[p]
  /// to every rank p, recv_bytes[p] bytes from it at recv + recv_offsets[p].
  void all_to_all(const void* send, const std::vector<std::size_t>& send_offsets,
                  const std::vector<std::size_t>& send_bytes, void* recv,
                  const std::vector<std::size_t>& recv_offsets,
                  const std::vector<std::size_t>& recv_bytes, cudaStream_t stream) {
    const std::size_t P = static_cast<std::size_t>(size());
    if (send_offsets.size() != P || send_bytes.size() != P || recv_offsets.size() != P ||
        recv_bytes.size() != P)
      throw input_error("warpsort::distributed: all_to_all needs one offset and size a rank");
    std::vector<send_piece> sends(P);
    std::vector<receive_piece> receives(P);
    for (std::size_t p = 0; p < P; ++p) {
      sends[p] = {static_cast<int>(p), static_cast<const unsigned char*>(send) + send_offsets[p],
                  send_bytes[p]};
      receives[p] = {static_cast<int>(p), static_cast<unsigned char*>(recv) + recv_offsets[p],
                     recv_bytes[p]};
    }
    exchange(sends, receives, stream);
  }
  /// After this rank failed where its peers may wait on it: ends the communicator.
  virtual void abort() noexcept = 0;
  /// Receive arenas the ranks write into each other with copy engines (peer_memory.hpp), kept
  /// by the transport between calls; null where the transport has none (every rank of a call
  /// must then have none, or every rank one: the sort gathers which).
  virtual peer_memory* peers() { return nullptr; }

  /// Whether gather_on_host takes `bytes` a rank: alike on every rank of a call (the ranks of
  /// one host that share memory), false by default.
  virtual bool gathers_on_host(std::size_t /*bytes*/) const { return false; }
  /// Every rank's `bytes` bytes at host `mine`, in rank order, into host `all` (size() x
  /// bytes), through host memory the ranks share, once the work queued on `stream` is done (so
  /// that what a peer queues after it is ordered after this rank's work, as a collective on
  /// the stream would order it). False, with nothing done, where !gathers_on_host(bytes).
  /// Waits within the deadline.
  bool gather_on_host(const void* mine, void* all, std::size_t bytes, cudaStream_t stream,
                      const char* phase) {
    if (!gathers_on_host(bytes)) return false;
    wait(stream, phase);
    host_all_gather(mine, all, bytes, phase);
    return true;
  }
  /// Waits for the work queued on `stream` (this rank's part of the collectives on it
  /// included). Past the deadline (set_timeout) it aborts the communicator and throws
  /// timeout_error naming this rank and `phase`.
  virtual void wait(cudaStream_t stream, const char* phase) {
    poll_until([&] { return ready(stream); }, phase);
  }
  /// The deadline of every wait from now on: `seconds` from now (0: none).
  void set_timeout(double seconds) {
    deadline_ = detail::deadline(seconds, detail::deadline::clock::now());
  }
  double timeout_seconds() const { return deadline_.seconds(); }
  /// The phase the caller is in: named by a timeout inside the collectives themselves.
  void set_phase(const char* phase) { phase_ = phase; }
  const char* phase() const { return phase_; }

 protected:
  /// gather_on_host's exchange, the stream drained (only where gathers_on_host(bytes)).
  virtual void host_all_gather(const void* /*mine*/, void* /*all*/, std::size_t /*bytes*/,
                               const char* /*phase*/) {
    throw std::logic_error("warpsort::distributed: this transport has no host gathers");
  }
  /// Calls done() until it is true, sleeping briefly between tries; past the deadline, aborts
  /// and throws timeout_error.
  template <class Done>
  void poll_until(Done done, const char* phase) {
    const auto start = detail::deadline::clock::now();
    while (!done()) {
      const auto now = detail::deadline::clock::now();
      if (deadline_.passed(now)) {
        abort();
        throw timeout_error(rank(), phase, deadline_.seconds());
      }
      // short waits are the rule (a collective's launch, a few bytes back): try again at once
      // for the first milliseconds, then sleep between tries
      if (now - start < std::chrono::milliseconds(20)) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  /// Whether the stream's work is done (a CUDA error is thrown).
  static bool ready(cudaStream_t stream) {
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaErrorNotReady) return false;
    WARPSORT_CUDA_CHECK(status);
    return true;
  }
  detail::deadline deadline_;
  const char* phase_ = "collective";
};

namespace detail {

/// Pinned host memory of the calling thread, at least `bytes` (grown on demand, kept for the
/// thread's life); `which` picks one of two blocks (1: all_gather's, whose copy back to the
/// device may still be queued when the caller goes on). Copies between the device and pageable
/// memory may wait for the stream inside the CUDA call, where no deadline can end the wait (a
/// peer that never comes leaves its collective on the stream); copies through pinned memory are
/// queued and then waited for by transport::wait.
inline unsigned char* pinned_scratch(std::size_t bytes, int which = 0) {
  struct block {
    unsigned char* ptr = nullptr;
    std::size_t size = 0;
    ~block() {
      if (ptr) (void)cudaFreeHost(ptr);
    }
  };
  thread_local block blocks[2];
  block& b = blocks[which];
  if (b.size < bytes) {
    if (b.ptr) WARPSORT_CUDA_CHECK(cudaFreeHost(b.ptr));
    b.ptr = nullptr;
    b.size = 0;
    void* p = nullptr;
    WARPSORT_CUDA_CHECK(cudaMallocHost(&p, bytes));
    b.ptr = static_cast<unsigned char*>(p);
    b.size = bytes;
  }
  return b.ptr;
}

}  // namespace detail

/// Every rank's `bytes` bytes at host `mine`, in rank order, into host `all` (size() x bytes):
/// through host memory where the transport gathers there, else through device scratch
/// `d_scratch` (size() + 1 x bytes) and the transport's all-gather. Every rank calls it; waits
/// within the transport's deadline.
inline void gather_to_host(transport& t, const void* mine, void* all, std::size_t bytes,
                           void* d_scratch, cudaStream_t stream, const char* phase) {
  if (t.gather_on_host(mine, all, bytes, stream, phase)) return;
  const std::size_t P = static_cast<std::size_t>(t.size());
  unsigned char* host = detail::pinned_scratch((P + 1) * bytes);
  auto* d = static_cast<unsigned char*>(d_scratch);
  std::memcpy(host + P * bytes, mine, bytes);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(d + P * bytes, host + P * bytes, bytes,
                                      cudaMemcpyHostToDevice, stream));
  t.all_gather(d + P * bytes, d, bytes, stream);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(host, d, P * bytes, cudaMemcpyDeviceToHost, stream));
  t.wait(stream, phase);
  std::memcpy(all, host, P * bytes);
}

namespace detail {

/// transport::all_gather of device buffers, through host memory where the transport gathers
/// there (gather_on_host: no collective to launch; the stream is drained first). The copy back
/// to `recv` is queued on the stream, not waited for.
inline void all_gather(transport& t, const void* send, void* recv, std::size_t bytes,
                       cudaStream_t stream, const char* phase) {
  if (!t.gathers_on_host(bytes)) {
    t.all_gather(send, recv, bytes, stream);
    return;
  }
  const std::size_t P = static_cast<std::size_t>(t.size());
  // the block is written below only once the stream is drained, so no copy from it is queued
  unsigned char* host = pinned_scratch((P + 1) * bytes, 1);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(host + P * bytes, send, bytes, cudaMemcpyDeviceToHost, stream));
  t.gather_on_host(host + P * bytes, host, bytes, stream, phase);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(recv, host, P * bytes, cudaMemcpyHostToDevice, stream));
}
/// `bytes` bytes at device `from` into host `to`, once the stream's work before is done;
/// waits within the deadline.
inline void read_to_host(transport& t, void* to, const void* from, std::size_t bytes,
                         cudaStream_t stream, const char* phase) {
  unsigned char* host = pinned_scratch(bytes);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(host, from, bytes, cudaMemcpyDeviceToHost, stream));
  t.wait(stream, phase);
  std::memcpy(to, host, bytes);
}

}  // namespace detail

}  // namespace warpsort::distributed

#pragma once
// Device memory the ranks of one host write into each other with copy engines, so that the
// keys' exchange moves no byte with an SM (NCCL's send and receive copy with SMs, which the
// receivers' merges then wait for). Each rank keeps a receive arena between calls; a sender
// copies its pieces into its peers' arenas (one cudaMemcpyBatchAsync a part, peer to peer) and
// records one event a part; a receiver's stream waits for its peers' events of a part before
// merging it.
// nccl_transport gives one over CUDA IPC (one process a GPU, one host); the tests' transport
// gives one within its process.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace warpsort::distributed {

class peer_memory {
 public:
  /// Parts a call's exchange may have (options::exchange_parts' limit).
  static constexpr int most_parts = 16;
  virtual ~peer_memory() = default;

  /// Bytes this rank's arena holds now (0 before the first reserve).
  virtual std::size_t arena_bytes() const = 0;
  /// This rank's arena now (null before the first reserve); the next reserve keeps it where it
  /// holds what every rank asks for it.
  virtual void* arena() const = 0;

  /// Every rank's arena, as this process reaches it.
  struct arenas {
    std::vector<unsigned char*> at;  // at[p]: rank p's arena (only this rank's where !direct)
    bool direct = false;             // whether this rank may copy into its peers' arenas
    std::vector<int> failed;         // ranks whose arena could not be allocated
  };
  /// Collective: every rank calls it with the same `bytes` (one a rank, computed alike from
  /// gathered counts); rank p's arena then holds at least bytes[p]. Queues on `stream` a wait
  /// for the last release_after. Where a rank's allocation failed, `failed` names it on every
  /// rank alike and nothing else may be used. `direct` is alike on every rank.
  virtual arenas reserve(const std::vector<std::size_t>& bytes, cudaStream_t stream,
                         const char* phase) = 0;
  /// The event rank p records once its copies of part k are done (p == this rank: record it;
  /// otherwise: wait for it, after barrier()).
  virtual cudaEvent_t sent(int rank, int part) = 0;
  /// Returns once every rank has reached it (within the transport's deadline): every rank's
  /// events of this call are recorded, so a wait queued after it waits for this call's copies.
  virtual void barrier(const char* phase) = 0;
  /// This rank's arena is read until the work queued on `stream` so far is done: the next
  /// reserve makes its stream wait for that, so no peer writes into it before.
  virtual void release_after(cudaStream_t stream) = 0;
};

}  // namespace warpsort::distributed

#pragma once
// peer_memory over CUDA IPC, for an NCCL communicator whose ranks are processes of one host:
// each rank's arena is a cudaMalloc allocation (the stream-ordered pool's memory cannot be
// opened by another process without exporting the pool), opened by every peer with
// cudaIpcOpenMemHandle; each rank's part events are interprocess events, opened alike. Handles
// travel through the transport's all-gather, only when an arena grows (and at the first call).
// Ranks on different hosts, or in one process, get direct = false (the arena then only holds
// this rank's received keys, and NCCL moves them). Ranks that get direct = true share a
// host_mailbox too, set up with the first announcement: the transport's small gathers and the
// exchange's barrier then go through host memory instead of NCCL.
#include "host_mailbox.hpp"

#include <warpsort/detail/distributed/peer_memory.hpp>
#include <warpsort/transport.hpp>

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace warpsort::distributed::detail {

class ipc_peer_memory final : public peer_memory {
 public:
  explicit ipc_peer_memory(transport& t);
  ~ipc_peer_memory() override;
  ipc_peer_memory(const ipc_peer_memory&) = delete;
  ipc_peer_memory& operator=(const ipc_peer_memory&) = delete;

  std::size_t arena_bytes() const override { return sizes_[static_cast<std::size_t>(me_)]; }
  void* arena() const override { return arena_; }
  arenas reserve(const std::vector<std::size_t>& bytes, cudaStream_t stream,
                 const char* phase) override;
  cudaEvent_t sent(int rank, int part) override;
  void barrier(const char* phase) override;
  void release_after(cudaStream_t stream) override;
  /// The ranks' shared mailbox, once every rank has opened it (alike on every rank); else null.
  host_mailbox* mailbox() const { return mailbox_ready_ ? mailbox_.get() : nullptr; }
  /// Marks the mailbox aborted, so that no peer waits on this rank in it.
  void abort() noexcept {
    if (mailbox_) mailbox_->abort();
  }

 private:
  /// What a rank tells its peers when an arena grows.
  struct announcement {
    std::uint64_t size;
    std::uint64_t host;
    std::int64_t process;
    std::int32_t status;  // 0: allocated; else the CUDA error of the allocation
    std::int32_t opened;  // second gather: 1 if this rank opened every peer's handles
    std::int32_t mailbox_open;  // second gather: 1 if this rank holds the mailbox
    std::array<char, 64> mailbox;  // rank 0: the mailbox's name (empty where it has none)
    cudaIpcMemHandle_t arena;
    std::array<cudaIpcEventHandle_t, most_parts> events;
  };
  void gather(announcement& mine, std::vector<announcement>& all, const char* phase);
  void close_peer(std::size_t p);
  void ensure_scratch();

  transport& t_;
  int me_ = 0;
  std::size_t P_ = 1;
  int device_ = 0;
  bool initialized_ = false;  // the first announcement was made
  bool ipc_ = true;           // the ranks are processes of one host, and opened every handle
  bool events_open_ = false;  // the peers' events are opened here
  bool direct_ = false;
  unsigned char* arena_ = nullptr;
  std::vector<std::size_t> sizes_;        // every rank's arena bytes, as last announced
  std::vector<unsigned char*> opened_;    // peers' arenas opened here (this rank's: arena_)
  std::vector<cudaEvent_t> events_;       // P x most_parts: this rank's created, peers' opened
  cudaEvent_t released_ = nullptr;        // release_after's mark
  bool release_pending_ = false;
  cudaStream_t control_ = nullptr;        // the barrier's and the gathers' own stream
  void* scratch_ = nullptr;               // device room for the gathers: P + 1 announcements
  std::unique_ptr<host_mailbox> mailbox_;  // made by rank 0, opened by the others
  bool mailbox_ready_ = false;             // every rank holds it
};

}  // namespace warpsort::distributed::detail

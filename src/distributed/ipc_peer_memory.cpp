#include "ipc_peer_memory.hpp"

#include <warpsort/error.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

namespace warpsort::distributed::detail {

namespace {

/// Alike for the processes of one host (its name and this boot), different across hosts.
std::uint64_t host_id() {
  char name[256] = {};
  (void)gethostname(name, sizeof name - 1);
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  return std::hash<std::string>{}(std::string(name) + "/" + boot);
}

constexpr std::size_t arena_granule = std::size_t{2} << 20;

}  // namespace

ipc_peer_memory::ipc_peer_memory(transport& t)
    : t_(t), me_(t.rank()), P_(static_cast<std::size_t>(t.size())), sizes_(P_, 0),
      opened_(P_, nullptr), events_(P_ * most_parts, nullptr) {
  WARPSORT_CUDA_CHECK(cudaGetDevice(&device_));
  WARPSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&control_, cudaStreamNonBlocking));
  WARPSORT_CUDA_CHECK(cudaEventCreateWithFlags(&released_, cudaEventDisableTiming));
  for (int k = 0; k < most_parts; ++k)
    WARPSORT_CUDA_CHECK(cudaEventCreateWithFlags(&events_[static_cast<std::size_t>(me_) * most_parts + k],
                                                 cudaEventDisableTiming | cudaEventInterprocess));
}

ipc_peer_memory::~ipc_peer_memory() {
  int previous = 0;
  (void)cudaGetDevice(&previous);
  (void)cudaSetDevice(device_);
  (void)cudaDeviceSynchronize();  // no copy into a peer's arena, or out of this one, is left
  for (std::size_t p = 0; p < P_; ++p)
    if (static_cast<int>(p) != me_) close_peer(p);
  for (cudaEvent_t e : events_)
    if (e) (void)cudaEventDestroy(e);
  if (released_) (void)cudaEventDestroy(released_);
  if (arena_) (void)cudaFree(arena_);
  if (scratch_) (void)cudaFree(scratch_);
  if (control_) (void)cudaStreamDestroy(control_);
  (void)cudaGetLastError();
  (void)cudaSetDevice(previous);
}

void ipc_peer_memory::close_peer(std::size_t p) {
  if (opened_[p]) (void)cudaIpcCloseMemHandle(opened_[p]);
  opened_[p] = nullptr;
}

void ipc_peer_memory::ensure_scratch() {
  if (scratch_) return;
  WARPSORT_CUDA_CHECK(cudaMalloc(&scratch_, (P_ + 1) * sizeof(announcement)));
}

void ipc_peer_memory::gather(announcement& mine, std::vector<announcement>& all,
                             const char* phase) {
  ensure_scratch();
  all.resize(P_);
  gather_to_host(t_, &mine, all.data(), sizeof(announcement), scratch_, control_, phase);
}

peer_memory::arenas ipc_peer_memory::reserve(const std::vector<std::size_t>& bytes,
                                             cudaStream_t stream, const char* phase) {
  if (bytes.size() != P_)
    throw input_error("warpsort::distributed: reserve needs one arena size a rank");
  if (release_pending_) WARPSORT_CUDA_CHECK(cudaStreamWaitEvent(stream, released_, 0));
  const std::size_t me = static_cast<std::size_t>(me_);
  bool grow = !initialized_;
  for (std::size_t p = 0; p < P_; ++p) grow = grow || bytes[p] > sizes_[p];
  if (grow) {
    announcement mine{};
    mine.host = host_id();
    mine.process = static_cast<std::int64_t>(getpid());
    if (bytes[me] > sizes_[me]) {
      // nothing reads or writes the arena now: its last readers (this rank's merges) are
      // behind the stream's wait above and the agreement before it, its writers behind those
      // (this rank's local sort begun before the agreement was waited for by the sort)
      if (arena_) WARPSORT_CUDA_CHECK(cudaFree(arena_));
      arena_ = nullptr;
      sizes_[me] = 0;
      const std::size_t want = (bytes[me] + arena_granule - 1) / arena_granule * arena_granule;
      void* p = nullptr;
      cudaError_t status = cudaMalloc(&p, want);
      if (status == cudaErrorMemoryAllocation) {
        // the stream-ordered pool may keep what the agreement counted as free: give it back
        (void)cudaGetLastError();
        cudaMemPool_t pool;
        WARPSORT_CUDA_CHECK(cudaDeviceGetMemPool(&pool, device_));
        WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
        WARPSORT_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
        status = cudaMalloc(&p, want);
      }
      if (status == cudaSuccess) {
        arena_ = static_cast<unsigned char*>(p);
        sizes_[me] = want;
      } else {
        (void)cudaGetLastError();
        mine.status = static_cast<std::int32_t>(status);
      }
    }
    mine.size = sizes_[me];
    if (arena_) WARPSORT_CUDA_CHECK(cudaIpcGetMemHandle(&mine.arena, arena_));
    for (int k = 0; k < most_parts; ++k)
      WARPSORT_CUDA_CHECK(cudaIpcGetEventHandle(&mine.events[static_cast<std::size_t>(k)],
                                                events_[me * most_parts + k]));
    if (!initialized_ && me_ == 0 && !mailbox_) {
      try {
        mailbox_ = host_mailbox::create(static_cast<int>(P_));
      } catch (const std::exception&) {
        mailbox_.reset();  // no shared memory here: the gathers stay NCCL's
      }
    }
    if (mailbox_ && me_ == 0)
      std::snprintf(mine.mailbox.data(), mine.mailbox.size(), "%s", mailbox_->name().c_str());
    std::vector<announcement> all;
    gather(mine, all, phase);
    std::vector<int> failed;
    for (std::size_t p = 0; p < P_; ++p)
      if (all[p].status != 0) failed.push_back(static_cast<int>(p));
    // IPC reaches the other processes of this host only
    for (std::size_t p = 0; p < P_; ++p)
      for (std::size_t q = p + 1; q < P_; ++q)
        if (all[p].host != all[q].host || all[p].process == all[q].process) ipc_ = false;
    for (std::size_t p = 0; p < P_; ++p) {
      if (p != me && all[p].size != sizes_[p]) close_peer(p);
      sizes_[p] = all[p].size;
    }
    if (!failed.empty()) {
      arenas out;
      out.failed = std::move(failed);
      out.at.assign(P_, nullptr);
      out.at[me] = arena_;
      return out;
    }
    initialized_ = true;
    if (ipc_) {  // open what changed; then every rank says whether it could
      std::int32_t opened = 1;
      for (std::size_t p = 0; p < P_ && opened; ++p) {
        if (p == me) continue;
        if (!opened_[p] && all[p].size > 0) {
          void* at = nullptr;
          if (cudaIpcOpenMemHandle(&at, all[p].arena, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess)
            opened_[p] = static_cast<unsigned char*>(at);
          else opened = 0;
        }
        for (int k = 0; k < most_parts && !events_open_ && opened; ++k)
          if (cudaIpcOpenEventHandle(&events_[p * most_parts + static_cast<std::size_t>(k)],
                                     all[p].events[static_cast<std::size_t>(k)]) != cudaSuccess)
            opened = 0;
      }
      (void)cudaGetLastError();
      mine.opened = opened;
      if (!mailbox_ && all[0].mailbox[0] != '\0') {
        try {
          mailbox_ = host_mailbox::open(all[0].mailbox.data(), me_, static_cast<int>(P_));
        } catch (const std::exception&) {
          mailbox_.reset();
        }
      }
      mine.mailbox_open = mailbox_ ? 1 : 0;
      gather(mine, all, phase);
      bool every_mailbox = true;
      for (std::size_t p = 0; p < P_; ++p) {
        ipc_ = ipc_ && all[p].opened == 1;
        every_mailbox = every_mailbox && all[p].mailbox_open == 1;
      }
      events_open_ = ipc_;
      mailbox_ready_ = ipc_ && every_mailbox;
    }
    if (mailbox_ && !mailbox_ready_) mailbox_.reset();  // one rank lacks it: no rank uses it
    if (mailbox_) mailbox_->unlink();  // every rank holds it: its name is no longer needed
    direct_ = ipc_;
  }
  arenas out;
  out.direct = direct_;
  out.at.assign(P_, nullptr);
  for (std::size_t p = 0; p < P_; ++p) out.at[p] = p == me ? arena_ : direct_ ? opened_[p] : nullptr;
  return out;
}

cudaEvent_t ipc_peer_memory::sent(int rank, int part) {
  if (rank < 0 || static_cast<std::size_t>(rank) >= P_ || part < 0 || part >= most_parts)
    throw input_error("warpsort::distributed: no such rank or part");
  return events_[static_cast<std::size_t>(rank) * most_parts + static_cast<std::size_t>(part)];
}

void ipc_peer_memory::barrier(const char* phase) {
  std::uint32_t word = 1;
  std::vector<std::uint32_t> words(P_);
  if (t_.gather_on_host(&word, words.data(), sizeof word, control_, phase)) return;
  ensure_scratch();
  auto* scratch = static_cast<std::uint32_t*>(scratch_);
  t_.all_gather(scratch + P_, scratch, sizeof(std::uint32_t), control_);
  t_.wait(control_, phase);
}

void ipc_peer_memory::release_after(cudaStream_t stream) {
  WARPSORT_CUDA_CHECK(cudaEventRecord(released_, stream));
  release_pending_ = true;
}

}  // namespace warpsort::distributed::detail

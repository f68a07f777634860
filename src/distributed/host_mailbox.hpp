#pragma once
// Small all-gathers between the processes of one host, through a POSIX shared-memory segment:
// the sort's agreements (statuses, samples, counts, the exchange's barrier) are a few kilobytes
// a rank, and a collective on a non-blocking NCCL communicator costs about a tenth of a
// millisecond of launch and polling where a gather through host memory costs microseconds once
// the rank's stream is drained. Each rank posts its bytes of gather g into its own slot (two
// buffers by the parity of g: a rank posts g + 1 only once every rank has posted g, so every
// rank has read g - 1) and raises its counter; a gather is complete once every rank's counter
// reaches g. A rank that gives up marks the segment aborted, and a peer whose process is gone
// is found, so that no wait outlives its peers.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace warpsort::distributed::detail {

class host_mailbox {
 public:
  /// Bytes a rank may post in one gather; larger gathers go through the device.
  static constexpr std::size_t slot_bytes = std::size_t{256} << 10;

  /// A new segment for `ranks` ranks under a fresh name, opened as rank 0; throws
  /// std::system_error where shared memory is not available.
  static std::unique_ptr<host_mailbox> create(int ranks);
  /// The segment `name` (made by create) opened as `rank`; throws std::system_error where it
  /// cannot be opened, std::runtime_error where it is not a mailbox of `ranks` ranks.
  static std::unique_ptr<host_mailbox> open(const std::string& name, int rank, int ranks);
  /// Marks this rank detached and unmaps the segment (and removes its name where this rank
  /// made it and has not yet).
  ~host_mailbox();
  host_mailbox(const host_mailbox&) = delete;
  host_mailbox& operator=(const host_mailbox&) = delete;

  const std::string& name() const { return name_; }
  /// Removes the segment's name (once every rank has opened it); the mapping stays.
  void unlink() noexcept;
  static bool fits(std::size_t bytes) { return bytes <= slot_bytes; }

  /// Posts this rank's `bytes` (<= slot_bytes) of its next gather.
  void post(const void* mine, std::size_t bytes);
  /// Whether every rank has posted the gather this rank posted last. Throws std::runtime_error
  /// where a rank aborted, detached, or its process is gone.
  bool arrived();
  /// Every rank's `bytes` of that gather, in rank order, into `all` (ranks x bytes).
  void collect(void* all, std::size_t bytes) const;
  /// Tells every rank that this one gave up: their waits throw.
  void abort() noexcept;

 private:
  host_mailbox(std::string name, int rank, int ranks, void* mapping, std::size_t mapping_bytes,
               bool owner);
  struct layout;
  layout& shared() const;
  unsigned char* slot(int rank, std::uint64_t gather) const;

  std::string name_;
  int rank_ = 0;
  int ranks_ = 1;
  void* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  bool linked_ = false;  // this rank made the name and has not removed it
  std::uint64_t gather_ = 0;  // the last gather this rank posted
  unsigned polls_ = 0;        // arrived() calls since the peers' processes were last checked
};

}  // namespace warpsort::distributed::detail

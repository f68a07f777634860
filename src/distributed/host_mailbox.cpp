#include "host_mailbox.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <system_error>

namespace warpsort::distributed::detail {

namespace {

constexpr std::uint64_t mailbox_magic = 0x786f626c69616d77ull;  // "wmailbox"
constexpr std::size_t line = 64;

static_assert(std::atomic<std::uint64_t>::is_always_lock_free &&
                  std::atomic<std::int64_t>::is_always_lock_free &&
                  std::atomic<std::uint32_t>::is_always_lock_free,
              "the mailbox's counters are shared between processes: they must be lock-free");

struct alignas(line) rank_state {
  std::atomic<std::uint64_t> posted;  // the last gather this rank posted
  std::atomic<std::int64_t> process;  // its process id; 0 once detached
};

std::size_t states_at() { return line; }
std::size_t data_at(int ranks) {
  const std::size_t end = states_at() + static_cast<std::size_t>(ranks) * sizeof(rank_state);
  return (end + 4095) / 4096 * 4096;
}
std::size_t mapping_size(int ranks) {
  return data_at(ranks) + static_cast<std::size_t>(ranks) * 2 * host_mailbox::slot_bytes;
}

[[noreturn]] void fail(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), "warpsort::distributed: " + what);
}

/// Whether process `id` exists and has not ended (a child not yet reaped by its parent is a
/// zombie, which kill() still reaches).
bool alive(pid_t id) {
  if (kill(id, 0) != 0 && errno == ESRCH) return false;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/stat", static_cast<long>(id));
  std::FILE* f = std::fopen(path, "r");
  if (!f) return true;  // no /proc here: kill() is all there is to ask
  char state = 0;
  // "pid (command) state ...": the state follows the command's last ')'
  char text[512] = {};
  const std::size_t got = std::fread(text, 1, sizeof text - 1, f);
  std::fclose(f);
  const char* close = nullptr;
  for (std::size_t i = 0; i < got; ++i)
    if (text[i] == ')') close = text + i;
  if (close && close[1] == ' ') state = close[2];
  return state != 'Z' && state != 'X';
}

/// Every `check_every` polls, whether each peer's process still exists.
constexpr unsigned check_every = 4096;

}  // namespace

struct host_mailbox::layout {
  std::uint64_t magic;
  std::uint32_t ranks;
  std::atomic<std::uint32_t> aborted;  // 0, or 1 + the rank that gave up
};

host_mailbox::layout& host_mailbox::shared() const { return *static_cast<layout*>(mapping_); }

unsigned char* host_mailbox::slot(int rank, std::uint64_t gather) const {
  return static_cast<unsigned char*>(mapping_) + data_at(ranks_) +
         (static_cast<std::size_t>(rank) * 2 + gather % 2) * slot_bytes;
}

host_mailbox::host_mailbox(std::string name, int rank, int ranks, void* mapping,
                           std::size_t mapping_bytes, bool owner)
    : name_(std::move(name)), rank_(rank), ranks_(ranks), mapping_(mapping),
      mapping_bytes_(mapping_bytes), linked_(owner) {}

std::unique_ptr<host_mailbox> host_mailbox::create(int ranks) {
  if (ranks < 1) throw std::invalid_argument("warpsort::distributed: a mailbox needs a rank");
  std::random_device entropy;
  const std::uint64_t tag = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
  char text[64];
  std::snprintf(text, sizeof text, "/warpsort-%ld-%016llx", static_cast<long>(getpid()),
                static_cast<unsigned long long>(tag));
  const std::string name(text);
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) fail("shm_open(" + name + ")");
  const std::size_t bytes = mapping_size(ranks);
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int code = errno;
    close(fd);
    shm_unlink(name.c_str());
    errno = code;
    fail("sizing the shared mailbox " + name);
  }
  void* at = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int code = errno;
  close(fd);
  if (at == MAP_FAILED) {
    shm_unlink(name.c_str());
    errno = code;
    fail("mapping the shared mailbox " + name);
  }
  // a fresh segment reads as zeros: every counter 0, every rank detached until it opens
  auto* head = static_cast<layout*>(at);
  head->ranks = static_cast<std::uint32_t>(ranks);
  auto* states = reinterpret_cast<rank_state*>(static_cast<unsigned char*>(at) + states_at());
  states[0].process.store(getpid(), std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  head->magic = mailbox_magic;
  return std::unique_ptr<host_mailbox>(new host_mailbox(name, 0, ranks, at, bytes, true));
}

std::unique_ptr<host_mailbox> host_mailbox::open(const std::string& name, int rank, int ranks) {
  if (rank < 0 || rank >= ranks)
    throw std::invalid_argument("warpsort::distributed: no rank " + std::to_string(rank) +
                                " in a mailbox of " + std::to_string(ranks));
  const int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) fail("shm_open(" + name + ")");
  struct stat st {};
  const std::size_t bytes = mapping_size(ranks);
  if (fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) != bytes) {
    close(fd);
    throw std::runtime_error("warpsort::distributed: " + name + " is not a mailbox of " +
                             std::to_string(ranks) + " ranks");
  }
  void* at = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int code = errno;
  close(fd);
  if (at == MAP_FAILED) {
    errno = code;
    fail("mapping the shared mailbox " + name);
  }
  auto* head = static_cast<layout*>(at);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (head->magic != mailbox_magic || head->ranks != static_cast<std::uint32_t>(ranks)) {
    munmap(at, bytes);
    throw std::runtime_error("warpsort::distributed: " + name + " is not a mailbox of " +
                             std::to_string(ranks) + " ranks");
  }
  auto* states = reinterpret_cast<rank_state*>(static_cast<unsigned char*>(at) + states_at());
  states[rank].process.store(getpid(), std::memory_order_release);
  return std::unique_ptr<host_mailbox>(new host_mailbox(name, rank, ranks, at, bytes, false));
}

host_mailbox::~host_mailbox() {
  auto* states = reinterpret_cast<rank_state*>(static_cast<unsigned char*>(mapping_) + states_at());
  states[rank_].process.store(0, std::memory_order_release);
  unlink();
  munmap(mapping_, mapping_bytes_);
}

void host_mailbox::unlink() noexcept {
  if (linked_) shm_unlink(name_.c_str());
  linked_ = false;
}

void host_mailbox::post(const void* mine, std::size_t bytes) {
  if (!fits(bytes))
    throw std::invalid_argument("warpsort::distributed: " + std::to_string(bytes) +
                                " bytes exceed the mailbox's slot");
  ++gather_;
  if (bytes > 0) std::memcpy(slot(rank_, gather_), mine, bytes);
  auto* states = reinterpret_cast<rank_state*>(static_cast<unsigned char*>(mapping_) + states_at());
  states[rank_].posted.store(gather_, std::memory_order_release);
}

bool host_mailbox::arrived() {
  const std::uint32_t aborted = shared().aborted.load(std::memory_order_acquire);
  if (aborted != 0)
    throw std::runtime_error("warpsort::distributed: rank " + std::to_string(aborted - 1) +
                             " gave up (its mailbox was marked aborted)");
  auto* states = reinterpret_cast<rank_state*>(static_cast<unsigned char*>(mapping_) + states_at());
  bool all = true;
  for (int p = 0; p < ranks_ && all; ++p)
    all = states[p].posted.load(std::memory_order_acquire) >= gather_;
  if (all) {
    polls_ = 0;
    return true;
  }
  if (++polls_ % check_every == 0)
    for (int p = 0; p < ranks_; ++p) {
      if (states[p].posted.load(std::memory_order_acquire) >= gather_) continue;
      const std::int64_t process = states[p].process.load(std::memory_order_acquire);
      if (process == 0)
        throw std::runtime_error("warpsort::distributed: rank " + std::to_string(p) +
                                 " left the mailbox (its transport was destroyed)");
      if (!alive(static_cast<pid_t>(process)))
        throw std::runtime_error("warpsort::distributed: rank " + std::to_string(p) +
                                 "'s process " + std::to_string(process) + " is gone");
    }
  return false;
}

void host_mailbox::collect(void* all, std::size_t bytes) const {
  if (bytes == 0) return;
  for (int p = 0; p < ranks_; ++p)
    std::memcpy(static_cast<unsigned char*>(all) + static_cast<std::size_t>(p) * bytes,
                slot(p, gather_), bytes);
}

void host_mailbox::abort() noexcept {
  std::uint32_t none = 0;
  shared().aborted.compare_exchange_strong(none, static_cast<std::uint32_t>(rank_) + 1,
                                           std::memory_order_acq_rel);
}

}  // namespace warpsort::distributed::detail

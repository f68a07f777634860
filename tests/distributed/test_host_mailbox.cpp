// CPU: the host mailbox the ranks of one host gather through (threads and a forked process as
// ranks): every rank's bytes in rank order over many gathers of changing sizes, and no wait
// that outlives a peer that aborted, left, or whose process is gone.
#include "host_mailbox.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

namespace {

using warpsort::distributed::detail::host_mailbox;

/// Polls until every rank has posted (or `limit` passes: a failure, not a hang).
void wait_for_all(host_mailbox& box, std::chrono::seconds limit = std::chrono::seconds(20)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!box.arrived()) {
    if (std::chrono::steady_clock::now() > until) throw std::runtime_error("test: gather stalled");
    std::this_thread::yield();
  }
}

/// Rank r's byte i of gather g.
unsigned char byte_of(int r, std::size_t g, std::size_t i) {
  return static_cast<unsigned char>(r * 131 + g * 7 + i * 13);
}

TEST(HostMailbox, GathersEveryRanksBytesInRankOrder) {
  for (const int P : {1, 2, 3, 5, 8}) {
    auto first = host_mailbox::create(P);
    std::vector<std::unique_ptr<host_mailbox>> boxes(P);
    boxes[0] = std::move(first);
    for (int r = 1; r < P; ++r) boxes[r] = host_mailbox::open(boxes[0]->name(), r, P);
    boxes[0]->unlink();
    // the same sizes on every rank, changing from gather to gather, the slot's size included
    std::vector<std::size_t> sizes = {0, 1, 7, 4096, host_mailbox::slot_bytes, 24, 3};
    for (std::size_t g = 0; g < 60; ++g) sizes.push_back((g * 7919) % 5000);
    std::vector<int> wrong(P, 0);
    std::vector<std::thread> ranks;
    for (int r = 0; r < P; ++r)
      ranks.emplace_back([&, r] {
        std::mt19937 pause(static_cast<unsigned>(r + 1));
        for (std::size_t g = 0; g < sizes.size(); ++g) {
          const std::size_t bytes = sizes[g];
          std::vector<unsigned char> mine(bytes), all(bytes * P);
          for (std::size_t i = 0; i < bytes; ++i) mine[i] = byte_of(r, g, i);
          if (pause() % 4 == 0) std::this_thread::sleep_for(std::chrono::microseconds(pause() % 300));
          boxes[r]->post(mine.data(), bytes);
          wait_for_all(*boxes[r]);
          boxes[r]->collect(all.data(), bytes);
          for (int p = 0; p < P; ++p)
            for (std::size_t i = 0; i < bytes; ++i)
              if (all[p * bytes + i] != byte_of(p, g, i)) ++wrong[r];
        }
      });
    for (auto& t : ranks) t.join();
    for (int r = 0; r < P; ++r) EXPECT_EQ(wrong[r], 0) << "P = " << P << ", rank " << r;
  }
}

TEST(HostMailbox, AnAbortedRankEndsItsPeersWaits) {
  auto a = host_mailbox::create(3);
  auto b = host_mailbox::open(a->name(), 1, 3);
  auto c = host_mailbox::open(a->name(), 2, 3);
  const int word = 1;
  a->post(&word, sizeof word);
  b->post(&word, sizeof word);
  EXPECT_FALSE(a->arrived());  // rank 2 has not posted
  c->abort();
  try {
    wait_for_all(*a);
    FAIL() << "the wait did not end";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 2 gave up"), std::string::npos) << e.what();
  }
  EXPECT_THROW(b->arrived(), std::runtime_error);
}

TEST(HostMailbox, ARankThatLeftIsFound) {
  auto a = host_mailbox::create(2);
  auto b = host_mailbox::open(a->name(), 1, 2);
  const int word = 1;
  b.reset();  // rank 1's transport is gone before it posts
  a->post(&word, sizeof word);
  try {
    wait_for_all(*a);
    FAIL() << "the wait did not end";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 left"), std::string::npos) << e.what();
  }
}

TEST(HostMailbox, ARankWhoseProcessIsGoneIsFound) {
  auto a = host_mailbox::create(2);
  const std::string name = a->name();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // rank 1: posts the first gather, then dies without detaching
    try {
      auto b = host_mailbox::open(name, 1, 2);
      const int word = 2;
      b->post(&word, sizeof word);
      (void)b.release();
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  // the child is left a zombie (not reaped) until the end: a process that ended counts as
  // gone before its parent reaps it
  for (int i = 0; i < 2000; ++i) {  // until it has ended (its /proc state reads Z)
    std::FILE* f = std::fopen(("/proc/" + std::to_string(child) + "/stat").c_str(), "r");
    if (!f) break;
    char text[256] = {};
    (void)std::fread(text, 1, sizeof text - 1, f);
    std::fclose(f);
    if (std::strstr(text, ") Z")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const int word = 1;
  a->post(&word, sizeof word);
  wait_for_all(*a);  // the child's post arrived before it died
  int all[2] = {};
  a->collect(all, sizeof word);
  EXPECT_EQ(all[0], 1);
  EXPECT_EQ(all[1], 2);
  a->post(&word, sizeof word);
  try {
    wait_for_all(*a);
    FAIL() << "the wait did not end";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is gone"), std::string::npos) << e.what();
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(HostMailbox, RefusesWhatItCannotHold) {
  auto a = host_mailbox::create(2);
  std::vector<unsigned char> big(host_mailbox::slot_bytes + 1);
  EXPECT_FALSE(host_mailbox::fits(big.size()));
  EXPECT_THROW(a->post(big.data(), big.size()), std::invalid_argument);
  EXPECT_THROW(host_mailbox::open(a->name(), 2, 2), std::invalid_argument);
  EXPECT_THROW(host_mailbox::open(a->name(), 1, 3), std::runtime_error);  // another rank count
  EXPECT_THROW(host_mailbox::create(0), std::invalid_argument);
  const std::string name = a->name();
  a->unlink();
  EXPECT_THROW(host_mailbox::open(name, 1, 2), std::system_error);  // the name is removed
  a.reset();
  const int fd = shm_open(name.c_str(), O_RDONLY, 0);
  EXPECT_LT(fd, 0);
  if (fd >= 0) close(fd);
}

}  // namespace

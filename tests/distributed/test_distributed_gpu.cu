// GPU: the distributed sort. Any P on one GPU through a test transport (P host threads, one
// stream each, copies between their buffers): every key type in both orders, distributions
// that stress the splitters, uneven and empty ranks, rebalancing, and the errors every rank must
// report alike. Through NCCL: P = 1 on one GPU, and P = every GPU of the machine with one
// process driving them (skipped, with the reason, on a machine of one GPU). The fuzz of every
// total 0..300 and 2^k +- 3 over P = 1..8 ranks with every layout of keys over the ranks (empty
// ranks anywhere, one rank with everything), and the deadline: a rank stalled on purpose ends
// its peers' waits with timeout_error naming the rank and phase. Skips without a GPU.
#include "cli/dist_fuzz.hpp"
#include "common/gpu_test.hpp"
#include "common/key_type_lists.hpp"
#include "common/test_inputs.hpp"
#include "distributed/thread_transport.hpp"

#include <warpsort/distributed.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace warpsort;
using warpsort::testing::make_typed_keys;

template <class Key, class Comp>
using bits_of = typename order_words_for<Key, Comp>::bits;

/// The words of a key (its order's), for comparing outputs bit for bit.
template <class Key, class Comp>
std::vector<bits_of<Key, Comp>> words(const std::vector<Key>& keys) {
  std::vector<bits_of<Key, Comp>> w(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    w[i] = order_words_for<Key, Comp>::to(keys[i]);
  return w;
}

struct rank_run {
  std::vector<std::uint8_t> output;  // raw bytes of the rank's output keys
  distributed::sort_result result;
  std::exception_ptr error;
};

/// How the keys move between the test's ranks: copied straight into the peers' arenas (the
/// default where the transport has arenas: by copy engines or, small pieces, by kernels), by
/// copy engines only, by kernels only, through the transport's exchange into the arenas, or
/// through the transport's exchange into the sort's own buffers (a transport without them).
enum class path { direct, copy_engines, sm_copies, transport_into_arenas, transport };
constexpr path every_path[] = {path::direct, path::copy_engines, path::sm_copies,
                               path::transport_into_arenas, path::transport};
const char* path_name(path how) {
  switch (how) {
    case path::direct: return "direct";
    case path::copy_engines: return "copy_engines";
    case path::sm_copies: return "sm_copies";
    case path::transport_into_arenas: return "transport_into_arenas";
    default: return "transport";
  }
}
/// Whether the keys move straight into the peers' arenas on this path.
bool is_direct(path how) { return how == path::direct || how == path::copy_engines || how == path::sm_copies; }
distributed::options on_path(distributed::options o, path how) {
  using exchange = distributed::options::exchange_path;
  o.exchange = how == path::direct         ? exchange::automatic
               : how == path::copy_engines ? exchange::copy_engines
               : how == path::sm_copies    ? exchange::sm_copies
                                           : exchange::transport;
  return o;
}

/// One call of a sequence on the same ranks: the inputs (one vector a rank), each rank's
/// capacity (empty: required_capacity, or the input count when rebalancing), whether every rank
/// must refuse it, the options and how the keys move.
template <class Key>
struct call_case {
  std::vector<std::vector<Key>> inputs;
  std::vector<std::size_t> capacity;
  bool refused = false;
  distributed::options o;
  path how = path::direct;
  std::string label;
};

/// What a sequence of calls left: every call's runs, every rank's keys as the refused calls
/// left them, and every rank's arena bytes before and after each call.
template <class Key>
struct calls_run {
  std::vector<std::vector<rank_run>> runs;
  std::vector<std::vector<std::vector<Key>>> left;
  std::vector<std::vector<std::size_t>> arena_before, arena_after;
};

/// Runs `calls` in order with P threads on one GPU, each rank on its own stream and transport
/// kept for all of them (so that later calls find the arenas of earlier ones; with arenas
/// unless the first call's keys move through the transport alone).
template <class Key, class Comp>
calls_run<Key> calls_on_threads(std::vector<call_case<Key>> calls) {
  const int P = static_cast<int>(calls.front().inputs.size());
  std::size_t most = 1;  // every rank's buffer: room for every call's input and capacity
  for (auto& c : calls) {
    std::size_t total = 0;
    for (const auto& v : c.inputs) total += v.size();
    for (int r = 0; c.capacity.size() < static_cast<std::size_t>(P); ++r) {
      const std::size_t n = c.inputs[r].size();
      const std::size_t bound = distributed::required_capacity(total, P, r, c.o);
      c.capacity.push_back(c.o.rebalance ? n : std::max(n, bound));
    }
    for (int r = 0; r < P; ++r) most = std::max({most, c.capacity[r], c.inputs[r].size()});
  }
  const bool with_arenas = calls.front().how != path::transport;
  warpsort::testing::thread_group group(P);
  calls_run<Key> out;
  out.runs.assign(calls.size(), std::vector<rank_run>(P));
  out.left.assign(calls.size(), std::vector<std::vector<Key>>(P));
  out.arena_before.assign(calls.size(), std::vector<std::size_t>(P));
  out.arena_after = out.arena_before;
  std::vector<std::thread> threads;
  for (int r = 0; r < P; ++r)
    threads.emplace_back([&, r] {
      std::size_t c = 0;
      try {
        WARPSORT_CUDA_CHECK(cudaSetDevice(0));
        cudaStream_t stream;
        WARPSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        warpsort::detail::device_buffer<Key> keys(most);
        warpsort::testing::thread_transport t(group, r, with_arenas);
        const auto arena_bytes = [&] { return t.peers() ? t.peers()->arena_bytes() : 0; };
        for (; c < calls.size(); ++c) {
          const std::vector<Key>& in = calls[c].inputs[r];
          rank_run& run = out.runs[c][r];
          // on the rank's stream: a copy from pageable memory may return before it lands, and
          // the sort's non-blocking stream would not wait for the default stream
          if (!in.empty())
            WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys.get(), in.data(), in.size() * sizeof(Key),
                                                cudaMemcpyHostToDevice, stream));
          out.arena_before[c][r] = arena_bytes();
          try {
            const distributed::options o = on_path(calls[c].o, calls[c].how);
            run.result = distributed::sort_keys<Key, Comp>(keys.get(), in.size(),
                                                           calls[c].capacity[r], t, stream,
                                                           Comp{}, o);
            WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
            run.output.resize(run.result.count * sizeof(Key));
            if (run.result.count)
              WARPSORT_CUDA_CHECK(cudaMemcpy(run.output.data(), keys.get(), run.output.size(),
                                             cudaMemcpyDeviceToHost));
          } catch (...) {
            run.error = std::current_exception();
            if (calls[c].refused) {  // refused before any work: nothing waits on a peer
              WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
              out.left[c][r] = warpsort::testing::to_host(keys.get(), in.size());
            }
          }
          out.arena_after[c][r] = arena_bytes();
        }
        cudaStreamDestroy(stream);
      } catch (...) {
        if (c < calls.size()) out.runs[c][r].error = std::current_exception();
        group.abort();  // a rank that fails outside the sort must not leave its peers waiting
      }
    });
  for (auto& th : threads) th.join();
  return out;
}

/// Sorts `inputs` (one vector a rank) with P threads on one GPU; capacity per rank as given
/// (empty: required_capacity, or the input count when rebalancing).
template <class Key, class Comp>
std::vector<rank_run> sort_on_threads(const std::vector<std::vector<Key>>& inputs,
                                      const distributed::options& o,
                                      std::vector<std::size_t> capacity = {},
                                      path how = path::direct) {
  return calls_on_threads<Key, Comp>({{inputs, std::move(capacity), false, o, how, ""}})
      .runs.front();
}

std::string what(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  }
  return "?";
}

/// Every rank's output in rank order is the sorted input (bit for bit in the order's words),
/// counts are as reported, and the largest rank holds at most `largest_over_mean` x the mean.
template <class Key, class Comp>
void expect_sorted_whole(const std::vector<std::vector<Key>>& inputs,
                         const std::vector<rank_run>& runs, const distributed::options& o,
                         const std::string& label) {
  const std::size_t P = inputs.size();
  std::vector<Key> all;
  for (const auto& v : inputs) all.insert(all.end(), v.begin(), v.end());
  auto expected = words<Key, Comp>(all);
  std::sort(expected.begin(), expected.end());
  std::vector<Key> joined;
  bool failed = false;  // every rank's error, not only the first (the others may only say "aborted")
  for (std::size_t r = 0; r < P; ++r)
    if (runs[r].error) {
      ADD_FAILURE() << label << ": rank " << r << ": " << what(runs[r].error);
      failed = true;
    }
  if (failed) return;
  for (std::size_t r = 0; r < P; ++r) {
    const auto& res = runs[r].result;
    ASSERT_EQ(res.counts.size(), P) << label;
    EXPECT_EQ(res.count, res.counts[r]) << label;
    if (o.rebalance) {
      EXPECT_EQ(res.count, inputs[r].size()) << label << ": rank " << r;
    }
    std::vector<Key> out(res.count);
    if (res.count) std::memcpy(out.data(), runs[r].output.data(), res.count * sizeof(Key));
    joined.insert(joined.end(), out.begin(), out.end());
    if (!o.rebalance && !all.empty()) {
      const std::size_t bound = distributed::required_capacity(all.size(), static_cast<int>(P),
                                                               static_cast<int>(r), o);
      EXPECT_LE(res.count, bound) << label << ": rank " << r;
    }
  }
  ASSERT_EQ(joined.size(), all.size()) << label;
  EXPECT_EQ((words<Key, Comp>(joined)), expected) << label;
}

template <class Key, class Comp>
std::vector<std::vector<Key>> make_inputs(const std::string& dist,
                                          const std::vector<std::size_t>& counts,
                                          std::uint64_t seed) {
  std::vector<std::vector<Key>> inputs;
  std::uint64_t s = seed;
  for (std::size_t n : counts) inputs.push_back(make_typed_keys<Key>(dist, n, s++));
  if (dist == "all_equal")  // one key everywhere, not one per rank
    for (auto& v : inputs) std::fill(v.begin(), v.end(), inputs[0].empty() ? Key{} : inputs[0][0]);
  return inputs;
}

template <class T>
class DistributedKeys : public ::testing::Test {};
TYPED_TEST_SUITE(DistributedKeys, warpsort::testing::all_key_types);

TYPED_TEST(DistributedKeys, AnyRanksEveryDistributionBothOrders) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  const auto run = [&](auto comp, int P, const std::string& dist,
                       const std::vector<std::size_t>& counts, bool rebalance) {
    using Comp = decltype(comp);
    distributed::options o;
    o.rebalance = rebalance;
    o.gather_all = distributed::options::gather_path::never;  // the exchange (the gathered path: below)
    const auto inputs = make_inputs<Key, Comp>(dist, counts, 100 + P);
    const auto runs = sort_on_threads<Key, Comp>(inputs, o);
    std::string label = "P " + std::to_string(P) + " " + dist + (rebalance ? " rebalanced" : "") +
                        " counts";
    for (auto c : counts) label += " " + std::to_string(c);
    expect_sorted_whole<Key, Comp>(inputs, runs, o, label);
  };
  for (int P : {1, 2, 3, 4, 8})
    for (const std::string dist : {"uniform", "all_equal", "eight_distinct", "sorted", "specials"})
      for (bool rebalance : {false, true}) {
        run(less<Key>{}, P, dist, std::vector<std::size_t>(P, 20011), rebalance);
        run(greater<Key>{}, P, dist, std::vector<std::size_t>(P, 1000), rebalance);
      }
  // uneven and empty ranks, tiny and empty totals
  for (int P : {2, 3, 8}) {
    std::vector<std::size_t> uneven(P);
    for (int r = 0; r < P; ++r) uneven[r] = r % 3 == 1 ? 0 : 5000 * static_cast<std::size_t>(r + 1) + 7;
    for (bool rebalance : {false, true}) {
      run(less<Key>{}, P, "uniform", uneven, rebalance);
      run(greater<Key>{}, P, "all_equal", uneven, rebalance);
      run(less<Key>{}, P, "uniform", std::vector<std::size_t>(P, 0), rebalance);
      std::vector<std::size_t> one(P, 0);
      one[P - 1] = 1;
      run(less<Key>{}, P, "uniform", one, rebalance);
      run(less<Key>{}, P, "uniform", std::vector<std::size_t>(P, 129), rebalance);
    }
  }
}

// The two-copy memory plan (options::memory_plan::two_copies, what the largest totals take):
// the local sort ping-pongs through the receive arena, every piece (a rank's own too) is copied
// into the arenas in one round, and the merges write over the sequences in the caller's buffer.
TYPED_TEST(DistributedKeys, TwoCopyMemoryPlanOnAnyRanks) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  const auto run = [&](auto comp, int P, const std::string& dist,
                       const std::vector<std::size_t>& counts, path how) {
    using Comp = decltype(comp);
    distributed::options o;
    o.memory = distributed::options::memory_plan::two_copies;
    const auto inputs = make_inputs<Key, Comp>(dist, counts, 500 + P);
    const auto runs = sort_on_threads<Key, Comp>(inputs, o, {}, how);
    std::string label = "two copies P " + std::to_string(P) + " " + dist + " path " +
                        path_name(how) + " counts";
    for (auto c : counts) label += " " + std::to_string(c);
    std::size_t total = 0;
    for (auto c : counts) total += c;
    for (int r = 0; r < P; ++r)
      if (!runs[static_cast<std::size_t>(r)].error)
        EXPECT_EQ(runs[static_cast<std::size_t>(r)].result.two_copies, P > 1 && total > 0)
            << label << ": rank " << r;
    expect_sorted_whole<Key, Comp>(inputs, runs, o, label);
  };
  for (int P : {1, 2, 3, 5, 8})
    for (const std::string dist : {"uniform", "all_equal", "sorted", "specials"}) {
      run(less<Key>{}, P, dist, std::vector<std::size_t>(P, 20011), path::direct);
      run(greater<Key>{}, P, dist, std::vector<std::size_t>(P, 3001), path::copy_engines);
    }
  for (int P : {2, 3, 8}) {  // uneven and empty ranks, both direct ways
    std::vector<std::size_t> uneven(P);
    for (int r = 0; r < P; ++r) uneven[r] = r % 3 == 1 ? 0 : 5000 * static_cast<std::size_t>(r + 1) + 7;
    for (path how : {path::copy_engines, path::sm_copies}) {
      run(less<Key>{}, P, "uniform", uneven, how);
      run(greater<Key>{}, P, "eight_distinct", uneven, how);
      std::vector<std::size_t> one(P, 0);
      one[0] = 70001;  // one rank holds every key: its arena is the others' whole output
      run(less<Key>{}, P, "uniform", one, how);
    }
  }
  // merges of many waves of blocks, where a piece read from the buffer the merge writes would
  // be read after earlier blocks had written over it (capped for compute-sanitizer runs)
  for (std::size_t per_rank : warpsort::testing::capped({std::size_t{1} << 21}))
    for (int P : {2, 4}) {
      run(less<Key>{}, P, "uniform", std::vector<std::size_t>(P, per_rank + 3), path::direct);
      std::vector<std::size_t> one(P, 0);
      one[0] = 2 * per_rank;
      run(greater<Key>{}, P, "uniform", one, path::copy_engines);
    }
}

TEST(Distributed, TwoCopyMemoryPlanIsRefusedAlikeWhereItCannotRun) {
  WARPSORT_REQUIRE_GPU();
  using Key = std::uint32_t;
  const int P = 3;
  const auto inputs = make_inputs<Key, less<Key>>("uniform", {1000, 2000, 3000}, 7);
  const auto refused_everywhere = [&](const distributed::options& o, path how, const char* why) {
    const auto runs = sort_on_threads<Key, less<Key>>(inputs, o, {}, how);
    for (int r = 0; r < P; ++r) {
      const auto& e = runs[static_cast<std::size_t>(r)].error;
      ASSERT_TRUE(e) << why << ": rank " << r << " did not refuse";
      EXPECT_NE(what(e).find("two"), std::string::npos) << why << ": rank " << r << ": " << what(e);
    }
  };
  distributed::options o;
  o.memory = distributed::options::memory_plan::two_copies;
  refused_everywhere(o, path::transport, "no arenas");
  o.rebalance = true;
  refused_everywhere(o, path::direct, "rebalancing");
}

// The gathered path (options::gather_all, small totals): every rank's sorted share copied into
// every peer's arena, each rank merging its own slice of all the keys. Its output counts are the
// exact shares (the input counts with rebalancing), and automatic takes it for small totals.
TYPED_TEST(DistributedKeys, GatheredMergeOnAnyRanks) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  using gather = distributed::options::gather_path;
  const auto run = [&](auto comp, int P, const std::string& dist,
                       const std::vector<std::size_t>& counts, bool rebalance, path how,
                       gather asked = gather::always, int pieces = 0) {
    using Comp = decltype(comp);
    distributed::options o;
    o.rebalance = rebalance;
    o.gather_all = asked;
    o.gather_pieces = pieces;
    const auto inputs = make_inputs<Key, Comp>(dist, counts, 700 + P);
    const auto runs = sort_on_threads<Key, Comp>(inputs, o, {}, how);
    std::string label = "gathered P " + std::to_string(P) + " " + dist +
                        (rebalance ? " rebalanced" : "") + " path " + path_name(how) + " pieces " +
                        std::to_string(pieces) + " counts";
    for (auto c : counts) label += " " + std::to_string(c);
    std::size_t total = 0;
    for (auto c : counts) total += c;
    for (int r = 0; r < P; ++r) {
      const rank_run& one = runs[static_cast<std::size_t>(r)];
      if (one.error) continue;  // expect_sorted_whole names it
      EXPECT_EQ(one.result.gathered, P > 1 && total > 0) << label << ": rank " << r;
      if (!one.result.gathered) continue;
      const std::size_t share =
          rebalance ? counts[static_cast<std::size_t>(r)]
                    : distributed::balanced_start(r + 1, P, total) - distributed::balanced_start(r, P, total);
      EXPECT_EQ(one.result.count, share) << label << ": rank " << r << " (exact shares)";
      if (counts[static_cast<std::size_t>(r)] > 0) {  // at most as asked (and as its sequences)
        EXPECT_GE(one.result.gather_pieces, std::size_t{1}) << label << ": rank " << r;
        if (pieces > 0) EXPECT_LE(one.result.gather_pieces, static_cast<std::size_t>(pieces)) << label;
      }
    }
    expect_sorted_whole<Key, Comp>(inputs, runs, o, label);
  };
  for (int P : {1, 2, 3, 5, 8})
    for (const std::string dist : {"uniform", "all_equal", "eight_distinct", "sorted", "specials"})
      for (bool rebalance : {false, true}) {
        run(less<Key>{}, P, dist, std::vector<std::size_t>(P, 20011), rebalance, path::direct);
        run(greater<Key>{}, P, dist, std::vector<std::size_t>(P, 3001), rebalance, path::sm_copies);
      }
  for (int P : {2, 3, 8}) {  // uneven and empty ranks, one rank holding every key, both copies
    std::vector<std::size_t> uneven(P);
    for (int r = 0; r < P; ++r) uneven[r] = r % 3 == 1 ? 0 : 5000 * static_cast<std::size_t>(r + 1) + 7;
    std::vector<std::size_t> one(P, 0);
    one[0] = 70001;
    std::vector<std::size_t> few(P, 0);
    few[P - 1] = 1;  // fewer keys than ranks: most shares empty
    for (path how : {path::copy_engines, path::sm_copies})
      for (bool rebalance : {false, true}) {
        run(less<Key>{}, P, "uniform", uneven, rebalance, how);
        run(greater<Key>{}, P, "eight_distinct", uneven, rebalance, how);
        run(less<Key>{}, P, "uniform", one, rebalance, how);
        run(less<Key>{}, P, "uniform", few, rebalance, how);
      }
  }
  // the local sort in ranges of sequences, each sent while the next sorts: two, three, more
  // ranges than sequences; uneven and empty ranks
  for (int P : {2, 3, 5})
    for (int pieces : {2, 3, 64})
      for (const std::string dist : {"uniform", "sorted", "eight_distinct"}) {
        std::vector<std::size_t> uneven(P);
        for (int r = 0; r < P; ++r) uneven[r] = r % 3 == 1 ? 0 : 30011 * static_cast<std::size_t>(r + 1);
        run(less<Key>{}, P, dist, uneven, false, path::direct, gather::always, pieces);
        run(greater<Key>{}, P, dist, std::vector<std::size_t>(P, 65537), true, path::sm_copies,
            gather::always, pieces);
      }
  // many groups, slices ending inside groups (capped for compute-sanitizer runs); automatic
  // takes the gathered path at these totals
  for (std::size_t per_rank : warpsort::testing::capped({std::size_t{1} << 20}))
    for (int P : {2, 4}) {
      run(less<Key>{}, P, "uniform", std::vector<std::size_t>(P, per_rank + 3), false, path::direct,
          gather::automatic);
      run(less<Key>{}, P, "uniform", std::vector<std::size_t>(P, per_rank - 5), false, path::direct,
          gather::always, 4);
      std::vector<std::size_t> lopsided(P, per_rank / 8);
      lopsided[0] = 2 * per_rank + 1;
      run(greater<Key>{}, P, "all_equal", lopsided, true, path::copy_engines);
    }
}

/// What P ranks of sort_pairs left: each rank's keys and values, or its error.
template <class Key, class Value>
struct pairs_run {
  std::vector<std::vector<Key>> keys;
  std::vector<std::vector<Value>> values;
  std::vector<std::string> errors;
};

/// Pairs on P threads: keys with their global input index (rank offset + position) as values.
template <class Key, class Value, class Comp>
pairs_run<Key, Value> pairs_on_threads(const std::vector<std::vector<Key>>& inputs,
                                       const distributed::options& o, path how) {
  const int P = static_cast<int>(inputs.size());
  std::size_t total = 0;
  for (const auto& v : inputs) total += v.size();
  std::vector<std::size_t> capacity;
  for (int r = 0; r < P; ++r)
    capacity.push_back(o.rebalance ? inputs[r].size()
                                   : std::max(inputs[r].size(),
                                              distributed::required_capacity(total, P, r, o)));
  warpsort::testing::thread_group group(P);
  pairs_run<Key, Value> run{std::vector<std::vector<Key>>(P), std::vector<std::vector<Value>>(P),
                            std::vector<std::string>(P)};
  std::vector<std::thread> threads;
  for (int r = 0; r < P; ++r)
    threads.emplace_back([&, r] {
      try {
        WARPSORT_CUDA_CHECK(cudaSetDevice(0));
        std::size_t offset = 0;
        for (int q = 0; q < r; ++q) offset += inputs[q].size();
        std::vector<Value> index(inputs[r].size());
        for (std::size_t i = 0; i < index.size(); ++i) index[i] = static_cast<Value>(offset + i);
        const std::size_t cap = std::max<std::size_t>(capacity[r], 1);
        warpsort::detail::device_buffer<Key> keys(cap);
        warpsort::detail::device_buffer<Value> values(cap);
        cudaStream_t stream;
        WARPSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        if (!index.empty()) {  // on the rank's stream (see sort_on_threads)
          WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys.get(), inputs[r].data(),
                                              index.size() * sizeof(Key), cudaMemcpyHostToDevice,
                                              stream));
          WARPSORT_CUDA_CHECK(cudaMemcpyAsync(values.get(), index.data(),
                                              index.size() * sizeof(Value), cudaMemcpyHostToDevice,
                                              stream));
        }
        warpsort::testing::thread_transport t(group, r, how != path::transport);
        const auto res = distributed::sort_pairs<Key, Value, Comp>(
            keys.get(), values.get(), inputs[r].size(), capacity[r], t, stream, Comp{}, o);
        if (res.copy_engines != (is_direct(how) && P > 1 && total > 0))
          throw std::runtime_error(std::string("copy_engines is ") +
                                   (res.copy_engines ? "set" : "unset") + " on path " + path_name(how));
        WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
        WARPSORT_CUDA_CHECK(cudaStreamDestroy(stream));
        run.keys[r] = warpsort::testing::to_host(keys.get(), res.count);
        run.values[r] = warpsort::testing::to_host(values.get(), res.count);
      } catch (const std::exception& e) {
        run.errors[r] = e.what();
        group.abort();
      }
    });
  for (auto& th : threads) th.join();
  return run;
}

// Later calls on the same ranks sort the gathered path's first range while the ranks agree
// (the arena of an earlier call holds it): used where the call takes the gathered path with the
// same arena and ranges, else only waited for; a call refused meanwhile leaves every rank's keys
// as they were.
TYPED_TEST(DistributedKeys, CallsOnTheSameRanksSortBeforeTheyAgree) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  using gather = distributed::options::gather_path;
  const auto check = [&](auto comp, int P, const std::string& dist) {
    using Comp = decltype(comp);
    std::vector<call_case<Key>> calls;
    std::uint64_t seed = 900 + static_cast<std::uint64_t>(P);
    const auto add = [&](std::vector<std::size_t> counts, const std::string& name,
                         distributed::options o = {}, std::vector<std::size_t> capacity = {},
                         bool refused = false) {
      calls.push_back({make_inputs<Key, Comp>(dist, counts, seed++), std::move(capacity), refused,
                       o, path::direct, name});
    };
    // enough keys a rank that its local sort runs merge rounds (whose ping-pong could write the
    // caller's keys) for every key type
    const std::vector<std::size_t> even(P, 200003);
    distributed::options pieces;
    pieces.gather_pieces = 3;
    const int refusing = std::min(1, P - 1);  // its capacity short: every rank must refuse
    std::vector<std::size_t> too_small(P);
    for (int r = 0; r < P; ++r) too_small[r] = r == refusing ? even[r] - 1 : 4 * even[r];
    std::vector<std::size_t> with_empty = even;
    with_empty[0] = 0;
    distributed::options exchange;
    exchange.gather_all = gather::never;
    add(even, "first call (the arena grows)");
    add(even, "second call");
    add(even, "three ranges", pieces);
    add(even, "three ranges again", pieces);
    add(even, "refused by one rank", {}, too_small, true);
    add(even, "after the refusal");
    add(std::vector<std::size_t>(P, 300007), "more keys (the arena grows)");
    add(std::vector<std::size_t>(P, 300007), "more keys again");
    add(with_empty, "an empty rank");
    add(even, "the exchange", exchange);
    add(std::vector<std::size_t>(P, 33), "few keys");
    const calls_run<Key> done = calls_on_threads<Key, Comp>(calls);
    for (std::size_t c = 0; c < calls.size(); ++c) {
      const std::string label = "P " + std::to_string(P) + " " + dist + ", call " +
                                std::to_string(c) + ": " + calls[c].label;
      if (calls[c].refused) {
        for (std::size_t r = 0; r < static_cast<std::size_t>(P); ++r) {
          const auto& e = done.runs[c][r].error;
          ASSERT_TRUE(e) << label << ": rank " << r << " did not refuse";
          EXPECT_NE(what(e).find("capacity"), std::string::npos) << label << ": " << what(e);
          EXPECT_EQ((words<Key, Comp>(done.left[c][r])), (words<Key, Comp>(calls[c].inputs[r])))
              << label << ": rank " << r << "'s keys changed";
        }
        continue;
      }
      expect_sorted_whole<Key, Comp>(calls[c].inputs, done.runs[c], calls[c].o, label);
      // the same counts and options as the call before: its arena holds this call's own region
      bool as_before = c > 0 && !calls[c - 1].refused &&
                       calls[c].o.gather_pieces == calls[c - 1].o.gather_pieces &&
                       calls[c].o.gather_all == calls[c - 1].o.gather_all;
      for (std::size_t r = 0; as_before && r < static_cast<std::size_t>(P); ++r)
        as_before = calls[c].inputs[r].size() == calls[c - 1].inputs[r].size();
      for (std::size_t r = 0; r < static_cast<std::size_t>(P); ++r) {
        const rank_run& run = done.runs[c][r];
        if (run.error) continue;  // expect_sorted_whole names it
        const bool used = run.result.sorted_before_agreement;
        const bool has_keys = !calls[c].inputs[r].empty();
        EXPECT_EQ(run.result.gathered, P > 1 && calls[c].o.gather_all != gather::never) << label;
        if (used) {
          EXPECT_TRUE(run.result.gathered && has_keys) << label << ": rank " << r;
          EXPECT_EQ(done.arena_after[c][r], done.arena_before[c][r])
              << label << ": rank " << r << " used a sort in an arena that was replaced";
        }
        if (as_before && run.result.gathered && has_keys)
          EXPECT_TRUE(used) << label << ": rank " << r << " did not sort before the agreement";
      }
    }
  };
  for (int P : {2, 3, 4, 8}) {
    check(less<Key>{}, P, "uniform");
    check(greater<Key>{}, P, "specials");
  }
  check(less<Key>{}, 1, "uniform");  // one rank: the single-GPU sort, nothing sorted early
  check(less<Key>{}, 5, "eight_distinct");
}

TEST(Distributed, GatheredMergeIsRefusedAlikeWhereItCannotRun) {
  WARPSORT_REQUIRE_GPU();
  using Key = std::uint32_t;
  const int P = 3;
  distributed::options o;
  o.gather_all = distributed::options::gather_path::always;
  const auto inputs = make_inputs<Key, less<Key>>("uniform", {1000, 2000, 3000}, 7);
  for (path how : {path::transport, path::transport_into_arenas}) {  // no copies into arenas
    const auto runs = sort_on_threads<Key, less<Key>>(inputs, on_path(o, how), {}, how);
    for (int r = 0; r < P; ++r) {
      const auto& e = runs[static_cast<std::size_t>(r)].error;
      ASSERT_TRUE(e) << path_name(how) << ": rank " << r << " did not refuse";
      EXPECT_NE(what(e).find("gather_all"), std::string::npos) << path_name(how) << ": " << what(e);
    }
  }
  const auto pairs = pairs_on_threads<Key, std::uint32_t, less<Key>>(inputs, o, path::direct);
  for (int r = 0; r < P; ++r)
    EXPECT_NE(pairs.errors[static_cast<std::size_t>(r)].find("gather_all"), std::string::npos)
        << "pairs: rank " << r << ": " << pairs.errors[static_cast<std::size_t>(r)];
}

/// The run against a stable sort of (key, global index) by Comp: every value (its input index)
/// in that order, every key bit for bit the input's.
template <class Key, class Value, class Comp>
void expect_stable_order(const std::vector<std::vector<Key>>& inputs,
                         const pairs_run<Key, Value>& run, bool rebalance, const std::string& label) {
  const int P = static_cast<int>(inputs.size());
  std::string failures;  // every rank's, so the first error is among them
  for (int r = 0; r < P; ++r)
    if (!run.errors[r].empty()) failures += "\n  rank " + std::to_string(r) + ": " + run.errors[r];
  ASSERT_EQ(failures, "") << label;
  std::vector<Key> all;
  for (const auto& v : inputs) all.insert(all.end(), v.begin(), v.end());
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return Comp{}(all[a], all[b]); });
  std::vector<Value> got_values;
  std::vector<Key> got_keys;
  for (int r = 0; r < P; ++r) {
    if (rebalance) {
      EXPECT_EQ(run.keys[r].size(), inputs[r].size()) << label;
    }
    got_keys.insert(got_keys.end(), run.keys[r].begin(), run.keys[r].end());
    got_values.insert(got_values.end(), run.values[r].begin(), run.values[r].end());
  }
  ASSERT_EQ(got_values.size(), order.size()) << label;
  for (std::size_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(static_cast<std::size_t>(got_values[i]), order[i])
        << label << ": position " << i << " (stable order of equal keys across ranks)";
    ASSERT_EQ(std::memcmp(&got_keys[i], &all[order[i]], sizeof(Key)), 0)
        << label << ": key at " << i << " is not its input's bits";
  }
}

template <class Key, class Value, class Comp>
void expect_stable_pairs(int P, const std::string& dist, const std::vector<std::size_t>& counts,
                         bool rebalance, double timeout_seconds = 0, int exchange_parts = 0,
                         distributed::local_algorithm local_sort = {}, path how = path::direct) {
  distributed::options o;
  o.exchange = on_path(o, how).exchange;
  o.rebalance = rebalance;
  o.timeout_seconds = timeout_seconds;
  o.exchange_parts = exchange_parts;
  o.local_sort = local_sort;
  const auto inputs = make_inputs<Key, Comp>(dist, counts, 300 + P);
  const auto run = pairs_on_threads<Key, Value, Comp>(inputs, o, how);
  expect_stable_order<Key, Value, Comp>(inputs, run, rebalance,
                                        "pairs P " + std::to_string(P) + " " + dist +
                                            (rebalance ? " rebalanced" : "") + " path " +
                                            path_name(how));
}

TEST(DistributedPairs, FloatZerosOfBothSignsAreRefusedAlikeOrKeptInOrder) {
  WARPSORT_REQUIRE_GPU();
  // -0.0 and +0.0 are equal keys: their pairs must keep their input order. The words the ranks
  // exchange keep a float's bits (-0.0 would come first), so several ranks refuse such input,
  // every rank alike; one rank (the single-GPU sort) and zeros of one sign sort stably.
  const auto zeros = [](int P, int minus_at, int plus_at) {
    std::vector<std::vector<float>> in(P);
    for (int r = 0; r < P; ++r)
      for (int i = 0; i < 3000; ++i) in[r].push_back(static_cast<float>((i * 7919 + r) % 1000) - 500.0f);
    in[plus_at].insert(in[plus_at].begin() + 10, 3, +0.0f);  // before the -0.0 when both on one rank
    in[minus_at].insert(in[minus_at].end() - 10, 3, -0.0f);
    return in;
  };
  distributed::options o;
  for (int P : {2, 3})
    for (auto [minus_at, plus_at] : {std::pair{0, P - 1}, std::pair{P - 1, 0}, std::pair{1, 1}}) {
      const auto inputs = zeros(P, minus_at, plus_at);
      const std::string label = "P " + std::to_string(P) + " -0.0 on rank " +
                                std::to_string(minus_at) + ", +0.0 on rank " + std::to_string(plus_at);
      const auto run = pairs_on_threads<float, std::uint32_t, less<float>>(inputs, o, path::direct);
      for (int r = 0; r < P; ++r) {
        EXPECT_NE(run.errors[r].find("-0.0 and +0.0"), std::string::npos)
            << label << ": rank " << r << " did not refuse: " << run.errors[r];
        EXPECT_TRUE(run.keys[r].empty()) << label << ": rank " << r;
      }
    }
  // one rank sorts by the comparator, which keeps both zeros' input order: every local sort,
  // both orders, both float widths
  const auto one = zeros(1, 0, 0);
  std::vector<std::vector<double>> one_double(1);
  for (float k : one[0]) one_double[0].push_back(static_cast<double>(k));
  for (auto local : {distributed::local_algorithm::warpsort, distributed::local_algorithm::cub_radix,
                     distributed::local_algorithm::cub_merge}) {
    distributed::options lo;
    lo.local_sort = local;
    const std::string label =
        std::string("one rank, both zeros, local sort ") +
        (local == distributed::local_algorithm::warpsort    ? "warpsort"
         : local == distributed::local_algorithm::cub_radix ? "cub_radix"
                                                             : "cub_merge");
    expect_stable_order<float, std::uint32_t, less<float>>(
        one, pairs_on_threads<float, std::uint32_t, less<float>>(one, lo, path::direct), false,
        label + ", float ascending");
    expect_stable_order<float, std::uint64_t, greater<float>>(
        one, pairs_on_threads<float, std::uint64_t, greater<float>>(one, lo, path::direct), false,
        label + ", float descending");
    expect_stable_order<double, std::uint32_t, greater<double>>(
        one_double,
        pairs_on_threads<double, std::uint32_t, greater<double>>(one_double, lo, path::direct),
        false, label + ", double descending");
  }
  // zeros of one sign on several ranks: sorted, stably
  for (float z : {-0.0f, +0.0f}) {
    auto same = zeros(3, 0, 2);
    for (auto& v : same)
      for (float& k : v)
        if (k == 0.0f) k = z;
    expect_stable_order<float, std::uint32_t, less<float>>(
        same, pairs_on_threads<float, std::uint32_t, less<float>>(same, o, path::direct), false,
        std::string("three ranks, zeros ") + (std::signbit(z) ? "-0.0" : "+0.0"));
  }
}

TEST(DistributedPairs, StableAcrossRanksEveryKeyWidthBothValues) {
  WARPSORT_REQUIRE_GPU();
  for (int P : {1, 2, 3, 4})
    for (const std::string dist : {"uniform", "all_equal", "eight_distinct"})
      for (bool rebalance : {false, true}) {
        const std::vector<std::size_t> even(P, 30011);
        std::vector<std::size_t> uneven(P, 0);
        for (int r = 0; r < P; ++r) uneven[r] = r % 2 ? 70001 : 1000 * static_cast<std::size_t>(r);
        expect_stable_pairs<std::uint32_t, std::uint32_t, less<std::uint32_t>>(P, dist, even, rebalance);
        expect_stable_pairs<float, std::uint64_t, greater<float>>(P, dist, uneven, rebalance);
        expect_stable_pairs<std::int64_t, std::uint32_t, less<std::int64_t>>(P, dist, uneven, rebalance);
        expect_stable_pairs<double, std::uint64_t, less<double>>(P, dist, even, rebalance);
        if (rebalance) {  // in rounds: merged apart from the sequences, then rebalanced
          expect_stable_pairs<std::uint32_t, std::uint64_t, less<std::uint32_t>>(P, dist, uneven,
                                                                                true, 0, 3);
          expect_stable_pairs<std::int64_t, std::uint32_t, greater<std::int64_t>>(P, dist, even,
                                                                                 true, 0, 2);
        }
      }
}

TEST(Distributed, LargeInputsMergeManyGroupsAndStayBalanced) {
  WARPSORT_REQUIRE_GPU();
  // Enough keys that every rank's merge has thousands of groups; balance within 1.05x the mean
  // on every distribution (the issue's target), all-equal included; the exchange in one round
  // (the library's choice at this size) and in three, merged while the next travels.
  int case_index = 0;
  for (int P : {2, 4})
    for (const std::string dist : {"uniform", "all_equal", "eight_distinct", "sorted",
                                   "reverse_sorted"}) {
      const std::size_t per = std::size_t{1} << 22;
      distributed::options o;
      o.exchange_parts = case_index % 2 == 0 ? 3 : 0;
      o.merge_runs = case_index % 3 == 0 ? 16 : 64;  // fewer local sequences, a longer local sort
      o.bucket_last_round = true;                     // used where the exchange has rounds
      // CUB's sorts as the local sort: one run a rank
      o.local_sort = case_index % 5 != 4 ? distributed::local_algorithm::warpsort
                     : P == 2            ? distributed::local_algorithm::cub_radix
                                         : distributed::local_algorithm::cub_merge;
      ++case_index;
      const auto inputs = make_inputs<std::uint32_t, less<std::uint32_t>>(
          dist, std::vector<std::size_t>(P, per), 7);
      const auto runs = sort_on_threads<std::uint32_t, less<std::uint32_t>>(inputs, o);
      const std::string label = "P " + std::to_string(P) + " " + dist + " parts " +
                                std::to_string(o.exchange_parts) + " merge_runs " +
                                std::to_string(o.merge_runs) + " local_sort " +
                                std::to_string(static_cast<int>(o.local_sort));
      expect_sorted_whole<std::uint32_t, less<std::uint32_t>>(inputs, runs, o, label);
      for (const auto& r : runs) {
        EXPECT_LE(static_cast<double>(r.result.count), 1.05 * static_cast<double>(per)) << label;
        // the library's choice at 2^22 keys a rank is one round
        EXPECT_EQ(r.result.exchange_rounds, o.exchange_parts == 0 ? 1u : 3u) << label;
        // with several rounds, warpsort's last local round runs bucket by bucket
        EXPECT_EQ(r.result.last_round_bucketed,
                  o.exchange_parts == 3 && o.local_sort == distributed::local_algorithm::warpsort)
            << label;
      }
    }
}

TEST(Distributed, BucketedLastRoundOnAnyRanksAndCounts) {
  WARPSORT_REQUIRE_GPU();
  // The local sort's last round run bucket by bucket while the exchange travels (with two or
  // more exchange rounds): a rank whose local sort has rounds runs its last one so, a rank
  // with too few keys for a round (or none) sends its sequences as they are, in the same call;
  // the output is the reference's either way, and with the option off too.
  static const std::size_t sizes[] = {600000, 70000, 5000, 0};  // rounds, maybe, none, no keys
  for (int P : {1, 2, 3, 4, 8})
    for (const std::string dist : {"uniform", "all_equal", "eight_distinct", "sorted"})
      for (int parts : {2, 4})
        for (bool bucket : {true, false}) {
          if (!bucket && dist != "uniform") continue;
          std::vector<std::size_t> counts;
          for (int r = 0; r < P; ++r) counts.push_back(sizes[(r + parts / 2) % 4]);
          distributed::options o;
          o.exchange_parts = parts;
          o.merge_runs = parts == 2 ? 64 : 8;  // 64: 70000 keys leave no round; 8: one round
          o.bucket_last_round = bucket;
          const auto inputs = make_inputs<std::uint32_t, less<std::uint32_t>>(
              dist, counts, 11 + static_cast<std::uint64_t>(P));
          const auto runs = sort_on_threads<std::uint32_t, less<std::uint32_t>>(inputs, o);
          const std::string label = "P " + std::to_string(P) + " " + dist + " parts " +
                                    std::to_string(parts) + (bucket ? " bucketed" : " local");
          expect_sorted_whole<std::uint32_t, less<std::uint32_t>>(inputs, runs, o, label);
          for (int r = 0; r < P; ++r) {
            if (runs[r].error) continue;  // reported above
            const bool rounds = counts[r] == sizes[0];
            if (rounds || counts[r] <= sizes[2])
              EXPECT_EQ(runs[r].result.last_round_bucketed, bucket && P > 1 && rounds)
                  << label << ": rank " << r << " of " << counts[r] << " keys";
          }
        }
}

TEST(Distributed, EqualKeysStayWithTheirRank) {
  WARPSORT_REQUIRE_GPU();
  // Every rank holds the same multiset, half of it the largest key (deterministic
  // duplicates): buckets 2 and 3 of four are that key alone. Keys alone, each destination takes
  // its own rank's copies first, so ranks 2 and 3 keep their halves (in (rank, position) order
  // rank 2 would receive ranks 0's and 1's and keep none), in one exchange round or several,
  // the last local round bucketed or not.
  const std::size_t per = std::size_t{1} << 18;
  std::vector<std::uint32_t> one(per);
  for (std::size_t i = 0; i < per; ++i)
    one[i] = i < per / 2         ? 7u
             : i < 3 * per / 4   ? 6u
             : i < 7 * per / 8   ? 5u
                                 : static_cast<std::uint32_t>(i % 5);
  const std::vector<std::vector<std::uint32_t>> inputs(4, one);
  for (int parts : {1, 3}) {
    distributed::options o;
    o.gather_all = distributed::options::gather_path::never;
    o.exchange_parts = parts;
    o.merge_runs = 16;  // four sequences a rank: its copies of a key lie in each
    o.bucket_last_round = parts > 1;
    const auto runs = sort_on_threads<std::uint32_t, less<std::uint32_t>>(inputs, o);
    const std::string label = "parts " + std::to_string(parts);
    expect_sorted_whole<std::uint32_t, less<std::uint32_t>>(inputs, runs, o, label);
    for (int q : {2, 3}) {
      if (runs[q].error) continue;  // reported above
      EXPECT_GE(runs[q].result.sent[q * 4 + q], per / 2) << label << ": rank " << q;
    }
  }
}

TEST(Distributed, EveryExchangePathGivesTheSameOutput) {
  WARPSORT_REQUIRE_GPU();
  // The keys copied straight into the peers' arenas (copy engines over NVLink between
  // processes; plain device copies here), moved by the transport into the arenas, or by the
  // transport into the sort's own buffers: the same output bit for bit, on every rank count,
  // round count, local sort, and with rebalancing, the bucketed round, and a rank with no keys.
  // A second sort on the same transports reuses and grows the arenas.
  int case_index = 0;
  for (int P : {2, 3, 5})
    for (int parts : {1, 2, 4})
      for (int variant = 0; variant < 4; ++variant) {
        distributed::options o;
        o.exchange_parts = parts;
        o.rebalance = variant == 1;
        o.bucket_last_round = variant == 2;
        o.merge_runs = variant == 2 ? 8 : 64;
        o.local_sort = variant == 3 ? distributed::local_algorithm::cub_radix
                                    : distributed::local_algorithm::warpsort;
        std::vector<std::size_t> counts;
        for (int r = 0; r < P; ++r) counts.push_back(r == 1 ? 0 : 200000 + 77777 * static_cast<std::size_t>(r));
        const auto inputs = make_inputs<std::uint32_t, less<std::uint32_t>>(
            case_index % 2 ? "eight_distinct" : "uniform", counts, 40 + static_cast<std::uint64_t>(case_index));
        ++case_index;
        const std::string label = "P " + std::to_string(P) + " parts " + std::to_string(parts) +
                                  " variant " + std::to_string(variant);
        std::vector<std::vector<std::uint8_t>> first;
        for (path how : every_path) {
          const auto runs = sort_on_threads<std::uint32_t, less<std::uint32_t>>(inputs, o, {}, how);
          expect_sorted_whole<std::uint32_t, less<std::uint32_t>>(inputs, runs, o,
                                                                  label + " path " + path_name(how));
          if (::testing::Test::HasFailure()) return;
          std::vector<std::vector<std::uint8_t>> outputs;
          for (const auto& r : runs) {
            outputs.push_back(r.output);
            EXPECT_EQ(r.result.copy_engines, is_direct(how)) << label << " " << path_name(how);
            // the rounds asked for, rebalancing too (its merges then write apart from the
            // sequences still being sent)
            EXPECT_EQ(r.result.exchange_rounds, static_cast<std::size_t>(parts))
                << label << " " << path_name(how);
            // forced mechanisms (keys; the bucketed round packs its own pieces)
            if (how == path::copy_engines) EXPECT_FALSE(r.result.sm_copies) << label;
            if (how == path::sm_copies && !r.result.last_round_bucketed)
              EXPECT_TRUE(r.result.sm_copies) << label;
          }
          if (first.empty()) first = outputs;
          else EXPECT_EQ(outputs, first) << label << ": path " << path_name(how) << " differs from direct";
        }
      }
  for (int P : {2, 4})  // pairs, both value widths, keys of both widths
    for (path how : every_path) {
      std::vector<std::size_t> counts(P, 90001);
      expect_stable_pairs<std::uint32_t, std::uint64_t, less<std::uint32_t>>(P, "eight_distinct", counts,
                                                                            false, 0, 3, {}, how);
      expect_stable_pairs<double, std::uint32_t, greater<double>>(P, "uniform", counts, P == 4, 0, 2,
                                                                 {}, how);
    }
}

TEST(Distributed, RebalanceInRoundsMergesApartFromTheSentSequences) {
  WARPSORT_REQUIRE_GPU();
  // Rebalancing with the exchange in rounds: part k is merged into a buffer of its own while
  // later parts are still sent from the sorted sequences, then the ranges go back to the input
  // counts. Every path, uneven counts and an empty rank; keys in both orders and pairs.
  for (int P : {2, 3, 5})
    for (int parts : {2, 4}) {
      std::vector<std::size_t> counts;
      for (int r = 0; r < P; ++r) counts.push_back(r == 1 ? 0 : 9000 + 3001 * static_cast<std::size_t>(r));
      distributed::options o;
      o.rebalance = true;
      o.exchange_parts = parts;
      for (path how : every_path) {
        const std::string label = "P " + std::to_string(P) + " parts " + std::to_string(parts) +
                                  " path " + path_name(how);
        const auto ascending = make_inputs<std::uint32_t, less<std::uint32_t>>("uniform", counts, 60 + P);
        const auto runs = sort_on_threads<std::uint32_t, less<std::uint32_t>>(ascending, o, {}, how);
        expect_sorted_whole<std::uint32_t, less<std::uint32_t>>(ascending, runs, o, label);
        for (int r = 0; r < P; ++r) {
          if (runs[r].error) continue;  // reported above
          EXPECT_EQ(runs[r].result.exchange_rounds, static_cast<std::size_t>(parts)) << label;
          EXPECT_EQ(runs[r].result.count, counts[r]) << label << ": rank " << r;
        }
        const auto descending = make_inputs<double, greater<double>>("eight_distinct", counts, 70 + P);
        expect_sorted_whole<double, greater<double>>(
            descending, sort_on_threads<double, greater<double>>(descending, o, {}, how), o,
            label + " double descending");
      }
      expect_stable_pairs<std::uint32_t, std::uint32_t, less<std::uint32_t>>(P, "eight_distinct",
                                                                            counts, true, 0, parts);
    }
}

TEST(Distributed, ArenasAreKeptAndGrownAcrossCalls) {
  WARPSORT_REQUIRE_GPU();
  // One set of transports, three sorts: small, larger (every arena grows), small again (the
  // arenas are reused as they are); every output the reference's. The device's pool keeps what
  // it held, so that the last sort counts its free memory from the pool alone.
  using Key = std::uint64_t;
  const int P = 3;
  cudaMemPool_t pool;
  WARPSORT_CUDA_CHECK(cudaDeviceGetMemPool(&pool, 0));
  std::uint64_t threshold = 0, keep = ~std::uint64_t{0};
  WARPSORT_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  WARPSORT_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  struct restore_threshold {
    cudaMemPool_t pool;
    std::uint64_t value;
    ~restore_threshold() {
      (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &value);
      (void)cudaMemPoolTrimTo(pool, 0);
    }
  } restore{pool, threshold};
  warpsort::testing::thread_group group(P);
  const std::vector<std::size_t> sizes[] = {{1000, 20000, 5}, {300000, 0, 250000}, {7, 7, 7000}};
  std::vector<std::vector<std::vector<Key>>> inputs;
  for (std::size_t call = 0; call < 3; ++call)
    inputs.push_back(make_inputs<Key, less<Key>>("uniform", sizes[call], 90 + call));
  std::vector<std::vector<std::vector<Key>>> outputs(3, std::vector<std::vector<Key>>(P));
  std::vector<std::vector<std::size_t>> arena_after(3, std::vector<std::size_t>(P));
  std::vector<std::string> errors(P);
  std::vector<std::thread> threads;
  for (int r = 0; r < P; ++r)
    threads.emplace_back([&, r] {
      try {
        WARPSORT_CUDA_CHECK(cudaSetDevice(0));
        warpsort::testing::thread_transport t(group, r);
        cudaStream_t stream;
        WARPSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        for (std::size_t call = 0; call < 3; ++call) {
          std::size_t total = 0;
          for (auto n : sizes[call]) total += n;
          const std::size_t n = sizes[call][static_cast<std::size_t>(r)];
          const std::size_t cap = std::max(n, distributed::required_capacity(total, P, r));
          warpsort::detail::device_buffer<Key> keys(std::max<std::size_t>(cap, 1));
          if (n)  // on the rank's stream (see sort_on_threads)
            WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys.get(),
                                                inputs[call][static_cast<std::size_t>(r)].data(),
                                                n * sizeof(Key), cudaMemcpyHostToDevice, stream));
          const auto res = distributed::sort_keys<Key>(keys.get(), n, cap, t, stream);
          WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
          outputs[call][static_cast<std::size_t>(r)] = warpsort::testing::to_host(keys.get(), res.count);
          arena_after[call][static_cast<std::size_t>(r)] = t.peers()->arena_bytes();
          if (!res.copy_engines) throw std::runtime_error("the keys did not move by direct copies");
        }
        WARPSORT_CUDA_CHECK(cudaStreamDestroy(stream));
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(r)] = e.what();
        group.abort();
      }
    });
  for (auto& th : threads) th.join();
  for (int r = 0; r < P; ++r) ASSERT_EQ(errors[static_cast<std::size_t>(r)], "") << "rank " << r;
  for (std::size_t call = 0; call < 3; ++call) {
    std::vector<Key> all, got;
    for (const auto& v : inputs[call]) all.insert(all.end(), v.begin(), v.end());
    for (const auto& v : outputs[call]) got.insert(got.end(), v.begin(), v.end());
    std::sort(all.begin(), all.end());
    EXPECT_EQ(got, all) << "call " << call;
  }
  for (int r = 0; r < P; ++r) {
    const std::size_t at = static_cast<std::size_t>(r);
    EXPECT_GT(arena_after[1][at], arena_after[0][at]) << "rank " << r << ": the arena grew";
    EXPECT_EQ(arena_after[2][at], arena_after[1][at]) << "rank " << r << ": the arena was kept";
  }
}

TEST(Distributed, EveryRankRefusesBadInputAlike) {
  WARPSORT_REQUIRE_GPU();
  using Key = std::uint32_t;
  const auto inputs = make_inputs<Key, less<Key>>("uniform", {1000, 1000, 1000}, 1);
  const auto expect_all_refuse = [&](std::vector<std::size_t> capacity, const char* needle,
                                     distributed::options o = {}) {
    const auto runs = sort_on_threads<Key, less<Key>>(inputs, o, capacity);
    std::string first;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      ASSERT_TRUE(runs[r].error) << "rank " << r << " did not throw";
      const std::string msg = what(runs[r].error);
      EXPECT_NE(msg.find(needle), std::string::npos) << msg;
      if (r == 0) first = msg;
      EXPECT_EQ(msg, first) << "every rank reports the same error";
    }
  };
  // rank 1's count exceeds its capacity
  expect_all_refuse({2000, 999, 2000}, "rank 1: n = 1000 exceeds its capacity 999");
  // rank 2 has room for its keys but not for the output bound
  expect_all_refuse({2000, 2000, 1000}, "rank 2: capacity 1000 keys; the output may need");
  // options out of range
  for (int runs : {0, 65}) {
    distributed::options o;
    o.merge_runs = runs;
    expect_all_refuse({2000, 2000, 2000}, "merge_runs must be in [1, 64]", o);
  }
  distributed::options negative_pieces;
  negative_pieces.gather_pieces = -1;
  expect_all_refuse({2000, 2000, 2000}, "gather_pieces must be at least 0", negative_pieces);
}

TEST(Distributed, TooLittleMemoryIsRefusedBeforeAllocating) {
  WARPSORT_REQUIRE_GPU();
  // Rank 0 claims 2^40 keys in a (small) buffer of that capacity: it needs far more device
  // memory than is free, and every rank refuses before touching any key.
  using Key = std::uint32_t;
  warpsort::testing::thread_group group(2);
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  std::vector<Key> before(1000);
  for (std::size_t i = 0; i < before.size(); ++i) before[i] = static_cast<Key>(1000 - i);
  std::vector<Key> after(1000);
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      WARPSORT_CUDA_CHECK(cudaSetDevice(0));
      auto keys = warpsort::testing::to_device(before);
      warpsort::testing::thread_transport t(group, r);
      const std::size_t n = r == 0 ? std::size_t{1} << 40 : before.size();
      try {
        distributed::sort_keys<Key>(keys.get(), n, n, t);
      } catch (const input_error& e) {
        errors[r] = e.what();
      }
      if (r == 1) after = warpsort::testing::to_host(keys.get(), before.size());
    });
  for (auto& th : threads) th.join();
  for (int r = 0; r < 2; ++r) {
    EXPECT_NE(errors[r].find("rank 0: needs"), std::string::npos) << errors[r];
    EXPECT_NE(errors[r].find("bytes of device memory beyond its keys"), std::string::npos);
  }
  EXPECT_EQ(after, before) << "a refused sort leaves the keys alone";
}

TEST(Distributed, MemoryThePoolKeepsCountsAsFree) {
  WARPSORT_REQUIRE_GPU();
  // A caller whose stream-ordered pool keeps its memory between calls (as warpsort dist's
  // does): cudaMemGetInfo reports what the pool holds unused as taken. Fill the pool until
  // less is free than the sort needs; the sort must take it from the pool, not refuse.
  WARPSORT_CUDA_CHECK(cudaSetDevice(0));
  cudaMemPool_t pool;
  WARPSORT_CUDA_CHECK(cudaDeviceGetMemPool(&pool, 0));
  std::uint64_t keep = UINT64_MAX, release = 0;
  WARPSORT_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  using Key = std::uint32_t;
  const std::size_t per = std::size_t{1} << 24;  // keys a rank; the sort needs > 2 x 64 MiB more
  const auto inputs = make_inputs<Key, less<Key>>("uniform", {per, per}, 3);
  auto run = [&] {
    distributed::options o;
    return sort_on_threads<Key, less<Key>>(inputs, o);
  };
  std::size_t free_bytes = 0, total_bytes = 0;
  WARPSORT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // left free: the two input buffers (~2 x 66 MiB) and less than a rank's 130+ MiB of work
  const std::size_t leave = std::size_t{200} << 20;
  ASSERT_GT(free_bytes, 4 * leave) << "too little device memory for this test";
  const std::size_t fill = free_bytes - leave;
  void* block = nullptr;
  WARPSORT_CUDA_CHECK(cudaMallocAsync(&block, fill, 0));
  WARPSORT_CUDA_CHECK(cudaFreeAsync(block, 0));
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  const auto runs = run();
  WARPSORT_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &release));
  WARPSORT_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
  for (const auto& r : runs) ASSERT_FALSE(r.error) << what(r.error);
  expect_sorted_whole<Key, less<Key>>(inputs, runs, distributed::options{}, "pool kept full");
}

/// NCCL communicators over the given devices, one process (ncclCommInitAll).
std::vector<ncclComm_t> init_all(const std::vector<int>& devices) {
  std::vector<ncclComm_t> comms(devices.size());
  WARPSORT_NCCL_CHECK(ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()));
  return comms;
}

template <class Key, class Comp>
void sort_over_nccl(int devices, const std::vector<std::size_t>& n, const std::string& dist,
                    bool rebalance, const std::vector<ncclComm_t>& shared = {}) {
  // this thread visits every device: give the next test back the device it found (the test
  // transport's events and streams are made on the current device)
  struct restore_device {
    int device = 0;
    restore_device() { WARPSORT_CUDA_CHECK(cudaGetDevice(&device)); }
    ~restore_device() { (void)cudaSetDevice(device); }
  } restore;
  std::vector<int> list(devices);
  for (int d = 0; d < devices; ++d) list[d] = d;
  // a communicator per call, or the caller's (kept: initialising one costs about a second)
  const std::vector<ncclComm_t> comms = shared.empty() ? init_all(list) : shared;
  distributed::options o;
  o.rebalance = rebalance;
  o.timed = true;
  o.timeout_seconds = 120;  // every wait polls the stream and NCCL's error within the deadline
  const auto inputs = make_inputs<Key, Comp>(dist, n, 9);
  std::size_t total = 0;
  for (std::size_t c : n) total += c;
  std::vector<Key*> keys(devices);
  std::vector<std::size_t> cap(devices);
  std::vector<cudaStream_t> streams(devices);
  for (int d = 0; d < devices; ++d) {
    WARPSORT_CUDA_CHECK(cudaSetDevice(d));
    cap[d] = rebalance ? n[d] : std::max(n[d], distributed::required_capacity(total, devices, d, o));
    WARPSORT_CUDA_CHECK(cudaMalloc(&keys[d], std::max<std::size_t>(cap[d], 1) * sizeof(Key)));
    if (n[d])
      WARPSORT_CUDA_CHECK(cudaMemcpy(keys[d], inputs[d].data(), n[d] * sizeof(Key), cudaMemcpyHostToDevice));
    WARPSORT_CUDA_CHECK(cudaStreamCreate(&streams[d]));
  }
  const auto results = distributed::sort_keys_on_devices<Key, Comp>(keys, n, cap, comms, streams, Comp{}, o);
  std::vector<rank_run> runs(devices);
  for (int d = 0; d < devices; ++d) {
    WARPSORT_CUDA_CHECK(cudaSetDevice(d));
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(streams[d]));
    runs[d].result = results[d];
    runs[d].output.resize(results[d].count * sizeof(Key));
    if (results[d].count)
      WARPSORT_CUDA_CHECK(cudaMemcpy(runs[d].output.data(), keys[d], runs[d].output.size(),
                                     cudaMemcpyDeviceToHost));
    if (total > 0) {
      EXPECT_GT(results[d].times.total_ms(), 0.0f);
      // the last part's merge is a share of the merge phase (events in stream order; the
      // phase starts on the exchange's stream, so the two clocks may differ by a few
      // microseconds: 1.5 us was seen on four H200s, with a 13 us merge)
      EXPECT_GE(results[d].times.last_part_merge_ms, 0.0f);
      EXPECT_LE(results[d].times.last_part_merge_ms, results[d].times.merge_ms + 5e-3f);
    }
    cudaFree(keys[d]);
    cudaStreamDestroy(streams[d]);
    if (shared.empty()) ncclCommDestroy(comms[d]);
  }
  expect_sorted_whole<Key, Comp>(inputs, runs, o,
                                 "NCCL, " + std::to_string(devices) + " GPUs, " + dist);
}

TEST(DistributedNccl, OneRank) {
  WARPSORT_REQUIRE_GPU();
  sort_over_nccl<std::uint32_t, less<std::uint32_t>>(1, {1000003}, "uniform", false);
  sort_over_nccl<double, greater<double>>(1, {100003}, "specials", true);
  sort_over_nccl<std::uint32_t, less<std::uint32_t>>(1, {0}, "uniform", false);
}

TEST(DistributedNccl, EveryGpuOfThisMachine) {
  WARPSORT_REQUIRE_GPU();
  int devices = 0;
  WARPSORT_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices < 2)
    GTEST_SKIP() << "NCCL across GPUs needs at least 2 GPUs; this machine has " << devices
                 << " (the same sort runs for P = 2..8 through the test transport above)";
  const std::size_t D = static_cast<std::size_t>(devices);
  for (const std::string dist : {"uniform", "all_equal"}) {
    sort_over_nccl<std::uint32_t, less<std::uint32_t>>(
        devices, std::vector<std::size_t>(D, (std::size_t{1} << 22) + 17), dist, false);
    sort_over_nccl<std::int64_t, greater<std::int64_t>>(devices, std::vector<std::size_t>(D, 100003),
                                                        dist, true);
  }
  // the layouts that hung: counts differing by one, fewer keys than ranks, empty ranks
  // anywhere, one rank with everything, nothing at all
  std::vector<std::vector<std::size_t>> layouts;
  for (std::size_t total : {std::size_t{3}, std::size_t{11}, std::size_t{4099}, D - 1}) {
    std::vector<std::size_t> even(D);
    for (std::size_t r = 0; r < D; ++r) even[r] = total / D + (r < total % D ? 1 : 0);
    layouts.push_back(even);
  }
  layouts.push_back(std::vector<std::size_t>(D, 0));
  for (std::size_t holder : {std::size_t{0}, D - 1}) {
    std::vector<std::size_t> one(D, 0);
    one[holder] = 100003;
    layouts.push_back(one);
  }
  std::vector<std::size_t> middle_empty(D, 0);
  middle_empty[0] = 5000;
  middle_empty[D - 1] = 70001;
  layouts.push_back(middle_empty);
  std::vector<int> list(devices);
  for (int d = 0; d < devices; ++d) list[d] = d;
  const std::vector<ncclComm_t> comms = init_all(list);
  for (const auto& counts : layouts)
    for (bool rebalance : {false, true}) {
      sort_over_nccl<std::uint32_t, less<std::uint32_t>>(devices, counts, "uniform", rebalance, comms);
      sort_over_nccl<float, greater<float>>(devices, counts, "eight_distinct", rebalance, comms);
    }
  for (ncclComm_t c : comms) WARPSORT_NCCL_CHECK(ncclCommDestroy(c));
}

template <class T>
struct type_tag {
  using type = T;
};

/// f(type_tag<Key>{}) for the index-th key type of the library's list (the fuzz cases' order).
template <class F>
void for_key_type_index(int index, F&& f) {
  int i = 0;
#define WARPSORT_TEST_KEY_CASE_(name, Key) \
  if (i++ == index) return f(type_tag<Key>{});
  WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_TEST_KEY_CASE_)
#undef WARPSORT_TEST_KEY_CASE_
  ADD_FAILURE() << "no key type " << index;
}

/// One fuzz case on P threads: keys through sort_on_threads, pairs through expect_stable_pairs
/// (values: the global input index), both with a deadline, so a hang fails instead of waiting.
template <class Key, class Comp>
void fuzz_case_on_threads(const warpsort::cli::dist_fuzz_case& c, int P, const std::string& label) {
  static const char* dists[] = {"uniform", "all_equal", "eight_distinct"};
  const std::string dist = dists[c.distribution % 3];
  const std::vector<std::size_t> counts = warpsort::cli::dist_fuzz_counts(c, P);
  const double timeout = 60;
  // the exchange in 1 to 3 rounds, or the library's choice (one at these totals); the local
  // sort warpsort's (two cases in three) or one of CUB's
  const int parts = static_cast<int>(c.total % 4);
  static const distributed::local_algorithm local_sorts[] = {
      distributed::local_algorithm::warpsort, distributed::local_algorithm::cub_radix,
      distributed::local_algorithm::warpsort, distributed::local_algorithm::cub_merge};
  const distributed::local_algorithm local_sort = local_sorts[c.seed % 4];
  // the keys copied into the peers' arenas, or moved by the transport into them or not
  const path how = every_path[c.seed / 8 % 5];
  if (c.value_bytes == 4) {
    expect_stable_pairs<Key, std::uint32_t, Comp>(P, dist, counts, c.rebalance, timeout, parts,
                                                  local_sort, how);
  } else if (c.value_bytes == 8) {
    expect_stable_pairs<Key, std::uint64_t, Comp>(P, dist, counts, c.rebalance, timeout, parts,
                                                  local_sort, how);
  } else {
    distributed::options o;
    o.rebalance = c.rebalance;
    o.timeout_seconds = timeout;
    o.exchange_parts = parts;
    static const int merge_runs[] = {64, 16, 4, 1};  // the local sort leaving 64 / P down to 1
    o.merge_runs = merge_runs[c.total / 4 % 4];
    o.local_sort = local_sort;
    o.bucket_last_round = c.seed / 4 % 2 == 0;  // used where a rank's local sort has rounds
    // the gathered path: forced where the keys are copied into arenas, refused, or left to
    // automatic (which takes it at these totals where the rounds are the library's choice)
    using gather = distributed::options::gather_path;
    o.gather_all = c.seed / 16 % 3 == 0 && is_direct(how) ? gather::always
                   : c.seed / 16 % 3 == 1                 ? gather::never
                                                          : gather::automatic;
    const auto inputs = make_inputs<Key, Comp>(dist, counts, c.seed);
    const auto runs = sort_on_threads<Key, Comp>(inputs, o, {}, how);
    expect_sorted_whole<Key, Comp>(inputs, runs, o, label + " path " + path_name(how));
  }
}

TEST(DistributedFuzz, EveryTotalAndLayoutOnOneToEightRanks) {
  WARPSORT_REQUIRE_GPU();
  // CI-sized: totals 0..300 (every one for P <= 2, then every 3rd or 7th), 2^k - 3 .. 2^k + 3
  // for k <= 16 and 8 random totals; the case's index picks type, values, order, rebalancing,
  // distribution and layout (warpsort fuzz --dist runs the full size over NCCL).
  const auto started = std::chrono::steady_clock::now();
  std::size_t runs = 0;
  for (int P = 1; P <= 8; ++P) {
    const std::size_t step = P <= 2 ? 1 : P <= 4 ? 3 : 7;
    const auto cases = warpsort::cli::dist_fuzz_cases(
        warpsort::cli::dist_fuzz_totals(35, 300, step, 16, 8), 35 + static_cast<std::uint64_t>(P));
    for (const auto& c : cases) {
      const std::string label =
          "fuzz P " + std::to_string(P) + " n " + std::to_string(c.total) + " " +
          warpsort::cli::dist_fuzz_type_names()[static_cast<std::size_t>(c.type)] + " values " +
          std::to_string(c.value_bytes) + (c.descending ? " descending" : " ascending") +
          (c.rebalance ? " rebalanced" : "") + " layout " + warpsort::cli::dist_layout_name(c.layout);
      SCOPED_TRACE(label);
      for_key_type_index(c.type, [&](auto tag) {
        using Key = typename decltype(tag)::type;
        if (c.descending) fuzz_case_on_threads<Key, greater<Key>>(c, P, label);
        else fuzz_case_on_threads<Key, less<Key>>(c, P, label);
      });
      ++runs;
      if (::testing::Test::HasFailure()) return;  // the first failing case says enough
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("dist fuzz (test transport): P = 1..8, %zu runs, hangs 0, wrong 0, %.1f s\n", runs,
              seconds);
}

TEST(DistributedDeadline, StalledRankEndsItsPeersWaitWithTheNamedError) {
  WARPSORT_REQUIRE_GPU();
  // rank 1 sleeps at the start of the exchange, longer than the deadline: rank 0, waiting for
  // it there, aborts the group and throws timeout_error naming itself and the phase
  using Key = std::uint32_t;
  const int P = 2;
  const auto inputs = make_inputs<Key, less<Key>>("uniform", {100000, 100001}, 3);
  warpsort::testing::thread_group group(P);
  std::vector<std::string> errors(P);
  std::vector<int> timeout_rank(P, -1);
  std::vector<std::string> timeout_phase(P);
  std::vector<double> seconds(P);
  std::vector<std::thread> threads;
  for (int r = 0; r < P; ++r)
    threads.emplace_back([&, r] {
      WARPSORT_CUDA_CHECK(cudaSetDevice(0));
      cudaStream_t stream;
      WARPSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      distributed::options o;
      o.timeout_seconds = 1;
      o.on_phase = [r](const char* phase) {
        if (r == 1 && std::string(phase) == "exchange")
          std::this_thread::sleep_for(std::chrono::seconds(3));
      };
      const std::size_t cap = std::max(inputs[r].size(), distributed::required_capacity(200001, P, r, o));
      auto keys = warpsort::testing::to_device(inputs[r]);
      warpsort::detail::device_buffer<Key> room(cap);
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(room.get(), keys.get(), inputs[r].size() * sizeof(Key),
                                          cudaMemcpyDeviceToDevice, stream));
      warpsort::testing::thread_transport t(group, r);
      const auto start = std::chrono::steady_clock::now();
      try {
        distributed::sort_keys<Key>(room.get(), inputs[r].size(), cap, t, stream, less<Key>{}, o);
      } catch (const distributed::timeout_error& e) {
        timeout_rank[r] = e.rank();
        timeout_phase[r] = e.phase();
        errors[r] = e.what();
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
      seconds[r] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(timeout_rank[0], 0) << errors[0];
  EXPECT_EQ(timeout_phase[0], "exchange") << errors[0];
  EXPECT_NE(errors[0].find("rank 0: phase exchange"), std::string::npos) << errors[0];
  EXPECT_LT(seconds[0], 2.5) << "the deadline is 1 s";
  EXPECT_FALSE(errors[1].empty()) << "the stalled rank finds the group aborted";
}

TEST(DistributedAgreement, MismatchedExchangeIsAnErrorOnEveryRankNotAHang) {
  WARPSORT_REQUIRE_GPU();
  // rank 0 would send 8 bytes to rank 1, which expects 4: both ranks learn it before posting
  const int P = 2;
  warpsort::testing::thread_group group(P);
  std::vector<std::string> errors(P);
  std::vector<std::thread> threads;
  for (int r = 0; r < P; ++r)
    threads.emplace_back([&, r] {
      WARPSORT_CUDA_CHECK(cudaSetDevice(0));
      warpsort::detail::device_buffer<unsigned char> send(64), recv(64);
      warpsort::testing::thread_transport t(group, r);
      t.set_timeout(10);
      const std::vector<std::size_t> off{0, 16};
      const std::vector<std::size_t> sends = r == 0 ? std::vector<std::size_t>{4, 8}
                                                    : std::vector<std::size_t>{4, 4};
      const std::vector<std::size_t> receives{4, 4};
      try {
        distributed::checked_all_to_all(t, send.get(), off, sends, recv.get(), off, receives, 0,
                                        "test");
      } catch (const distributed::disagreement_error& e) {
        errors[r] = e.what();
      } catch (const std::exception& e) {
        errors[r] = std::string("not a disagreement_error: ") + e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int r = 0; r < P; ++r) {
    EXPECT_NE(errors[r].find("phase test: rank 0 would send 8 bytes to rank 1, which expects 4"),
              std::string::npos)
        << "rank " << r << ": " << errors[r];
  }
}

}  // namespace

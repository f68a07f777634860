// GPU: the distributed sort. Any P on one GPU through a test transport (P host threads, one
// stream each, copies between their buffers): every key type in both orders, distributions
// that stress the splitters, uneven and empty ranks, rebalancing, and the errors every rank must
// report alike. Through NCCL: P = 1 on one GPU, and P = every GPU of the machine with one
// process driving them (skipped, with the reason, on a machine of one GPU). Skips without a GPU.
#include "common/gpu_test.hpp"
#include "common/key_type_lists.hpp"
#include "common/test_inputs.hpp"
#include "distributed/thread_transport.hpp"

#include <warpsort/detail/distributed/order_bits.cuh>
#include <warpsort/distributed.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace warpsort;
using warpsort::testing::make_typed_keys;

template <class Key, class Comp>
using bits_of = typename distributed::detail::order_bits<Key, Comp>::bits;

/// The words of a key (its order's), for comparing outputs bit for bit.
template <class Key, class Comp>
std::vector<bits_of<Key, Comp>> words(const std::vector<Key>& keys) {
  std::vector<bits_of<Key, Comp>> w(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    w[i] = distributed::detail::order_bits<Key, Comp>::to(keys[i]);
  return w;
}

struct rank_run {
  std::vector<std::uint8_t> output;  // raw bytes of the rank's output keys
  distributed::sort_result result;
  std::exception_ptr error;
};

/// Sorts `inputs` (one vector a rank) with P threads on one GPU; capacity per rank as given
/// (0: required_capacity, or the input count when rebalancing).
template <class Key, class Comp>
std::vector<rank_run> sort_on_threads(const std::vector<std::vector<Key>>& inputs,
                                      const distributed::options& o,
                                      std::vector<std::size_t> capacity = {}) {
  const int P = static_cast<int>(inputs.size());
  std::size_t total = 0;
  for (const auto& v : inputs) total += v.size();
  if (capacity.empty())
    for (int r = 0; r < P; ++r)
      capacity.push_back(o.rebalance ? inputs[r].size()
                                     : std::max(inputs[r].size(),
                                                distributed::required_capacity(total, P, r, o)));
  warpsort::testing::thread_group group(P);
  std::vector<rank_run> runs(P);
  std::vector<std::thread> threads;
  for (int r = 0; r < P; ++r)
    threads.emplace_back([&, r] {
      try {
        WARPSORT_CUDA_CHECK(cudaSetDevice(0));
        cudaStream_t stream;
        WARPSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        // room for the input even where the test passes a smaller capacity, to see it refused
        warpsort::detail::device_buffer<Key> keys(
            std::max<std::size_t>(std::max(capacity[r], inputs[r].size()), 1));
        if (!inputs[r].empty())
          WARPSORT_CUDA_CHECK(cudaMemcpy(keys.get(), inputs[r].data(), inputs[r].size() * sizeof(Key),
                                         cudaMemcpyHostToDevice));
        warpsort::testing::thread_transport t(group, r);
        try {
          runs[r].result = distributed::sort_keys<Key, Comp>(keys.get(), inputs[r].size(),
                                                             capacity[r], t, stream, Comp{}, o);
          WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
          runs[r].output.resize(runs[r].result.count * sizeof(Key));
          if (runs[r].result.count)
            WARPSORT_CUDA_CHECK(cudaMemcpy(runs[r].output.data(), keys.get(),
                                           runs[r].output.size(), cudaMemcpyDeviceToHost));
        } catch (...) {
          runs[r].error = std::current_exception();
        }
        cudaStreamDestroy(stream);
      } catch (...) {
        runs[r].error = std::current_exception();
        group.abort();  // a rank that fails before or after the sort must not leave its peers waiting
      }
    });
  for (auto& th : threads) th.join();
  return runs;
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

/// Pairs on P threads: keys with their global input index (rank offset + position) as values.
template <class Key, class Value, class Comp>
void expect_stable_pairs(int P, const std::string& dist, const std::vector<std::size_t>& counts,
                         bool rebalance) {
  distributed::options o;
  o.rebalance = rebalance;
  const auto inputs = make_inputs<Key, Comp>(dist, counts, 300 + P);
  std::size_t total = 0;
  for (const auto& v : inputs) total += v.size();
  std::vector<std::size_t> capacity;
  for (int r = 0; r < P; ++r)
    capacity.push_back(rebalance ? inputs[r].size()
                                 : std::max(inputs[r].size(),
                                            distributed::required_capacity(total, P, r, o)));
  warpsort::testing::thread_group group(P);
  std::vector<std::vector<Key>> out_keys(P);
  std::vector<std::vector<Value>> out_values(P);
  std::vector<std::string> errors(P);
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
        if (!index.empty()) {
          WARPSORT_CUDA_CHECK(cudaMemcpy(keys.get(), inputs[r].data(), index.size() * sizeof(Key),
                                         cudaMemcpyHostToDevice));
          WARPSORT_CUDA_CHECK(cudaMemcpy(values.get(), index.data(), index.size() * sizeof(Value),
                                         cudaMemcpyHostToDevice));
        }
        warpsort::testing::thread_transport t(group, r);
        cudaStream_t stream;
        WARPSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        const auto res = distributed::sort_pairs<Key, Value, Comp>(
            keys.get(), values.get(), inputs[r].size(), capacity[r], t, stream, Comp{}, o);
        WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
        WARPSORT_CUDA_CHECK(cudaStreamDestroy(stream));
        out_keys[r] = warpsort::testing::to_host(keys.get(), res.count);
        out_values[r] = warpsort::testing::to_host(values.get(), res.count);
      } catch (const std::exception& e) {
        errors[r] = e.what();
        group.abort();
      }
    });
  for (auto& th : threads) th.join();
  const std::string label = "pairs P " + std::to_string(P) + " " + dist +
                            (rebalance ? " rebalanced" : "");
  for (int r = 0; r < P; ++r) ASSERT_EQ(errors[r], "") << label << ": rank " << r;
  // the reference: a stable sort of (key, global index) by key, compared in the order's words
  std::vector<Key> all;
  for (const auto& v : inputs) all.insert(all.end(), v.begin(), v.end());
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto w = words<Key, Comp>(all);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return w[a] < w[b]; });
  std::vector<Value> got_values;
  std::vector<Key> got_keys;
  for (int r = 0; r < P; ++r) {
    if (rebalance) {
      EXPECT_EQ(out_keys[r].size(), inputs[r].size()) << label;
    }
    got_keys.insert(got_keys.end(), out_keys[r].begin(), out_keys[r].end());
    got_values.insert(got_values.end(), out_values[r].begin(), out_values[r].end());
  }
  ASSERT_EQ(got_values.size(), order.size()) << label;
  for (std::size_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(static_cast<std::size_t>(got_values[i]), order[i])
        << label << ": position " << i << " (stable order of equal keys across ranks)";
    ASSERT_EQ((words<Key, Comp>({got_keys[i]})[0]), w[order[i]]) << label << ": key at " << i;
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
      }
}

TEST(Distributed, LargeInputsMergeManyGroupsAndStayBalanced) {
  WARPSORT_REQUIRE_GPU();
  // Enough keys that every rank's merge has thousands of groups; balance within 1.1x the mean
  // on every distribution (the issue's target), all-equal included.
  for (int P : {2, 4})
    for (const std::string dist : {"uniform", "all_equal", "eight_distinct", "sorted",
                                   "reverse_sorted"}) {
      const std::size_t per = std::size_t{1} << 22;
      distributed::options o;
      const auto inputs = make_inputs<std::uint32_t, less<std::uint32_t>>(
          dist, std::vector<std::size_t>(P, per), 7);
      const auto runs = sort_on_threads<std::uint32_t, less<std::uint32_t>>(inputs, o);
      const std::string label = "P " + std::to_string(P) + " " + dist;
      expect_sorted_whole<std::uint32_t, less<std::uint32_t>>(inputs, runs, o, label);
      for (const auto& r : runs)
        EXPECT_LE(static_cast<double>(r.result.count), 1.1 * static_cast<double>(per)) << label;
    }
}

TEST(Distributed, EveryRankRefusesBadInputAlike) {
  WARPSORT_REQUIRE_GPU();
  using Key = std::uint32_t;
  const auto inputs = make_inputs<Key, less<Key>>("uniform", {1000, 1000, 1000}, 1);
  const auto expect_all_refuse = [&](std::vector<std::size_t> capacity, const char* needle) {
    const auto runs = sort_on_threads<Key, less<Key>>(inputs, {}, capacity);
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

/// NCCL communicators over the given devices, one process (ncclCommInitAll).
std::vector<ncclComm_t> init_all(const std::vector<int>& devices) {
  std::vector<ncclComm_t> comms(devices.size());
  WARPSORT_NCCL_CHECK(ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()));
  return comms;
}

template <class Key, class Comp>
void sort_over_nccl(int devices, std::size_t per, const std::string& dist, bool rebalance) {
  std::vector<int> list(devices);
  for (int d = 0; d < devices; ++d) list[d] = d;
  auto comms = init_all(list);
  distributed::options o;
  o.rebalance = rebalance;
  o.timed = true;
  const auto inputs = make_inputs<Key, Comp>(dist, std::vector<std::size_t>(devices, per), 9);
  const std::size_t total = per * static_cast<std::size_t>(devices);
  std::vector<Key*> keys(devices);
  std::vector<std::size_t> n(devices, per), cap(devices);
  std::vector<cudaStream_t> streams(devices);
  for (int d = 0; d < devices; ++d) {
    WARPSORT_CUDA_CHECK(cudaSetDevice(d));
    cap[d] = rebalance ? per : std::max(per, distributed::required_capacity(total, devices, d, o));
    WARPSORT_CUDA_CHECK(cudaMalloc(&keys[d], cap[d] * sizeof(Key)));
    WARPSORT_CUDA_CHECK(cudaMemcpy(keys[d], inputs[d].data(), per * sizeof(Key), cudaMemcpyHostToDevice));
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
    EXPECT_GT(results[d].times.total_ms(), 0.0f);
    cudaFree(keys[d]);
    cudaStreamDestroy(streams[d]);
    ncclCommDestroy(comms[d]);
  }
  expect_sorted_whole<Key, Comp>(inputs, runs, o,
                                 "NCCL, " + std::to_string(devices) + " GPUs, " + dist);
}

TEST(DistributedNccl, OneRank) {
  WARPSORT_REQUIRE_GPU();
  sort_over_nccl<std::uint32_t, less<std::uint32_t>>(1, 1000003, "uniform", false);
  sort_over_nccl<double, greater<double>>(1, 100003, "specials", true);
}

TEST(DistributedNccl, EveryGpuOfThisMachine) {
  WARPSORT_REQUIRE_GPU();
  int devices = 0;
  WARPSORT_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices < 2)
    GTEST_SKIP() << "NCCL across GPUs needs at least 2 GPUs; this machine has " << devices
                 << " (the same sort runs for P = 2..8 through the test transport above)";
  for (const std::string dist : {"uniform", "all_equal"}) {
    sort_over_nccl<std::uint32_t, less<std::uint32_t>>(devices, (std::size_t{1} << 22) + 17, dist, false);
    sort_over_nccl<std::int64_t, greater<std::int64_t>>(devices, 100003, dist, true);
  }
}

}  // namespace

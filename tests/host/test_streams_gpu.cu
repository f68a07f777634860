// GPU tests: sort_keys and sort_pairs run on the caller's stream. The input is written by a
// kernel on a non-blocking stream that first spins for tens of milliseconds; the sort is called
// on that stream right after, with no synchronization between. Run on the stream, it sees the
// written input; run on any other stream (the legacy default one included, which a
// non-blocking stream does not wait for) it reads the poisoned buffer while the spin goes on,
// and its output differs from the host's sort of the real input.
#include "common/gpu_test.hpp"
#include "common/key_type_lists.hpp"
#include "common/stream_gate.cuh"
#include "common/test_inputs.hpp"

#include <warpsort/warpsort.cuh>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace warpsort::testing;

constexpr float kSpinMs = 50.0f;  // far longer than any sort below takes

/// Sizes: version 4 and version 5 plans for every key width.
std::vector<std::size_t> stream_sizes() { return capped({1000, 200003}); }

/// The spin must still hold the stream when the sort call returns, or the input was already
/// written and the test would prove nothing.
void expect_gate_still_closed(cudaStream_t stream, const std::string& what) {
  const cudaError_t status = cudaStreamQuery(stream);
  if (status != cudaErrorNotReady) WARPSORT_CUDA_CHECK(status);  // a real error throws
  EXPECT_EQ(status, cudaErrorNotReady)
      << what << ": the stream had finished its spin before the sort call returned, so the "
      << "input was written in time whatever stream the sort used (spin longer)";
}

template <class Key, class Comp>
bool equivalent(const Key& a, const Key& b) {
  return !Comp{}(a, b) && !Comp{}(b, a);
}

template <class Key, class Comp>
void sort_keys_on_stream(const std::vector<Key>& input, const std::string& what) {
  const std::size_t n = input.size();
  owned_stream stream;
  auto staged = to_device(input);  // the real input, copied into `in` by the stream
  auto in = poisoned<Key>(n);
  auto out = poisoned<Key>(n);
  std::size_t temp_bytes = 0;
  warpsort::sort_keys<Key, Comp>(nullptr, temp_bytes, in.get(), out.get(), n, Comp{},
                                 stream.get());
  auto temp = poisoned<unsigned char>(temp_bytes);
  // a first, unhurried run loads every kernel (the gate's and the sort's): loading one may wait
  // for the device to go idle, which would let the spin end before the gated sort is enqueued
  spin_then_copy(stream.get(), 0.0f, in.get(), staged.get(), n * sizeof(Key));
  warpsort::sort_keys<Key, Comp>(temp.get(), temp_bytes, in.get(), out.get(), n, Comp{},
                                 stream.get());
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  WARPSORT_CUDA_CHECK(cudaMemset(in.get(), 0xA5, n * sizeof(Key)));
  WARPSORT_CUDA_CHECK(cudaMemset(out.get(), 0xA5, n * sizeof(Key)));
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());  // allocation and poisoning done

  spin_then_copy(stream.get(), kSpinMs, in.get(), staged.get(), n * sizeof(Key));
  warpsort::sort_keys<Key, Comp>(temp.get(), temp_bytes, in.get(), out.get(), n, Comp{},
                                 stream.get());
  expect_gate_still_closed(stream.get(), what);
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));

  std::vector<Key> expected = input;
  std::sort(expected.begin(), expected.end(), Comp{});
  const std::vector<Key> got = to_host(out.get(), n);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_TRUE((equivalent<Key, Comp>(got[i], expected[i])))
        << what << ": position " << i << " holds " << +got[i] << ", std::sort gives "
        << +expected[i] << " (a sort off the caller's stream reads the poisoned input)";
}

template <class Key, class Value, class Comp>
void sort_pairs_on_stream(const std::vector<Key>& keys, const std::string& what) {
  const std::size_t n = keys.size();
  std::vector<Value> values(n);
  std::iota(values.begin(), values.end(), Value{0});
  owned_stream stream;
  auto staged_keys = to_device(keys);
  auto staged_values = to_device(values);
  auto k_in = poisoned<Key>(n);
  auto v_in = poisoned<Value>(n);
  auto k_out = poisoned<Key>(n);
  auto v_out = poisoned<Value>(n);
  std::size_t temp_bytes = 0;
  warpsort::sort_pairs<Key, Value, Comp>(nullptr, temp_bytes, k_in.get(), k_out.get(), v_in.get(),
                                         v_out.get(), n, Comp{}, stream.get());
  auto temp = poisoned<unsigned char>(temp_bytes);
  // a first, unhurried run loads every kernel (see sort_keys_on_stream)
  spin_then_copy(stream.get(), 0.0f, k_in.get(), staged_keys.get(), n * sizeof(Key));
  spin_then_copy(stream.get(), 0.0f, v_in.get(), staged_values.get(), n * sizeof(Value));
  warpsort::sort_pairs<Key, Value, Comp>(temp.get(), temp_bytes, k_in.get(), k_out.get(),
                                         v_in.get(), v_out.get(), n, Comp{}, stream.get());
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  WARPSORT_CUDA_CHECK(cudaMemset(k_in.get(), 0xA5, n * sizeof(Key)));
  WARPSORT_CUDA_CHECK(cudaMemset(v_in.get(), 0xA5, n * sizeof(Value)));
  WARPSORT_CUDA_CHECK(cudaMemset(k_out.get(), 0xA5, n * sizeof(Key)));
  WARPSORT_CUDA_CHECK(cudaMemset(v_out.get(), 0xA5, n * sizeof(Value)));
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());

  spin_then_copy(stream.get(), kSpinMs, k_in.get(), staged_keys.get(), n * sizeof(Key));
  spin_then_copy(stream.get(), 0.0f, v_in.get(), staged_values.get(), n * sizeof(Value));
  warpsort::sort_pairs<Key, Value, Comp>(temp.get(), temp_bytes, k_in.get(), k_out.get(),
                                         v_in.get(), v_out.get(), n, Comp{}, stream.get());
  expect_gate_still_closed(stream.get(), what);
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));

  // stable: equal keys keep their input order, so the values are the stable order's indices
  std::vector<Value> order(n);
  std::iota(order.begin(), order.end(), Value{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](Value a, Value b) { return Comp{}(keys[a], keys[b]); });
  const std::vector<Key> got_keys = to_host(k_out.get(), n);
  const std::vector<Value> got_values = to_host(v_out.get(), n);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE((equivalent<Key, Comp>(got_keys[i], keys[order[i]])))
        << what << ": key at position " << i << " is " << +got_keys[i] << ", std::stable_sort gives "
        << +keys[order[i]];
    ASSERT_EQ(got_values[i], order[i]) << what << ": value at position " << i;
  }
}

template <class Key>
class Streams : public ::testing::Test {};
TYPED_TEST_SUITE(Streams, all_key_types);

}  // namespace

TYPED_TEST(Streams, SortKeysRunsOnTheCallersStream) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  for (std::size_t n : stream_sizes()) {
    const auto input = make_typed_keys<Key>("uniform", n, 41 * n + 1);
    const std::string what = "n=" + std::to_string(n);
    sort_keys_on_stream<Key, warpsort::less<Key>>(input, "ascending " + what);
    sort_keys_on_stream<Key, warpsort::greater<Key>>(input, "descending " + what);
  }
}

TYPED_TEST(Streams, SortPairsRunsOnTheCallersStream) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  for (std::size_t n : stream_sizes()) {
    const auto keys = make_typed_keys<Key>("eight_distinct", n, 43 * n + 2);
    const std::string what = "n=" + std::to_string(n);
    sort_pairs_on_stream<Key, std::uint32_t, warpsort::less<Key>>(keys, "u32 ascending " + what);
    sort_pairs_on_stream<Key, std::uint64_t, warpsort::greater<Key>>(keys,
                                                                     "u64 descending " + what);
  }
}

namespace {

// Host threads sorting at once on their own streams, each a different size: the sorts' plans
// differ (rounds of different k, so step 4's blocks of different shared memory), and a kernel's
// shared-memory attribute, which launches set, is one for the whole process. A launch must
// never see it lowered by another thread's call (it was: "invalid argument" at a launch).
TEST(Streams, HostThreadsSortingDifferentSizesAtOnce) {
  WARPSORT_REQUIRE_GPU();
  using Key = std::uint32_t;
  const std::vector<std::size_t> sizes = capped({std::size_t{1} << 17, (std::size_t{1} << 20) + 3,
                                                 std::size_t{1} << 22, (std::size_t{1} << 23) + 5});
  std::vector<std::string> errors(sizes.size());
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < sizes.size(); ++t)
    threads.emplace_back([&, t] {
      try {
        WARPSORT_CUDA_CHECK(cudaSetDevice(0));
        const std::size_t n = sizes[t];
        const std::vector<Key> input = make_keys("uniform", n, 40 + t);
        std::vector<Key> expected = input;
        std::sort(expected.begin(), expected.end());
        owned_stream stream;
        auto keys = to_device(input);
        auto out = poisoned<Key>(n);
        std::size_t temp_bytes = 0;
        warpsort::sort_keys<Key>(nullptr, temp_bytes, keys.get(), out.get(), n);
        auto temp = poisoned<unsigned char>(temp_bytes);
        // the poisoning ran on the legacy stream, which this non-blocking stream does not wait for
        WARPSORT_CUDA_CHECK(cudaStreamSynchronize(0));
        for (int rep = 0; rep < 20; ++rep) {
          warpsort::sort_keys<Key>(temp.get(), temp_bytes, keys.get(), out.get(), n, {},
                                   stream.get());
          WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
          if (rep % 5 == 4 && to_host(out.get(), n) != expected)
            throw std::runtime_error("n = " + std::to_string(n) + ": wrong output");
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (std::size_t t = 0; t < sizes.size(); ++t)
    EXPECT_EQ(errors[t], "") << "thread sorting " << sizes[t] << " keys";
}

}  // namespace

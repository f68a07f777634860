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

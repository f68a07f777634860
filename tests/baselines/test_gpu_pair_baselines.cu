// GPU key-value pair baselines against std::stable_sort of (key, value) by key on the host.
// Stable baselines must reproduce std::stable_sort exactly (keys bit for bit, values); the
// unstable one (cub_merge_pairs) must give keys equivalent position by position and the same
// multiset of (key bits, value) pairs. GPU tests start with WARPSORT_REQUIRE_GPU() (they skip,
// with the reason, where no device exists); the factory tests need no device and run everywhere
// (which also shows that the factory does not touch the device).
#include "common/key_type_lists.hpp"
#include "common/test_inputs.hpp"
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "baselines/gpu_baselines_impl.cuh"
#include "baselines/gpu_pair_baselines.cuh"
#include "common/gpu_test.hpp"
#include "warpsort/error.hpp"
#include "warpsort/order.cuh"

namespace wb = warpsort::baselines;

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

namespace {

constexpr unsigned char temp_poison = 0xAB;
constexpr unsigned char guard_byte = 0x5A;
constexpr std::size_t guard_items = 64;

template <class K, class V>
struct kv {
  using Key = K;
  using Value = V;
};

using pair_types = ::testing::Types<kv<std::uint32_t, std::uint32_t>, kv<std::uint32_t, std::uint64_t>,
                                    kv<float, std::uint32_t>, kv<float, std::uint64_t>,
                                    kv<std::uint64_t, std::uint32_t>, kv<std::uint64_t, std::uint64_t>,
                                    kv<std::int64_t, std::uint32_t>, kv<std::int64_t, std::uint64_t>>;

/// Every (key, value) combination the library instantiates, for the device-free factory tests.
using all_pair_types = ::warpsort::testing::all_key_value_types;

template <class Key, class Value>
const wb::detail::sorter_internals* internals_of(const wb::gpu_pair_sorter<Key, Value>& s) {
  return dynamic_cast<const wb::detail::sorter_internals*>(&s);
}

/// A key's bit pattern, zero-extended (for exact comparisons: NaNs, -0.0 vs +0.0).
template <class Key>
std::uint64_t bits_of(const Key& k) {
  std::uint64_t b = 0;
  std::memcpy(&b, &k, sizeof(Key));
  return b;
}

/// Input distributions: "random" (random bit patterns: for floats NaNs, infinities, zeros and
/// denormals included), "few_distinct" (8 keys, so stability matters), "sorted" (ascending),
/// "specials" (floats: +-0, +-inf, NaNs of both signs, +-1, denormals; integers: extremes and
/// small values; few distinct too, and -0.0 / +0.0 are equal keys with different bits).
const std::vector<std::string>& distributions() {
  static const std::vector<std::string> names{"random", "few_distinct", "sorted", "specials"};
  return names;
}

template <class Key>
std::vector<Key> make_keys(const std::string& dist, std::size_t n, std::uint64_t seed) {
  const std::string typed = dist == "random"         ? "uniform"
                            : dist == "few_distinct" ? "eight_distinct"
                                                     : dist;
  return warpsort::testing::make_typed_keys<Key>(typed, n, seed);
}

/// Distinct values (an odd multiplier is a bijection modulo 2^32 and 2^64) using every bit.
template <class Value>
std::vector<Value> make_values(std::size_t n) {
  std::vector<Value> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<Value>(static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull + 0x1234567u);
  return v;
}

std::vector<std::size_t> gpu_sizes() {
  return warpsort::testing::capped(
      {0, 1, 2, 31, 127, 128, 129, 1000, 65537, (std::size_t{1} << 20) + 3});
}

/// The reference: std::stable_sort of the pairs by key (warpsort::less / greater).
template <class Key, class Value>
void reference_sort(const std::vector<Key>& keys, const std::vector<Value>& values,
                    bool descending, std::vector<Key>& want_keys, std::vector<Value>& want_values) {
  const std::size_t n = keys.size();
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  if (descending)
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      return warpsort::greater<Key>{}(keys[a], keys[b]);
    });
  else
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      return warpsort::less<Key>{}(keys[a], keys[b]);
    });
  want_keys.resize(n);
  want_values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    want_keys[i] = keys[idx[i]];
    want_values[i] = values[idx[i]];
  }
}

/// Stable baselines: keys bit for bit and values exactly as std::stable_sort left them.
template <class Key, class Value>
::testing::AssertionResult equal_to_stable_sort(const std::vector<Key>& want_keys,
                                                const std::vector<Value>& want_values,
                                                const std::vector<Key>& got_keys,
                                                const std::vector<Value>& got_values) {
  const std::size_t n = want_keys.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (bits_of(got_keys[i]) != bits_of(want_keys[i]) || got_values[i] != want_values[i])
      return ::testing::AssertionFailure()
             << "first mismatch at " << i << " of " << n << ": got (key bits 0x" << std::hex
             << bits_of(got_keys[i]) << ", value 0x" << +got_values[i] << "), expected (0x"
             << bits_of(want_keys[i]) << ", 0x" << +want_values[i] << ")" << std::dec;
  }
  return ::testing::AssertionSuccess();
}

/// Unstable baselines: keys equivalent to std::stable_sort's position by position, and the
/// same multiset of (key bits, value) pairs (compared after sorting both by (bits, value)).
template <class Key, class Value, class Comp>
::testing::AssertionResult same_pairs_sorted(const std::vector<Key>& want_keys,
                                             const std::vector<Value>& want_values,
                                             const std::vector<Key>& got_keys,
                                             const std::vector<Value>& got_values, Comp comp) {
  const std::size_t n = want_keys.size();
  for (std::size_t i = 0; i < n; ++i)
    if (comp(got_keys[i], want_keys[i]) || comp(want_keys[i], got_keys[i]))
      return ::testing::AssertionFailure()
             << "key order: first mismatch at " << i << " of " << n << ": got key bits 0x"
             << std::hex << bits_of(got_keys[i]) << ", expected one equivalent to 0x"
             << bits_of(want_keys[i]) << std::dec;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> want(n), got(n);
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = {bits_of(want_keys[i]), static_cast<std::uint64_t>(want_values[i])};
    got[i] = {bits_of(got_keys[i]), static_cast<std::uint64_t>(got_values[i])};
  }
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  for (std::size_t i = 0; i < n; ++i)
    if (got[i] != want[i])
      return ::testing::AssertionFailure()
             << "pair multiset differs (at " << i << " of " << n << " after sorting by (key bits, "
             << "value)): got (0x" << std::hex << got[i].first << ", 0x" << got[i].second
             << "), expected (0x" << want[i].first << ", 0x" << want[i].second << ")" << std::dec;
  return ::testing::AssertionSuccess();
}

/// Device array of n items with guard_items items of guard bytes behind it; freed on scope exit.
template <class T>
struct guarded {
  T* d = nullptr;
  std::size_t n = 0;
  explicit guarded(std::size_t count) : n(count) {
    if (cudaMalloc(&d, (n + guard_items) * sizeof(T)) != cudaSuccess) d = nullptr;
  }
  ~guarded() {
    if (d != nullptr) cudaFree(d);
  }
  guarded(const guarded&) = delete;
  guarded& operator=(const guarded&) = delete;

  /// Fills everything with guard bytes (poison), then uploads `host` in front.
  void upload(const std::vector<T>& host) {
    ASSERT_NE(d, nullptr);
    ASSERT_EQ(host.size(), n);
    CUDA_OK(cudaMemset(d, guard_byte, (n + guard_items) * sizeof(T)));
    if (n > 0) CUDA_OK(cudaMemcpy(d, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    // neither call waits for the device: a sort on a non-blocking stream must find both done
    CUDA_OK(cudaStreamSynchronize(cudaStreamLegacy));
  }
  /// Downloads the n items into `out` and expects the guard behind them untouched.
  void download(std::vector<T>& out, const std::string& what) {
    std::vector<T> all(n + guard_items);
    CUDA_OK(cudaMemcpy(all.data(), d, (n + guard_items) * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<unsigned char> guard(guard_items * sizeof(T));
    std::memcpy(guard.data(), all.data() + n, guard.size());
    EXPECT_TRUE(std::all_of(guard.begin(), guard.end(),
                            [](unsigned char b) { return b == guard_byte; }))
        << what << ": wrote past n";
    all.resize(n);
    out = std::move(all);
  }
};

template <class Key, class Value>
void poison_temp(const wb::gpu_pair_sorter<Key, Value>& s) {
  const auto* in = internals_of(s);
  ASSERT_NE(in, nullptr);
  for (const auto& [ptr, bytes] : in->device_buffers())
    CUDA_OK(cudaMemset(ptr, temp_poison, bytes));
}

/// Uploads the pairs behind guard bytes, poisons the sorter's storage, sorts on `stream`,
/// downloads and checks against the std::stable_sort reference.
template <class Key, class Value>
void sort_and_check(wb::gpu_pair_sorter<Key, Value>& sorter, const std::vector<Key>& keys,
                    const std::vector<Value>& values, bool descending,
                    const std::vector<Key>& want_keys, const std::vector<Value>& want_values,
                    cudaStream_t stream, const std::string& what) {
  const std::size_t n = keys.size();
  guarded<Key> dk(n);
  guarded<Value> dv(n);
  ASSERT_NE(dk.d, nullptr) << what;
  ASSERT_NE(dv.d, nullptr) << what;
  dk.upload(keys);
  dv.upload(values);
  poison_temp(sorter);
  CUDA_OK(cudaDeviceSynchronize());

  sorter.sort(dk.d, dv.d, n, descending, stream);
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaGetLastError());

  std::vector<Key> got_keys;
  std::vector<Value> got_values;
  dk.download(got_keys, what + " keys");
  dv.download(got_values, what + " values");
  if (::testing::Test::HasFatalFailure()) return;
  if (sorter.stable()) {
    EXPECT_TRUE(equal_to_stable_sort(want_keys, want_values, got_keys, got_values)) << what;
  } else if (descending) {
    EXPECT_TRUE(same_pairs_sorted(want_keys, want_values, got_keys, got_values,
                                  warpsort::greater<Key>{}))
        << what;
  } else {
    EXPECT_TRUE(
        same_pairs_sorted(want_keys, want_values, got_keys, got_values, warpsort::less<Key>{}))
        << what;
  }
}

template <class Key, class Value>
void sort_and_check(wb::gpu_pair_sorter<Key, Value>& sorter, const std::vector<Key>& keys,
                    bool descending, cudaStream_t stream, const std::string& what) {
  const auto values = make_values<Value>(keys.size());
  std::vector<Key> want_keys;
  std::vector<Value> want_values;
  reference_sort(keys, values, descending, want_keys, want_values);
  sort_and_check(sorter, keys, values, descending, want_keys, want_values, stream, what);
}

}  // namespace

// ---- No device needed -------------------------------------------------------------------

TEST(GpuPairBaselineFactory, NamesInReportOrder) {
  EXPECT_EQ(wb::gpu_pair_baseline_names(),
            (std::vector<std::string>{"cub_radix_pairs", "cub_merge_pairs",
                                      "cub_merge_stable_pairs"}));
}

template <class KV>
class GpuPairBaselineFactory : public ::testing::Test {};
TYPED_TEST_SUITE(GpuPairBaselineFactory, all_pair_types);

TYPED_TEST(GpuPairBaselineFactory, BuildsEveryNameWithoutTouchingTheDevice) {
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  for (const auto& name : wb::gpu_pair_baseline_names()) {
    auto sorter = wb::make_gpu_pair_baseline<Key, Value>(name);
    ASSERT_NE(sorter, nullptr) << name;
    EXPECT_EQ(sorter->name(), name);
    EXPECT_EQ(sorter->stable(), name != "cub_merge_pairs") << name;
    EXPECT_NE(internals_of(*sorter), nullptr) << name;
    // Sizes 0 and 1 need no storage and no device work, in either direction.
    EXPECT_EQ(sorter->temp_bytes(0), 0u) << name;
    EXPECT_EQ(sorter->temp_bytes(1), 0u) << name;
    for (bool descending : {false, true}) {
      sorter->sort(nullptr, nullptr, 0, descending, nullptr);
      sorter->sort(nullptr, nullptr, 1, descending, nullptr);
      // Sorting more than prepare() covered is an input error, raised before any device call.
      EXPECT_THROW(sorter->sort(nullptr, nullptr, 2, descending, nullptr), warpsort::input_error)
          << name;
    }
    sorter->prepare(1);  // needs no storage: still no device call
    EXPECT_TRUE(internals_of(*sorter)->device_buffers().empty()) << name;
    EXPECT_THROW(sorter->sort(nullptr, nullptr, 2, false, nullptr), warpsort::input_error) << name;
  }
}

TYPED_TEST(GpuPairBaselineFactory, RejectsUnknownName) {
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  for (const std::string bad : {"no_such_sort", "cub_radix", "cub_merge", ""}) {
    try {
      (void)wb::make_gpu_pair_baseline<Key, Value>(bad);
      ADD_FAILURE() << "expected warpsort::input_error for '" << bad << "'";
    } catch (const warpsort::input_error& e) {
      EXPECT_NE(std::string(e.what()).find("'" + bad + "'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("cub_radix_pairs"), std::string::npos) << e.what();
    }
  }
}

// ---- GPU ----------------------------------------------------------------------------------

template <class KV>
class GpuPairBaselines : public ::testing::Test {};
TYPED_TEST_SUITE(GpuPairBaselines, pair_types);

// Every baseline x both directions x every distribution x the size list, against
// std::stable_sort of the pairs (one reference per input, shared by the baselines).
TYPED_TEST(GpuPairBaselines, MatchStdStableSort) {
  WARPSORT_REQUIRE_GPU();
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  const auto sizes = gpu_sizes();
  const std::size_t max_n = *std::max_element(sizes.begin(), sizes.end());
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<std::unique_ptr<wb::gpu_pair_sorter<Key, Value>>> sorters;
  for (const auto& name : wb::gpu_pair_baseline_names()) {
    sorters.push_back(wb::make_gpu_pair_baseline<Key, Value>(name));
    auto& sorter = *sorters.back();
    sorter.prepare(max_n);
    const auto* in = internals_of(sorter);
    ASSERT_NE(in, nullptr);
    std::size_t held = 0;
    for (const auto& b : in->device_buffers()) held += b.second;
    EXPECT_EQ(held, sorter.temp_bytes(max_n)) << name;
  }
  std::uint64_t seed = 21;
  for (bool descending : {false, true})
    for (const auto& dist : distributions())
      for (std::size_t n : sizes) {
        if (::testing::Test::HasFatalFailure()) break;
        const auto keys = make_keys<Key>(dist, n, ++seed);
        const auto values = make_values<Value>(n);
        std::vector<Key> want_keys;
        std::vector<Value> want_values;
        reference_sort(keys, values, descending, want_keys, want_values);
        for (auto& sorter : sorters)
          sort_and_check(*sorter, keys, values, descending, want_keys, want_values, stream,
                         sorter->name() + (descending ? " descending " : " ascending ") + dist +
                             " n=" + std::to_string(n));
      }
  CUDA_OK(cudaStreamDestroy(stream));
}

TYPED_TEST(GpuPairBaselines, DefaultStreamAndGrowingPrepare) {
  WARPSORT_REQUIRE_GPU();
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  for (const auto& name : wb::gpu_pair_baseline_names()) {
    auto sorter = wb::make_gpu_pair_baseline<Key, Value>(name);
    sorter->prepare(100);
    sort_and_check(*sorter, make_keys<Key>("few_distinct", 100, 3), false, nullptr,
                   name + " n=100");
    EXPECT_THROW(sorter->sort(nullptr, nullptr, 101, false, nullptr), warpsort::input_error)
        << name;
    sorter->prepare(10);  // smaller: keeps what it has
    sort_and_check(*sorter, make_keys<Key>("random", 100, 4), true, nullptr, name + " n=100 desc");
    sorter->prepare(5000);
    sort_and_check(*sorter, make_keys<Key>("few_distinct", 5000, 5), true, nullptr,
                   name + " n=5000 desc");
    sort_and_check(*sorter, make_keys<Key>("sorted", 77, 6), false, nullptr, name + " n=77");
    std::size_t held = 0;
    for (const auto& b : internals_of(*sorter)->device_buffers()) held += b.second;
    EXPECT_EQ(held, sorter->temp_bytes(5000)) << name;
  }
}

// Two sorts (one ascending, one descending) queued back to back on one stream share the
// temporary storage (stream order); results land in the callers' buffers.
TYPED_TEST(GpuPairBaselines, BackToBackSortsOnOneStream) {
  WARPSORT_REQUIRE_GPU();
  using Key = typename TypeParam::Key;
  using Value = typename TypeParam::Value;
  const std::size_t n1 = 70001, n2 = 65536;
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const auto& name : wb::gpu_pair_baseline_names()) {
    auto sorter = wb::make_gpu_pair_baseline<Key, Value>(name);
    sorter->prepare(n1);
    const auto ka = make_keys<Key>("random", n1, 7);
    const auto kb = make_keys<Key>("few_distinct", n2, 8);
    const auto va = make_values<Value>(n1), vb = make_values<Value>(n2);
    guarded<Key> dka(n1), dkb(n2);
    guarded<Value> dva(n1), dvb(n2);
    dka.upload(ka);
    dkb.upload(kb);
    dva.upload(va);
    dvb.upload(vb);
    if (::testing::Test::HasFatalFailure()) break;
    sorter->sort(dka.d, dva.d, n1, false, stream);
    sorter->sort(dkb.d, dvb.d, n2, true, stream);
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<Key> gka, gkb, wka, wkb;
    std::vector<Value> gva, gvb, wva, wvb;
    dka.download(gka, name + " a keys");
    dkb.download(gkb, name + " b keys");
    dva.download(gva, name + " a values");
    dvb.download(gvb, name + " b values");
    reference_sort(ka, va, false, wka, wva);
    reference_sort(kb, vb, true, wkb, wvb);
    if (sorter->stable()) {
      EXPECT_TRUE(equal_to_stable_sort(wka, wva, gka, gva)) << name;
      EXPECT_TRUE(equal_to_stable_sort(wkb, wvb, gkb, gvb)) << name;
    } else {
      EXPECT_TRUE(same_pairs_sorted(wka, wva, gka, gva, warpsort::less<Key>{})) << name;
      EXPECT_TRUE(same_pairs_sorted(wkb, wvb, gkb, gvb, warpsort::greater<Key>{})) << name;
    }
  }
  CUDA_OK(cudaStreamDestroy(stream));
}

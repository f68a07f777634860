// GPU baselines against std::sort on the host. GPU tests start with WARPSORT_REQUIRE_GPU() (they
// skip, with the reason, where no device exists); the factory tests need no device and run
// everywhere (which also shows that the factory does not touch the device).
#include "common/test_inputs.hpp"
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "baselines/bitonic_index.hpp"
#include "baselines/gpu_baselines.cuh"
#include "baselines/gpu_baselines_impl.cuh"
#include "common/gpu_test.hpp"
#include "key_data.hpp"
#include "warpsort/error.hpp"

namespace wb = warpsort::baselines;
namespace wbt = warpsort::baselines::testing;

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

namespace {

constexpr unsigned char temp_poison = 0xAB;
constexpr unsigned char guard_byte = 0x5A;
constexpr std::size_t guard_keys = 64;

template <class Key>
const wb::detail::sorter_internals* internals_of(const wb::gpu_sorter<Key>& s) {
  return dynamic_cast<const wb::detail::sorter_internals*>(&s);
}

template <class Key>
void poison_temp(const wb::gpu_sorter<Key>& s) {
  const auto* in = internals_of(s);
  ASSERT_NE(in, nullptr);
  for (const auto& [ptr, bytes] : in->device_buffers())
    CUDA_OK(cudaMemset(ptr, temp_poison, bytes));
}

/// Device keys with guard_keys keys of guard bytes behind them; freed on scope exit.
template <class Key>
struct guarded_keys {
  Key* d = nullptr;
  std::size_t n = 0;
  explicit guarded_keys(std::size_t count) : n(count) {
    if (cudaMalloc(&d, (n + guard_keys) * sizeof(Key)) != cudaSuccess) d = nullptr;
  }
  ~guarded_keys() {
    if (d != nullptr) cudaFree(d);
  }
  guarded_keys(const guarded_keys&) = delete;
  guarded_keys& operator=(const guarded_keys&) = delete;
};

/// Uploads input behind guard bytes, sorts on `stream`, downloads; checks the result against
/// std::sort and that the guard behind the keys is untouched.
template <class Key>
void sort_and_check(wb::gpu_sorter<Key>& sorter, const std::vector<Key>& input,
                    cudaStream_t stream, const std::string& what) {
  const std::size_t n = input.size();
  guarded_keys<Key> buf(n);
  ASSERT_NE(buf.d, nullptr) << what;
  CUDA_OK(cudaMemset(buf.d, guard_byte, (n + guard_keys) * sizeof(Key)));
  if (n > 0)
    CUDA_OK(cudaMemcpy(buf.d, input.data(), n * sizeof(Key), cudaMemcpyHostToDevice));
  poison_temp(sorter);
  CUDA_OK(cudaDeviceSynchronize());

  sorter.sort(buf.d, n, stream);
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaGetLastError());

  std::vector<Key> got(n + guard_keys);
  CUDA_OK(cudaMemcpy(got.data(), buf.d, (n + guard_keys) * sizeof(Key), cudaMemcpyDeviceToHost));
  std::vector<unsigned char> guard(guard_keys * sizeof(Key));
  std::memcpy(guard.data(), got.data() + n, guard.size());
  EXPECT_TRUE(std::all_of(guard.begin(), guard.end(), [](unsigned char b) { return b == guard_byte; }))
      << what << ": wrote past n";
  got.resize(n);
  EXPECT_TRUE(wbt::sorted_like_std(input, got)) << what;
}

std::vector<std::size_t> gpu_sizes() {
  std::vector<std::size_t> sizes = wbt::test_sizes();
  sizes.push_back((std::size_t{1} << 20) + 3);
  return warpsort::testing::capped(sizes);  // WARPSORT_TEST_MAX_N, for sanitizer runs
}

}  // namespace

// ---- No device needed -------------------------------------------------------------------

TEST(GpuBaselineFactory, NamesInReportOrder) {
  EXPECT_EQ(wb::gpu_baseline_names(),
            (std::vector<std::string>{"cub_radix", "cub_merge", "thrust_sort",
                                      "thrust_sort_comparator", "bitonic_textbook"}));
}

template <class Key>
class GpuBaselines : public ::testing::Test {};
TYPED_TEST_SUITE(GpuBaselines, wbt::key_types);

TYPED_TEST(GpuBaselines, FactoryBuildsEveryNameWithoutTouchingTheDevice) {
  using Key = TypeParam;
  for (const auto& name : wb::gpu_baseline_names()) {
    auto sorter = wb::make_gpu_baseline<Key>(name);
    ASSERT_NE(sorter, nullptr) << name;
    EXPECT_EQ(sorter->name(), name);
    EXPECT_NE(internals_of(*sorter), nullptr) << name;
    // Sizes 0 and 1 need no storage and no device work.
    EXPECT_EQ(sorter->temp_bytes(0), 0u) << name;
    EXPECT_EQ(sorter->temp_bytes(1), 0u) << name;
    sorter->sort(nullptr, 0, nullptr);
    sorter->sort(nullptr, 1, nullptr);
    // Sorting more than prepare() covered is an input error, raised before any device call.
    EXPECT_THROW(sorter->sort(nullptr, 2, nullptr), warpsort::input_error) << name;
  }
}

TYPED_TEST(GpuBaselines, FactoryRejectsUnknownName) {
  using Key = TypeParam;
  try {
    (void)wb::make_gpu_baseline<Key>("no_such_sort");
    FAIL() << "expected warpsort::input_error";
  } catch (const warpsort::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_sort"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cub_radix"), std::string::npos) << e.what();
  }
}

// ---- GPU ----------------------------------------------------------------------------------

TYPED_TEST(GpuBaselines, SortsSizeListAndPatternsLikeStdSort) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  const auto sizes = gpu_sizes();
  const std::size_t max_n = *std::max_element(sizes.begin(), sizes.end());
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const auto& name : wb::gpu_baseline_names()) {
    auto sorter = wb::make_gpu_baseline<Key>(name);
    sorter->prepare(max_n);
    const auto* in = internals_of(*sorter);
    ASSERT_NE(in, nullptr);
    std::size_t held = 0;
    for (const auto& b : in->device_buffers()) held += b.second;
    EXPECT_EQ(held, sorter->temp_bytes(max_n)) << name;
    for (const auto& pattern : wbt::pattern_names())
      for (std::size_t n : sizes) {
        if (::testing::Test::HasFatalFailure()) break;
        const std::size_t launches_before = in->kernel_launches_so_far();
        sort_and_check(*sorter, wbt::make_keys<Key>(pattern, n, 11), stream,
                       name + " " + pattern + " n=" + std::to_string(n));
        if (name == "bitonic_textbook")
          EXPECT_EQ(in->kernel_launches_so_far() - launches_before, wb::bitonic::kernel_launches(n))
              << "n=" << n;
      }
    EXPECT_EQ(in->unplanned_allocations(), 0u) << name;
  }
  cudaStreamDestroy(stream);
}

TYPED_TEST(GpuBaselines, DefaultStreamAndGrowingPrepare) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  for (const auto& name : wb::gpu_baseline_names()) {
    auto sorter = wb::make_gpu_baseline<Key>(name);
    sorter->prepare(100);
    sort_and_check(*sorter, wbt::make_keys<Key>("uniform", 100, 12), nullptr, name + " n=100");
    EXPECT_THROW(sorter->sort(nullptr, 101, nullptr), warpsort::input_error) << name;
    sorter->prepare(10);  // smaller: keeps what it has
    sorter->prepare(5000);
    sort_and_check(*sorter, wbt::make_keys<Key>("uniform", 5000, 13), nullptr, name + " n=5000");
    sort_and_check(*sorter, wbt::make_keys<Key>("reverse", 77, 14), nullptr, name + " n=77");
    EXPECT_EQ(internals_of(*sorter)->unplanned_allocations(), 0u) << name;
  }
}

// Two sorts queued back to back on one stream share the temporary storage (stream order).
TYPED_TEST(GpuBaselines, BackToBackSortsOnOneStream) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  const std::size_t n1 = 70001, n2 = 65536;
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const auto& name : wb::gpu_baseline_names()) {
    auto sorter = wb::make_gpu_baseline<Key>(name);
    sorter->prepare(n1);
    const auto a = wbt::make_keys<Key>("uniform", n1, 15);
    const auto b = wbt::make_keys<Key>("few_distinct", n2, 16);
    guarded_keys<Key> da(n1), db(n2);
    ASSERT_NE(da.d, nullptr);
    ASSERT_NE(db.d, nullptr);
    CUDA_OK(cudaMemcpy(da.d, a.data(), n1 * sizeof(Key), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(db.d, b.data(), n2 * sizeof(Key), cudaMemcpyHostToDevice));
    // a copy from pageable memory may return before it lands; the non-blocking stream would
    // not wait for it
    CUDA_OK(cudaStreamSynchronize(cudaStreamLegacy));
    sorter->sort(da.d, n1, stream);
    sorter->sort(db.d, n2, stream);
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<Key> ga(n1), gb(n2);
    CUDA_OK(cudaMemcpy(ga.data(), da.d, n1 * sizeof(Key), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(gb.data(), db.d, n2 * sizeof(Key), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(wbt::sorted_like_std(a, ga)) << name;
    EXPECT_TRUE(wbt::sorted_like_std(b, gb)) << name;
    EXPECT_EQ(internals_of(*sorter)->unplanned_allocations(), 0u) << name;
  }
  cudaStreamDestroy(stream);
}

// n > 2^32 (64-bit indices past both 2^31 and 2^32, CUB's 64-bit offset paths, a 2^33-key
// bitonic buffer). Needs about 50 GB of device memory, 40 GB of host memory and a few minutes:
// opt in with WARPSORT_LARGE_TESTS=1.
TEST(GpuBaselinesLarge, MoreThan2e32Uint32Keys) {
  WARPSORT_REQUIRE_GPU();
  const char* opt_in = std::getenv("WARPSORT_LARGE_TESTS");
  if (opt_in == nullptr || std::string(opt_in) != "1")
    GTEST_SKIP() << "large test skipped: set WARPSORT_LARGE_TESTS=1 to run it";
  using Key = std::uint32_t;
  const std::size_t n = (std::size_t{1} << 32) + 17;
  std::vector<Key> input(n);
  std::uint64_t x = 0x243F6A8885A308D3ull;
  for (auto& k : input) {  // xorshift64*
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    k = static_cast<Key>((x * 0x2545F4914F6CDD1Dull) >> 32);
  }
  std::uint64_t sum = 0, sq = 0;
  for (Key k : input) {
    sum += k;
    sq += static_cast<std::uint64_t>(k) * k;
  }
  guarded_keys<Key> d(n);
  ASSERT_NE(d.d, nullptr);
  std::vector<Key> got(n);
  for (const auto& name : wb::gpu_baseline_names()) {
    auto sorter = wb::make_gpu_baseline<Key>(name);
    std::size_t free_b = 0, total_b = 0;
    CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
    if (sorter->temp_bytes(n) > free_b) {
      ADD_FAILURE() << name << ": needs " << sorter->temp_bytes(n) << " bytes, " << free_b
                    << " free";
      continue;
    }
    sorter->prepare(n);
    CUDA_OK(cudaMemcpy(d.d, input.data(), n * sizeof(Key), cudaMemcpyHostToDevice));
    sorter->sort(d.d, n, nullptr);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(got.data(), d.d, n * sizeof(Key), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::is_sorted(got.begin(), got.end())) << name;
    std::uint64_t gsum = 0, gsq = 0;
    for (Key k : got) {
      gsum += k;
      gsq += static_cast<std::uint64_t>(k) * k;
    }
    EXPECT_EQ(gsum, sum) << name;
    EXPECT_EQ(gsq, sq) << name;
  }
}

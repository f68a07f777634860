// CPU baselines against std::sort: every baseline x the size list x every key type x patterns.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "baselines/cpu_baselines.hpp"
#include "key_data.hpp"
#include "warpsort/error.hpp"

namespace wb = warpsort::baselines;
using wb::testing::make_keys;
using wb::testing::pattern_names;
using wb::testing::sorted_like_std;
using wb::testing::test_sizes;

template <class Key>
class CpuBaselines : public ::testing::Test {};
TYPED_TEST_SUITE(CpuBaselines, wb::testing::key_types);

TEST(CpuBaselineNames, ReportOrder) {
  EXPECT_EQ(wb::cpu_baseline_names(),
            (std::vector<std::string>{"cpu_bitonic_seq", "cpu_bitonic_par", "std_sort",
                                      "tbb_parallel_sort"}));
}

TEST(CpuBaselineNames, UnknownNameThrowsInputError) {
  std::uint32_t keys[2] = {2, 1};
  try {
    wb::cpu_sort<std::uint32_t>("no_such_sort", keys, 2);
    FAIL() << "expected warpsort::input_error";
  } catch (const warpsort::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_sort"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cpu_bitonic_seq"), std::string::npos) << e.what();
  }
  EXPECT_EQ(keys[0], 2u);  // untouched
}

TYPED_TEST(CpuBaselines, EveryBaselineByNameDefaultThreads) {
  using Key = TypeParam;
  for (const auto& name : wb::cpu_baseline_names())
    for (const auto& pattern : pattern_names())
      for (std::size_t n : test_sizes()) {
        const auto input = make_keys<Key>(pattern, n);
        auto got = input;
        wb::cpu_sort(name, got.data(), n);
        EXPECT_TRUE(sorted_like_std(input, got)) << name << " " << pattern << " n=" << n;
      }
}

TYPED_TEST(CpuBaselines, BitonicSequential) {
  using Key = TypeParam;
  for (const auto& pattern : pattern_names())
    for (std::size_t n : test_sizes()) {
      const auto input = make_keys<Key>(pattern, n, 2);
      auto got = input;
      wb::cpu_bitonic_sort_sequential(got.data(), n);
      EXPECT_TRUE(sorted_like_std(input, got)) << pattern << " n=" << n;
    }
}

TYPED_TEST(CpuBaselines, BitonicParallelThreadCounts) {
  using Key = TypeParam;
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (const auto& pattern : pattern_names())
      for (std::size_t n : test_sizes()) {
        const auto input = make_keys<Key>(pattern, n, 3);
        auto got = input;
        wb::cpu_bitonic_sort_parallel(got.data(), n, threads);
        EXPECT_TRUE(sorted_like_std(input, got))
            << pattern << " n=" << n << " threads=" << threads;
      }
}

// A small grain forces the threaded sort and merge down to tiny subsequences, so the chunked
// compare-exchange loops and the thread splits run on every size of the list.
TYPED_TEST(CpuBaselines, BitonicParallelSmallGrain) {
  using Key = TypeParam;
  for (std::size_t grain : {std::size_t{2}, std::size_t{4}, std::size_t{64}})
    for (unsigned threads : {2u, 3u, 8u})
      for (const auto& pattern : {std::string("uniform"), std::string("few_distinct"),
                                  std::string("extremes")})
        for (std::size_t n : test_sizes()) {
          const auto input = make_keys<Key>(pattern, n, 4);
          auto got = input;
          wb::detail::cpu_bitonic_sort_parallel_grain(got.data(), n, threads, grain);
          EXPECT_TRUE(sorted_like_std(input, got))
              << pattern << " n=" << n << " threads=" << threads << " grain=" << grain;
        }
}

TYPED_TEST(CpuBaselines, TbbThreadCounts) {
  using Key = TypeParam;
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (std::size_t n : test_sizes()) {
      const auto input = make_keys<Key>("uniform", n, 5);
      auto got = input;
      wb::cpu_sort("tbb_parallel_sort", got.data(), n, threads);
      EXPECT_TRUE(sorted_like_std(input, got)) << "n=" << n << " threads=" << threads;
    }
}

// Every size from 0 to 300: all padding amounts below and above small powers of two.
TYPED_TEST(CpuBaselines, BitonicEverySmallSize) {
  using Key = TypeParam;
  for (std::size_t n = 0; n <= 300; ++n) {
    const auto input = make_keys<Key>("uniform", n, 6);
    auto seq = input;
    wb::cpu_bitonic_sort_sequential(seq.data(), n);
    EXPECT_TRUE(sorted_like_std(input, seq)) << "seq n=" << n;
    auto par = input;
    wb::detail::cpu_bitonic_sort_parallel_grain(par.data(), n, 3, 2);
    EXPECT_TRUE(sorted_like_std(input, par)) << "par n=" << n;
  }
}

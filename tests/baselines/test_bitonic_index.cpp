// The textbook bitonic sort's index math and launch schedule (bitonic_index.hpp), on the CPU.
// The schedule replay runs each launch kind with the same index functions and compare-exchange
// as the GPU kernels (pairs of one step are disjoint, so running them one after another is what
// the threads of a step do together).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "baselines/bitonic_index.hpp"
#include "key_data.hpp"

namespace bt = warpsort::baselines::bitonic;
namespace wbt = warpsort::baselines::testing;

TEST(BitonicIndex, NextPow2AndLog2) {
  EXPECT_EQ(bt::next_pow2(0), 1u);
  EXPECT_EQ(bt::next_pow2(1), 1u);
  EXPECT_EQ(bt::next_pow2(2), 2u);
  EXPECT_EQ(bt::next_pow2(3), 4u);
  EXPECT_EQ(bt::next_pow2(1024), 1024u);
  EXPECT_EQ(bt::next_pow2(1025), 2048u);
  EXPECT_EQ(bt::next_pow2((std::size_t{1} << 31) + 1), std::size_t{1} << 32);
  EXPECT_EQ(bt::next_pow2((std::size_t{1} << 40) - 1), std::size_t{1} << 40);
  for (unsigned r = 0; r < 63; ++r) EXPECT_EQ(bt::log2_pow2(std::size_t{1} << r), r);
  EXPECT_EQ(bt::tile_threads * 2u, bt::tile_keys);
  EXPECT_EQ(bt::tile_len(4), 4u);
  EXPECT_EQ(bt::tile_len(bt::tile_keys), bt::tile_keys);
  EXPECT_EQ(bt::tile_len(std::size_t{1} << 30), bt::tile_keys);
}

TEST(BitonicIndex, PairLowIsTheTextbookFormula) {
  for (std::size_t j = 1; j <= (std::size_t{1} << 20); j <<= 1)
    for (std::size_t pair : {std::size_t{0}, std::size_t{1}, j - 1, j, j + 1, 3 * j + 5,
                             std::size_t{123456789}, (std::size_t{1} << 33) + 7}) {
      const std::size_t i = bt::pair_low(pair, j);
      EXPECT_EQ(i, (pair / j) * 2 * j + pair % j) << "pair=" << pair << " j=" << j;
      EXPECT_EQ(i & j, 0u);
      EXPECT_EQ(bt::pair_high(pair, j), i + j);
      EXPECT_EQ(bt::pair_high(pair, j), i ^ j);
    }
}

// Every step (j = 1 .. P/2) of every P up to 2^13: the P/2 pairs touch each position exactly once.
TEST(BitonicIndex, PairsCoverEveryPositionOncePerStep) {
  for (std::size_t P = 2; P <= (std::size_t{1} << 13); P <<= 1)
    for (std::size_t j = 1; j < P; j <<= 1) {
      std::vector<int> hits(P, 0);
      for (std::size_t pair = 0; pair < P / 2; ++pair) {
        const std::size_t lo = bt::pair_low(pair, j), hi = bt::pair_high(pair, j);
        ASSERT_LT(hi, P) << "P=" << P << " j=" << j << " pair=" << pair;
        ++hits[lo];
        ++hits[hi];
      }
      for (std::size_t i = 0; i < P; ++i)
        ASSERT_EQ(hits[i], 1) << "P=" << P << " j=" << j << " position " << i;
    }
}

TEST(BitonicIndex, DirectionRule) {
  // Stage k: runs of k keys alternate ascending/descending, beginning ascending.
  for (std::size_t k = 2; k <= 4096; k <<= 1)
    for (std::size_t i = 0; i < 4 * k; ++i)
      EXPECT_EQ(bt::ascending(i, k), (i / k) % 2 == 0) << "i=" << i << " k=" << k;
  // The last stage (k = P) is ascending everywhere.
  const std::size_t P = std::size_t{1} << 34;
  for (std::size_t i : {std::size_t{0}, std::size_t{1}, P / 2, P - 1}) EXPECT_TRUE(bt::ascending(i, P));
  // Inside a tile merge (k > tile) every pair of a tile shares the direction of the tile's base.
  for (std::size_t k = 2 * bt::tile_keys; k <= 8 * bt::tile_keys; k <<= 1)
    for (std::size_t base = 0; base < 16 * bt::tile_keys; base += bt::tile_keys)
      for (std::size_t i = 0; i < bt::tile_keys; i += 97)
        EXPECT_EQ(bt::ascending(base + i, k), bt::ascending(base, k));
}

TEST(BitonicIndex, CompareExchange) {
  int a[2] = {5, 3};
  bt::compare_exchange(a, 0, 1, true);
  EXPECT_EQ(a[0], 3);
  EXPECT_EQ(a[1], 5);
  bt::compare_exchange(a, 0, 1, false);
  EXPECT_EQ(a[0], 5);
  EXPECT_EQ(a[1], 3);
  bt::compare_exchange(a, 0, 1, false);
  EXPECT_EQ(a[0], 5);
  EXPECT_EQ(a[1], 3);
}

TEST(BitonicIndex, PadKey) {
  EXPECT_EQ(bt::pad_key<std::uint32_t>(), std::numeric_limits<std::uint32_t>::max());
  EXPECT_EQ(bt::pad_key<std::int64_t>(), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(bt::pad_key<float>(), std::numeric_limits<float>::infinity());
  EXPECT_EQ(bt::pad_key<double>(), std::numeric_limits<double>::infinity());
}

// The launch list: fill first iff padding, one tile sort, then per stage k > tile the global
// steps j = k/2 .. tile in order and one tile merge; its length is kernel_launches(n).
TEST(BitonicIndex, LaunchScheduleShapeAndCount) {
  EXPECT_EQ(bt::kernel_launches(0), 0u);
  EXPECT_EQ(bt::kernel_launches(1), 0u);
  EXPECT_EQ(bt::kernel_launches(2), 1u);
  EXPECT_EQ(bt::kernel_launches(3), 2u);
  EXPECT_EQ(bt::kernel_launches(2048), 1u);
  EXPECT_EQ(bt::kernel_launches(4096), 3u);      // tile sort, global j=2048, tile merge
  EXPECT_EQ(bt::kernel_launches(1u << 24), 105u);  // s = 13: 1 + 13 + 91
  EXPECT_EQ(bt::kernel_launches((1u << 20) + 3), 1u + 1u + 10u + 55u);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3},
                        std::size_t{2047}, std::size_t{2049}, std::size_t{4099}, std::size_t{65537},
                        (std::size_t{1} << 31) + 1, std::size_t{1} << 36}) {
    std::vector<bt::launch> launches;
    bt::for_each_launch(n, [&](const bt::launch& l) { launches.push_back(l); });
    ASSERT_EQ(launches.size(), bt::kernel_launches(n)) << "n=" << n;
    if (n <= 1) continue;
    const std::size_t P = bt::next_pow2(n);
    std::size_t at = 0;
    if (P != n) EXPECT_EQ(launches[at++].kind, bt::launch_kind::fill);
    EXPECT_EQ(launches[at].kind, bt::launch_kind::tile_sort);
    EXPECT_EQ(launches[at++].k, bt::tile_len(P));
    for (std::size_t k = 2 * bt::tile_keys; k <= P; k <<= 1) {
      for (std::size_t j = k / 2; j >= bt::tile_keys; j >>= 1) {
        EXPECT_EQ(launches[at].kind, bt::launch_kind::global_step);
        EXPECT_EQ(launches[at].k, k);
        EXPECT_EQ(launches[at++].j, j);
      }
      EXPECT_EQ(launches[at].kind, bt::launch_kind::tile_merge);
      EXPECT_EQ(launches[at++].k, k);
    }
    EXPECT_EQ(at, launches.size());
  }
}

namespace {

// CPU replay of bitonic_textbook's sort: the same buffer handling and launch list, each kernel
// emulated with the device code's index functions (a block's tile = tile_len(P) keys; thread t
// owns pair t of the tile in every step).
template <class Key>
void replay(std::vector<Key>& keys) {
  const std::size_t n = keys.size();
  if (n <= 1) return;
  const std::size_t P = bt::next_pow2(n);
  std::vector<Key> buf(keys);
  buf.resize(P);  // the copy into the padded buffer; [n, P) is written by the fill launch
  const std::size_t len = bt::tile_len(P);
  bt::for_each_launch(n, [&](const bt::launch& l) {
    switch (l.kind) {
      case bt::launch_kind::fill:
        for (std::size_t i = n; i < P; ++i) buf[i] = bt::pad_key<Key>();
        break;
      case bt::launch_kind::tile_sort:
        for (std::size_t base = 0; base < P; base += len)
          for (std::size_t k = 2; k <= len; k <<= 1)
            for (std::size_t j = k / 2; j > 0; j /= 2)
              for (std::size_t t = 0; t < len / 2; ++t) {
                const std::size_t i = bt::pair_low(t, j);
                bt::compare_exchange(buf.data() + base, i, j, bt::ascending(base + i, k));
              }
        break;
      case bt::launch_kind::tile_merge:
        for (std::size_t base = 0; base < P; base += bt::tile_keys)
          for (std::size_t j = bt::tile_threads; j > 0; j /= 2)
            for (std::size_t t = 0; t < bt::tile_threads; ++t)
              bt::compare_exchange(buf.data() + base, bt::pair_low(t, j), j,
                                   bt::ascending(base, l.k));
        break;
      case bt::launch_kind::global_step:
        for (std::size_t p = 0; p < P / 2; ++p) {
          const std::size_t i = bt::pair_low(p, l.j);
          bt::compare_exchange(buf.data(), i, l.j, bt::ascending(i, l.k));
        }
        break;
    }
  });
  std::copy(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n), keys.begin());
}

}  // namespace

template <class Key>
class BitonicReplay : public ::testing::Test {};
TYPED_TEST_SUITE(BitonicReplay, wbt::key_types);

TYPED_TEST(BitonicReplay, SortsTheSizeList) {
  using Key = TypeParam;
  for (const auto& pattern : wbt::pattern_names())
    for (std::size_t n : wbt::test_sizes()) {
      const auto input = wbt::make_keys<Key>(pattern, n, 7);
      auto got = input;
      replay(got);
      EXPECT_TRUE(wbt::sorted_like_std(input, got)) << pattern << " n=" << n;
    }
}

TYPED_TEST(BitonicReplay, SortsEverySizeUpTo300AndAroundTwoTiles) {
  using Key = TypeParam;
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 300; ++n) sizes.push_back(n);
  for (std::size_t n = 4090; n <= 4100; ++n) sizes.push_back(n);
  sizes.push_back(8193);
  for (std::size_t n : sizes) {
    const auto input = wbt::make_keys<Key>("uniform", n, 8);
    auto got = input;
    replay(got);
    EXPECT_TRUE(wbt::sorted_like_std(input, got)) << "n=" << n;
  }
}

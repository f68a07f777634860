// CPU tests of the steps' index math, against plain C++ models (these run in CI).
#include <warpsort/detail/stages/index_math.hpp>
#include <warpsort/stages.hpp>

#include <warpsort/key_types.hpp>
#include <warpsort/policy.hpp>
#include <warpsort/warpsort.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace ws = warpsort::stages;

namespace {

std::vector<std::uint32_t> sorted_keys(std::size_t n, std::uint32_t distinct, std::mt19937_64& rng) {
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = static_cast<std::uint32_t>(rng() % distinct);
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST(IndexMath, CeilHelpers) {
  EXPECT_EQ(ws::ceil_div(0, 128), 0u);
  EXPECT_EQ(ws::ceil_div(129, 128), 2u);
  EXPECT_EQ(ws::ceil_log2(1), 0);
  EXPECT_EQ(ws::ceil_log2(2), 1);
  EXPECT_EQ(ws::ceil_log2(3), 2);
  EXPECT_EQ(ws::ceil_log2(32), 5);
  EXPECT_EQ(ws::ceil_log2(33), 6);
}

TEST(IndexMath, LayoutsCoverEverySlotOnce) {
  for (int v : {1, 2, 4, 8}) {
    std::set<int> blocked, striped;
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < v; ++r) {
        blocked.insert(ws::blocked_slot(lane, r, v));
        striped.insert(ws::striped_slot(lane, r));
      }
    EXPECT_EQ(blocked.size(), static_cast<std::size_t>(32 * v));
    EXPECT_EQ(*blocked.rbegin(), 32 * v - 1);
    EXPECT_EQ(striped.size(), static_cast<std::size_t>(32 * v));
    EXPECT_EQ(*striped.rbegin(), 32 * v - 1);
  }
}

// The direction rule, applied to all (k, j) steps of a 128-slot network, sorts any input.
TEST(IndexMath, BitonicDirectionRuleSortsOnTheCpu) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<int> v(128);
    for (auto& x : v) x = static_cast<int>(rng() % 20);
    for (int k = 2; k <= 128; k *= 2)
      for (int j = k / 2; j >= 1; j /= 2) {
        std::vector<int> next(v);
        for (int s = 0; s < 128; ++s) {
          const int partner = s ^ j;
          next[s] = ws::keeps_min(s, k, j) ? std::min(v[s], v[partner]) : std::max(v[s], v[partner]);
        }
        v = next;
      }
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
  }
}

TEST(IndexMath, PairBoundsTileTheInput) {
  for (std::size_t n : {0ul, 1ul, 127ul, 128ul, 129ul, 1000ul, 4096ul, 4097ul}) {
    for (std::size_t seq : {128ul, 256ul, 1024ul}) {
      std::size_t expect = 0;
      for (std::size_t p = 0; p < ws::ceil_div(n, 2 * seq); ++p) {
        const auto b = ws::pair_of(p, seq, n);
        EXPECT_EQ(b.a_begin, expect);
        EXPECT_LE(b.a_end - b.a_begin, seq);
        EXPECT_LE(b.b_end - b.a_end, seq);
        EXPECT_TRUE(b.b_end == n || b.b_end - b.a_begin == 2 * seq);
        expect = b.b_end;
      }
      EXPECT_EQ(expect, n);
    }
  }
  // 64-bit offsets past 2^32
  const std::size_t big = (std::size_t{1} << 33) + 12345;
  const auto b = ws::pair_of(ws::ceil_div(big, 2 << 20) - 1, std::size_t{1} << 20, big);
  EXPECT_EQ(b.b_end, big);
  EXPECT_GT(b.a_begin, std::size_t{1} << 32);
}

TEST(IndexMath, MergePathMatchesAStableMerge) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const auto a = sorted_keys(rng() % 70, 1 + rng() % 10, rng);
    const auto b = sorted_keys(rng() % 70, 1 + rng() % 10, rng);
    // Reference: stable merge, tagging where each output came from.
    std::vector<std::pair<std::uint32_t, int>> tagged;
    std::size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
      if (j == b.size() || (i < a.size() && !(b[j] < a[i])))
        tagged.push_back({a[i++], 0});
      else
        tagged.push_back({b[j++], 1});
    }
    std::size_t from_a = 0;
    for (std::size_t d = 0; d <= a.size() + b.size(); ++d) {
      EXPECT_EQ(ws::merge_path(a.data(), a.size(), b.data(), b.size(), d, std::less<>()), from_a);
      if (d < tagged.size() && tagged[d].second == 0) ++from_a;
    }
  }
}

TEST(IndexMath, BitonicTileSlots) {
  using ws::tile_source;
  // full tile: 3 keys of A, then 5 of B reversed
  for (int s = 0; s < 3; ++s) EXPECT_EQ(ws::bitonic_tile_slot(s, 3, 5, 8).from, tile_source::a);
  for (int s = 3; s < 8; ++s) {
    EXPECT_EQ(ws::bitonic_tile_slot(s, 3, 5, 8).from, tile_source::b);
    EXPECT_EQ(ws::bitonic_tile_slot(s, 3, 5, 8).index, 7 - s);
  }
  // partial tile: the gap between the two shares is padding
  EXPECT_EQ(ws::bitonic_tile_slot(2, 2, 3, 8).from, tile_source::pad);
  EXPECT_EQ(ws::bitonic_tile_slot(4, 2, 3, 8).from, tile_source::pad);
  EXPECT_EQ(ws::bitonic_tile_slot(5, 2, 3, 8).index, 2);
  EXPECT_EQ(ws::bitonic_tile_slot(7, 2, 3, 8).index, 0);
}

TEST(IndexMath, MergeBlocks) {
  EXPECT_EQ(ws::merge_blocks(0, 4096), 0u);
  EXPECT_EQ(ws::merge_blocks(4096, 4096), 1u);
  EXPECT_EQ(ws::merge_blocks(4097, 4096), 2u);
}

/// The bitonic merge network on `tile` slots, run on the CPU exactly as the warp runs it:
/// partners j = tile/2, ..., 1 apart, the lower slot keeps the smaller key.
static std::vector<std::uint32_t> bitonic_merge_network(std::vector<std::uint32_t> v) {
  for (std::size_t j = v.size() / 2; j > 0; j /= 2)
    for (std::size_t s = 0; s < v.size(); ++s)
      if ((s & j) == 0 && v[s ^ j] < v[s]) std::swap(v[s], v[s ^ j]);
  return v;
}

// A CPU model of the tile merge (steps 1, 2 and 4): merge path cuts the outputs into tiles of
// 256 (outputs_from, as merge_range_by_warp cuts them), each tile is loaded by bitonic_tile_slot
// and sorted by the merge network alone. It must
// reproduce std::merge for any lengths, with duplicates and keys equal to the sentinel.
TEST(IndexMath, TileMergeModelReproducesStdMerge) {
  constexpr int tile = warpsort::policy::merge_tile_keys;
  const std::uint32_t pad = ~0u;
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 400; ++trial) {
    const std::uint32_t distinct = trial % 2 ? 5 : 1u << 30;
    auto a = sorted_keys(rng() % 1200, distinct, rng);
    auto b = sorted_keys(rng() % 1200, distinct, rng);
    if (trial % 7 == 0) a.push_back(pad);  // real keys equal to the sentinel
    const std::size_t total = a.size() + b.size();
    std::vector<std::uint32_t> got;
    int a0 = 0;
    for (int d = 0; d < static_cast<int>(total); d += tile) {
      const int count = ws::outputs_from(d, static_cast<int>(total), tile);
      const int a1 = static_cast<int>(
          ws::merge_path(a.data(), a.size(), b.data(), b.size(), d + count, std::less<>()));
      const int na = a1 - a0, nb = count - na, b0 = d - a0;
      std::vector<std::uint32_t> v(tile);
      for (int s = 0; s < tile; ++s) {
        const auto t = ws::bitonic_tile_slot(s, na, nb, tile);
        v[s] = t.from == ws::tile_source::a   ? a[a0 + t.index]
               : t.from == ws::tile_source::b ? b[b0 + t.index]
                                              : pad;
      }
      v = bitonic_merge_network(v);
      got.insert(got.end(), v.begin(), v.begin() + count);
      a0 = a1;
    }
    std::vector<std::uint32_t> expect(total);
    std::merge(a.begin(), a.end(), b.begin(), b.end(), expect.begin());
    ASSERT_EQ(got, expect) << "trial " << trial;
  }
}

TEST(IndexMath, SampleSites) {
  // 3 sequences of 1000 (the last 700), stride 64: 15 samples each, 10 in the last
  const std::size_t seq = 1000, stride = 64;
  EXPECT_EQ(ws::samples_in(seq, stride), 15u);
  EXPECT_EQ(ws::samples_in(700, stride), 10u);
  for (std::size_t m = 0; m < 40; ++m) {
    const auto site = ws::sample_site_of(m, ws::samples_in(seq, stride), stride);
    EXPECT_EQ(site.sequence, m / 15);
    EXPECT_EQ(site.position, (m % 15) * 64 + 63);
    EXPECT_LT(site.position, seq);
  }
  EXPECT_EQ(ws::splitter_rank(0, 32), 31u);
  EXPECT_EQ(ws::splitter_rank(2, 32), 95u);
}

TEST(IndexMath, CutWindow) {
  // no sample in: the cut is before the first sample (key s - 1)
  EXPECT_EQ(ws::cut_window(0, 10, 95).begin, 0u);
  EXPECT_EQ(ws::cut_window(0, 10, 95).end, 9u);
  // samples 0..3 in (keys 9, 19, 29, 39), sample 4 (key 49) out
  EXPECT_EQ(ws::cut_window(4, 10, 95).begin, 40u);
  EXPECT_EQ(ws::cut_window(4, 10, 95).end, 49u);
  // every sample in (9 of them, the last at key 89): up to the sequence's end
  EXPECT_EQ(ws::cut_window(9, 10, 95).begin, 90u);
  EXPECT_EQ(ws::cut_window(9, 10, 95).end, 95u);
  EXPECT_EQ(ws::cut_window(9, 10, 90).begin, 90u);
  EXPECT_EQ(ws::cut_window(9, 10, 90).end, 90u);
}

// The whole of step 3 as a plain C++ model on L sorted sequences: regular samples ordered by
// (key, position), every K-th a splitter, every sequence cut with cut_sequence. Checked:
// ranking each sample by sample_cut places it where sorting the sample does; the splitter's
// sample cut in a sequence names a window of fewer than s keys holding the cut (cut_window);
// cuts equal a brute-force count of elements ordered at or before each splitter, groups are
// ordered, sizes sum to N, no group over (K + L) s, and offsets are the prefix sum of sizes.
TEST(IndexMath, SplittingModelIsBalancedAndOrdered) {
  std::mt19937_64 rng(5);
  for (std::uint32_t distinct : {1u, 2u, 8u, 1000u, 1u << 31}) {
    for (std::size_t L : {2ul, 3ul, 8ul, 32ul}) {
      const std::size_t seq_len = 1024, K = 32, capacity = 8192;
      const std::size_t n = (L - 1) * seq_len + 1 + rng() % seq_len;
      const std::size_t s = capacity / (K + L);
      std::vector<std::uint32_t> keys;
      for (std::size_t i = 0; i < L; ++i) {
        auto part = sorted_keys(std::min(seq_len, n - i * seq_len), distinct, rng);
        keys.insert(keys.end(), part.begin(), part.end());
      }
      // sample and order by (key, position)
      std::vector<std::pair<std::uint32_t, std::size_t>> sample;
      const std::size_t samples = (L - 1) * ws::samples_in(seq_len, s) +
                                  ws::samples_in(n - (L - 1) * seq_len, s);
      for (std::size_t m = 0; m < samples; ++m) {
        const auto site = ws::sample_site_of(m, ws::samples_in(seq_len, s), s);
        const std::size_t pos = site.sequence * seq_len + site.position;
        sample.push_back({keys[pos], pos});
      }
      // each sample's rank by sample_cut (no sort) is its place in the sorted sample
      std::vector<std::pair<std::uint32_t, std::size_t>> ranked(samples);
      for (std::size_t m = 0; m < samples; ++m) {
        const auto site = ws::sample_site_of(m, ws::samples_in(seq_len, s), s);
        const std::size_t index = m - site.sequence * ws::samples_in(seq_len, s);
        std::size_t at_or_before = 0;
        for (std::size_t i = 0; i < L; ++i) {
          const std::size_t begin = i * seq_len, len = std::min(seq_len, n - begin);
          at_or_before += ws::sample_cut(keys.data() + begin, len, s, i, site.sequence, index,
                                         sample[m].first, std::less<>());
        }
        ASSERT_GE(at_or_before, 1u);
        ASSERT_LE(at_or_before, samples);
        ranked[at_or_before - 1] = sample[m];
      }
      std::sort(sample.begin(), sample.end());
      ASSERT_EQ(ranked, sample) << "distinct " << distinct << " L " << L;
      const std::size_t groups = samples > K ? ws::ceil_div(samples, K) : 1;
      std::vector<std::size_t> offsets{0}, sizes;
      std::vector<std::vector<std::size_t>> cuts;
      for (std::size_t j = 0; j + 1 < groups; ++j) {
        const auto [key, pos] = sample[ws::splitter_rank(j, K)];
        std::vector<std::size_t> row;
        std::size_t below = 0;
        for (std::size_t i = 0; i < L; ++i) {
          const std::size_t begin = i * seq_len, len = std::min(seq_len, n - begin);
          const std::size_t cut = ws::cut_sequence(keys.data() + begin, len, i, pos / seq_len,
                                                   pos % seq_len, key, std::less<>());
          std::size_t brute = 0;  // elements (k, p) <= (key, pos)
          for (std::size_t x = 0; x < len; ++x)
            brute += std::make_pair(keys[begin + x], begin + x) <= std::make_pair(key, pos);
          ASSERT_EQ(cut, brute);
          // the splitter's sample cut in this sequence narrows the search to < s keys
          const std::size_t index = (pos % seq_len + 1) / s - 1;
          const std::size_t c = ws::sample_cut(keys.data() + begin, len, s, i, pos / seq_len,
                                               index, key, std::less<>());
          const auto window = ws::cut_window(c, s, len);
          ASSERT_LE(window.begin, cut);
          ASSERT_LE(cut, window.end);
          ASSERT_LT(window.end - window.begin, s);
          ASSERT_EQ(ws::cut_sequence_between(keys.data() + begin, window.begin, window.end, i,
                                             pos / seq_len, pos % seq_len, key, std::less<>()),
                    cut);
          row.push_back(cut);
          below += cut;
        }
        cuts.push_back(row);
        offsets.push_back(below);
      }
      offsets.push_back(n);
      // group j's range in sequence i
      auto range = [&](std::size_t j, std::size_t i) {
        const std::size_t len = std::min(seq_len, n - i * seq_len);
        return std::make_pair(j == 0 ? 0 : cuts[j - 1][i], j + 1 < groups ? cuts[j][i] : len);
      };
      for (std::size_t j = 0; j < groups; ++j) {
        const std::size_t size = offsets[j + 1] - offsets[j];
        sizes.push_back(size);
        EXPECT_LE(size, (K + L) * s) << "distinct " << distinct << " L " << L << " group " << j;
        if (j + 1 == groups) continue;
        // every key of group j orders at or before every key of group j + 1
        std::uint32_t max_j = 0, min_next = ~0u;
        for (std::size_t i = 0; i < L; ++i) {
          const auto [lo, hi] = range(j, i);
          const auto [lo2, hi2] = range(j + 1, i);
          if (hi > lo) max_j = std::max(max_j, keys[i * seq_len + hi - 1]);
          if (hi2 > lo2) min_next = std::min(min_next, keys[i * seq_len + lo2]);
        }
        EXPECT_LE(max_j, min_next);
      }
      std::vector<std::size_t> prefix(groups + 1, 0);
      std::partial_sum(sizes.begin(), sizes.end(), prefix.begin() + 1);
      EXPECT_EQ(prefix, offsets);
      if (distinct == 1 && groups > 1)  // all keys equal: still many balanced groups
        EXPECT_LE(*std::max_element(sizes.begin(), sizes.end()), 2 * K * s);
    }
  }
}

// Small inputs run with smaller on-chip blocks (enough of them to spread over the SMs); large
// ones with the policy as given. Blocks only ever shrink, never below the floor.
TEST(Plan, SizedForSmallInputs) {
  const warpsort::ablation::design p = warpsort::ablation::v4_for(4);
  const auto same = [](const warpsort::ablation::design& a, const warpsort::ablation::design& b) {
    return a.block_sort_keys == b.block_sort_keys && a.merge_block_keys == b.merge_block_keys &&
           a.group_capacity == b.group_capacity;
  };
  const std::size_t big = static_cast<std::size_t>(p.small_input_blocks) * p.block_sort_keys;
  EXPECT_TRUE(same(warpsort::ablation::sized_for(p, big), p));
  EXPECT_TRUE(same(warpsort::ablation::sized_for(p, std::size_t{1} << 30), p));
  const auto half = warpsort::ablation::sized_for(p, big - 1);
  EXPECT_EQ(half.block_sort_keys, p.block_sort_keys / 2);
  EXPECT_EQ(half.merge_block_keys, p.block_sort_keys / 2);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{1} << 16,
                        std::size_t{100000}, std::size_t{1} << 20}) {
    const auto s = warpsort::ablation::sized_for(p, n);
    EXPECT_GE(s.block_sort_keys, p.small_input_min_keys) << n;
    EXPECT_GE(s.group_capacity, p.small_input_min_keys) << n;
    EXPECT_LE(s.block_sort_keys, p.block_sort_keys) << n;
    EXPECT_LE(s.merge_block_keys, s.block_sort_keys) << n;
    // smallest blocks that n still fills small_input_blocks times, or the floor
    const bool at_floor = s.block_sort_keys / 2 < p.small_input_min_keys;
    EXPECT_TRUE(at_floor ||
                n >= static_cast<std::size_t>(p.small_input_blocks) * s.block_sort_keys)
        << n;
    EXPECT_NO_THROW(warpsort::ablation::make_plan(n, s)) << n;
  }
  EXPECT_EQ(warpsort::ablation::sized_for(p, std::size_t{1} << 16).block_sort_keys, 2048);
  EXPECT_EQ(warpsort::ablation::sized_for(p, std::size_t{1} << 16).group_capacity, 2048);
  warpsort::ablation::design off = p;
  off.small_input_blocks = 0;
  off.one_block_keys = 0;
  EXPECT_TRUE(same(warpsort::ablation::sized_for(off, 10), off));
  // tiny inputs: one block of the least power of two that holds them, not below the floor,
  // so steps 2-4 never run; one key more and the small-input rule takes them again
  for (std::size_t key_bytes : {std::size_t{4}, std::size_t{8}}) {
    const warpsort::ablation::design d = warpsort::ablation::v4_for(key_bytes);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2048}, std::size_t{2049},
                          std::size_t{3000}, std::size_t{4096}}) {
      const auto s = warpsort::ablation::sized_for(d, n);
      EXPECT_EQ(s.block_sort_keys, n <= 2048 ? 2048 : 4096) << n << " keys of " << key_bytes;
      EXPECT_LE(s.merge_block_keys, s.block_sort_keys) << n;
      EXPECT_FALSE(warpsort::ablation::make_plan(n, s).has_groups()) << n << " keys of " << key_bytes;
    }
    const auto past = warpsort::ablation::sized_for(d, 4097);
    EXPECT_EQ(past.block_sort_keys, 2048) << key_bytes;
    EXPECT_TRUE(warpsort::ablation::make_plan(4097, past).has_groups()) << key_bytes;
  }
  warpsort::ablation::design no_one_block = p;
  no_one_block.one_block_keys = 0;
  EXPECT_EQ(warpsort::ablation::sized_for(no_one_block, 4096).block_sort_keys, 2048);
  // more than a block holds is not one block: the small-input rule sizes it as before
  warpsort::ablation::design wide = p;
  wide.one_block_keys = 1 << 20;
  EXPECT_EQ(warpsort::ablation::sized_for(wide, 50000).block_sort_keys,
            warpsort::ablation::sized_for(no_one_block, 50000).block_sort_keys);
  warpsort::ablation::design negative = p;
  negative.one_block_keys = -1;
  EXPECT_THROW(warpsort::ablation::make_plan(10, negative), warpsort::input_error);
  warpsort::ablation::design negative_ranks = p;
  negative_ranks.rank_merge_keys = -1;
  EXPECT_THROW(warpsort::ablation::make_plan(10, negative_ranks), warpsort::input_error);
  // the paper's design has none of version 4's small-input rules
  EXPECT_EQ(warpsort::ablation::paper_for(4).rank_merge_keys, 0);
  warpsort::ablation::design tiny = p;  // already below the floor: left alone
  tiny.block_sort_keys = 256;
  tiny.merge_block_keys = 512;
  const auto tiny_sized = warpsort::ablation::sized_for(tiny, 300);
  EXPECT_EQ(tiny_sized.block_sort_keys, 256);
  EXPECT_EQ(tiny_sized.merge_block_keys, 512);
  EXPECT_EQ(tiny_sized.group_capacity, p.small_input_min_keys);
  warpsort::ablation::design bad = p;
  bad.small_input_min_keys = 100;
  EXPECT_THROW(warpsort::ablation::make_plan(10, bad), warpsort::input_error);
}

// plan_for: small inputs take the pairwise path (version 4 with its design for the key's
// width), mid-sized ones oversample less, one round merges inputs of few blocks, large ones run
// the defaults; each rule chooses only what the policy left to it (0), never a field the caller
// set, and can be switched off; the plan says what it chose.
TEST(Plan, PlanForChoosesOnlyWhatThePolicyLeaves) {
  const warpsort::device_limits h100{132, 227 * 1024, 1024};
  for (std::size_t bytes : {std::size_t{4}, std::size_t{8}}) {
    const warpsort::policy p = warpsort::default_policy_for(bytes);
    ASSERT_EQ(p.oversampling, 0);  // left to plan_for, else this test could not fail
    ASSERT_EQ(p.max_sequences, 0);
    ASSERT_NE(warpsort::oversampling_of(p), p.small_oversampling);
    const std::size_t pairwise_below =
        static_cast<std::size_t>(p.pairwise_below_blocks) * p.block_sort_keys;
    const std::size_t small_below =
        static_cast<std::size_t>(p.small_oversampling_blocks) * p.block_sort_keys;
    ASSERT_LT(pairwise_below, small_below);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, pairwise_below - 1}) {
      const warpsort::sized_plan s = warpsort::plan_for(n, bytes, p, h100);
      EXPECT_TRUE(s.pairwise) << n;
      EXPECT_NE(s.describe().find("pairwise"), std::string::npos) << s.describe();
    }
    const std::size_t one_round_max = static_cast<std::size_t>(p.one_round_blocks) * p.block_sort_keys;
    ASSERT_GE(one_round_max, pairwise_below);  // else no input would take the one-round rule
    ASSERT_LT(warpsort::max_sequences_of(p), p.one_round_blocks);
    for (std::size_t n : {pairwise_below, one_round_max, one_round_max + 1, small_below - 1}) {
      const warpsort::sized_plan s = warpsort::plan_for(n, bytes, p, h100);
      EXPECT_FALSE(s.pairwise) << n;
      EXPECT_TRUE(s.chose_oversampling && s.chose_max_sequences) << n;
      EXPECT_EQ(s.tuning.oversampling, p.small_oversampling) << n;
      EXPECT_EQ(s.tuning.block_sort_keys, p.block_sort_keys) << n;
      EXPECT_EQ(s.tuning.group_capacity, p.group_capacity) << n;
      const bool one_round = n <= one_round_max;
      EXPECT_EQ(s.tuning.max_sequences, one_round ? p.one_round_blocks : 32) << n;
      EXPECT_EQ(s.plan.round_count == 1, one_round) << n;
      EXPECT_EQ(s.plan.round_count, warpsort::make_plan(n, s.tuning).round_count) << n;
      EXPECT_NE(s.describe().find("oversampling = " + std::to_string(p.small_oversampling) +
                                  ": n < small_oversampling_blocks"),
                std::string::npos)
          << s.describe();
    }
    for (std::size_t n : {small_below, std::size_t{1} << 34}) {
      const warpsort::sized_plan s = warpsort::plan_for(n, bytes, p, h100);
      EXPECT_FALSE(s.pairwise) << n;
      EXPECT_EQ(s.tuning.oversampling, 64) << n;
      EXPECT_EQ(s.tuning.max_sequences, 32) << n;
    }
    // what the caller set stays as set at every size
    warpsort::policy set = p;
    set.oversampling = 128;
    set.max_sequences = 8;
    for (std::size_t n : {pairwise_below, one_round_max, small_below - 1, std::size_t{1} << 30}) {
      const warpsort::sized_plan s = warpsort::plan_for(n, bytes, set, h100);
      EXPECT_FALSE(s.chose_oversampling || s.chose_max_sequences) << n;
      EXPECT_EQ(s.tuning.oversampling, 128) << n;
      EXPECT_EQ(s.tuning.max_sequences, 8) << n;
      EXPECT_NE(s.describe().find("oversampling = 128: the policy's"), std::string::npos)
          << s.describe();
    }
    warpsort::policy off = p;
    off.pairwise_below_blocks = 0;
    off.small_oversampling_blocks = 0;
    off.one_round_blocks = 0;
    const warpsort::sized_plan s = warpsort::plan_for(1000, bytes, off, h100);
    EXPECT_FALSE(s.pairwise);
    EXPECT_EQ(s.tuning.oversampling, 64);
    EXPECT_EQ(s.tuning.block_sort_keys, p.block_sort_keys);
    EXPECT_EQ(s.tuning.max_sequences, 32);
    warpsort::policy bad = p;
    bad.one_round_blocks = 65;
    EXPECT_THROW(warpsort::plan_for(1000, bytes, bad, h100), warpsort::input_error);
    bad = p;
    bad.small_oversampling = 0;
    EXPECT_THROW(warpsort::plan_for(1000, bytes, bad, h100), warpsort::input_error);
  }
  const warpsort::policy a{}, b = warpsort::default_policy_for(4);  // policy{} is the default
  EXPECT_EQ(std::make_tuple(a.block_sort_keys, a.max_sequences, a.oversampling,
                            a.max_ranked_samples, a.group_capacity, a.pairwise_below_blocks,
                            a.small_oversampling_blocks, a.small_oversampling, a.one_round_blocks),
            std::make_tuple(b.block_sort_keys, b.max_sequences, b.oversampling,
                            b.max_ranked_samples, b.group_capacity, b.pairwise_below_blocks,
                            b.small_oversampling_blocks, b.small_oversampling, b.one_round_blocks));
}

// Inputs of few blocks (a block or two an SM) get more threads a block; from few_blocks blocks
// on, the policy's own. Neither rule changes L or step 4's threads.
TEST(Plan, SizedForFewBlocks) {
  const warpsort::ablation::design p = warpsort::ablation::v4_for(4);
  ASSERT_NE(p.few_blocks_threads, p.block_threads);  // else this test could not fail
  const std::size_t few = static_cast<std::size_t>(p.few_blocks) * p.block_sort_keys;
  for (std::size_t n : {few, few + 1, std::size_t{1} << 30})
    EXPECT_EQ(warpsort::ablation::sized_for(p, n).block_threads, p.block_threads) << n;
  for (std::size_t n : {std::size_t{0}, std::size_t{1000}, std::size_t{1} << 16, few - 1}) {
    const auto s = warpsort::ablation::sized_for(p, n);
    EXPECT_EQ(s.block_threads, p.few_blocks_threads) << n;
    EXPECT_EQ(s.max_sequences, p.max_sequences) << n;
    EXPECT_EQ(s.group_block_threads, p.group_block_threads) << n;
    EXPECT_NO_THROW(warpsort::ablation::make_plan(n, s)) << n;
  }
  warpsort::ablation::design off = p;
  off.few_blocks = 0;
  EXPECT_EQ(warpsort::ablation::sized_for(off, 1000).block_threads, off.block_threads);
  warpsort::ablation::design bad = p;
  bad.few_blocks_threads = 100;
  EXPECT_THROW(warpsort::ablation::make_plan(10, bad), warpsort::input_error);
  bad = p;
  bad.few_blocks = -1;
  EXPECT_THROW(warpsort::ablation::make_plan(10, bad), warpsort::input_error);
  bad = p;
  bad.warp_split_max_blocks = -1;
  EXPECT_THROW(warpsort::ablation::make_plan(10, bad), warpsort::input_error);
}

TEST(Plan, ShapesAndBounds) {
  const warpsort::ablation::design p = warpsort::ablation::v4_for(4);
  EXPECT_EQ(warpsort::ablation::make_plan(0, p).sequences, 0u);
  const auto one = warpsort::ablation::make_plan(100, p);
  EXPECT_EQ(one.chunks, 1u);
  EXPECT_FALSE(one.has_groups());
  EXPECT_FALSE(warpsort::ablation::make_plan(static_cast<std::size_t>(p.block_sort_keys), p).has_groups());
  for (std::size_t n : {129ul, 1000ul, 4097ul, 1ul << 20, (1ul << 24) + 1, (1ul << 32) + 12345}) {
    const auto plan = warpsort::ablation::make_plan(n, p);
    EXPECT_EQ(plan.chunks, ws::ceil_div(n, 128));
    EXPECT_LE(plan.sequences, static_cast<std::size_t>(p.max_sequences));
    EXPECT_EQ(plan.sequences, ws::ceil_div(n, plan.sequence_keys));
    EXPECT_EQ(plan.sequence_keys,
              static_cast<std::size_t>(p.block_sort_keys) << plan.pairwise_rounds);
    EXPECT_LE(plan.group_bound, static_cast<std::size_t>(p.group_capacity));
    EXPECT_EQ(plan.has_groups(), n > static_cast<std::size_t>(p.block_sort_keys));
    if (plan.has_groups())
      EXPECT_GE(plan.groups * (p.oversampling + plan.sequences) * plan.sample_stride, n);
  }
  warpsort::ablation::design bad = p;
  bad.max_sequences = 1;
  EXPECT_THROW(warpsort::ablation::make_plan(10, bad), warpsort::input_error);
  bad = p;
  bad.group_capacity = 10;
  EXPECT_THROW(warpsort::ablation::make_plan(10, bad), warpsort::input_error);
  bad = p;
  bad.block_sort_keys = 3000;  // not a power of two
  EXPECT_THROW(warpsort::ablation::make_plan(10, bad), warpsort::input_error);
  bad = p;
  bad.merge_block_keys = 4 * p.block_sort_keys;  // a block could straddle two pairs
  EXPECT_THROW(warpsort::ablation::make_plan(10, bad), warpsort::input_error);
}

// The offset arithmetic of the large sorts (2^32 + 12345 uint32 keys, 2^31 + 7 uint64 keys):
// every index the steps compute stays inside the input and the grids stay launchable.
TEST(Plan, OffsetsNearAndPast2e32) {
  for (auto [n, key_bytes] : {std::pair<std::size_t, std::size_t>{(std::size_t{1} << 32) + 12345, 4},
                              {(std::size_t{1} << 32) - 1, 4},
                              {(std::size_t{1} << 31) + 7, 8}}) {
    const warpsort::ablation::design p = key_bytes == 4 ? warpsort::ablation::v4_for(4)
                                              : warpsort::ablation::v4_for(8);
    const auto plan = warpsort::ablation::make_plan(n, p);
    // step 1: the last block starts inside the input
    const std::size_t sort_blocks = ws::ceil_div(n, p.block_sort_keys);
    EXPECT_LT((sort_blocks - 1) * p.block_sort_keys, n);
    EXPECT_LE(sort_blocks, std::size_t{0x7fffffff});
    // step 2: the last pair of every round ends at n; no merge block straddles two pairs
    std::size_t seq = p.block_sort_keys;
    for (int r = 0; r < plan.pairwise_rounds; ++r, seq *= 2) {
      const std::size_t pairs = ws::ceil_div(n, 2 * seq);
      EXPECT_EQ(ws::pair_of(pairs - 1, seq, n).b_end, n);
      EXPECT_EQ(2 * seq % p.merge_block_keys, 0u);
      EXPECT_LE(ws::merge_blocks(n, p.merge_block_keys), std::size_t{0x7fffffff});
    }
    // step 3: the last sample lies in the last sequence holding a sample, inside the input
    const std::size_t per_seq = ws::samples_in(plan.sequence_keys, plan.sample_stride);
    const auto last = ws::sample_site_of(plan.samples - 1, per_seq, plan.sample_stride);
    const std::size_t last_keys = n - (plan.sequences - 1) * plan.sequence_keys;
    EXPECT_EQ(last.sequence, plan.sequences - (last_keys >= plan.sample_stride ? 1 : 2));
    EXPECT_LT(last.position, std::min(plan.sequence_keys, n - last.sequence * plan.sequence_keys));
    EXPECT_LT(ws::splitter_rank(plan.groups - 2, p.oversampling), plan.samples);
    EXPECT_LE(plan.groups, std::size_t{0x7fffffff});
    // step 4: a group fits in 32-bit shared-memory offsets
    EXPECT_LE(plan.group_bound, static_cast<std::size_t>(p.group_capacity));
  }
}

// The one key-to-word map (order_words): `to` must be a bijection (every key comes back with its
// bits) whose integer order never contradicts the key order (a before b => word(a) < word(b),
// and word(a) < word(b) => not b before a), and to_merged_zeros must be the order itself (equal
// words exactly for equivalent keys, -0.0 and +0.0 included), for every key type and both orders.
template <class Key, class Order>
void check_order_words(std::uint64_t seed) {
  using map = warpsort::order_words_for<Key, Order>;
  using bits = typename map::bits;
  static_assert(std::is_same_v<map, warpsort::order_words<Key, std::is_same_v<Order, warpsort::greater<Key>>>>);
  const bits sign = map::sign;
  std::vector<bits> patterns = {0, sign, sign - 1, ~bits{0}, 1, sign | 1};
  if constexpr (std::is_floating_point_v<Key>) {
    for (Key f : {Key(1), Key(-1), Key(0), -Key(0), std::numeric_limits<Key>::infinity(),
                  -std::numeric_limits<Key>::infinity(), std::numeric_limits<Key>::denorm_min(),
                  -std::numeric_limits<Key>::denorm_min(), std::numeric_limits<Key>::max(),
                  std::numeric_limits<Key>::lowest(), std::numeric_limits<Key>::quiet_NaN(),
                  -std::numeric_limits<Key>::quiet_NaN()})
      patterns.push_back(cuda::std::bit_cast<bits>(f));
  } else {
    for (Key k : {Key(0), Key(1), Key(-1), std::numeric_limits<Key>::max(), std::numeric_limits<Key>::min()})
      patterns.push_back(cuda::std::bit_cast<bits>(k));
  }
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 2000; ++i) patterns.push_back(static_cast<bits>(rng()));
  const Order order;
  for (bits p : patterns) {
    const Key x = cuda::std::bit_cast<Key>(p);
    ASSERT_EQ(cuda::std::bit_cast<bits>(map::from(map::to(x))), p);
  }
  for (bits p : patterns)
    for (int k = 0; k < 40; ++k) {
      const bits q = patterns[rng() % patterns.size()];
      const Key a = cuda::std::bit_cast<Key>(p), b = cuda::std::bit_cast<Key>(q);
      if (order(a, b)) ASSERT_LT(map::to(a), map::to(b));
      if (map::to(a) < map::to(b)) ASSERT_FALSE(order(b, a));
      const bool equivalent = !order(a, b) && !order(b, a);
      ASSERT_EQ(map::to_merged_zeros(a) == map::to_merged_zeros(b), equivalent);
      if (order(a, b)) ASSERT_LT(map::to_merged_zeros(a), map::to_merged_zeros(b));
    }
  if constexpr (std::is_floating_point_v<Key>) {
    ASSERT_EQ(map::to_merged_zeros(-Key(0)), map::to_merged_zeros(Key(0)));
    ASSERT_NE(map::to(-Key(0)), map::to(Key(0)));
  }
  ASSERT_EQ(map::identity, (std::is_unsigned_v<Key> && std::is_same_v<Order, warpsort::less<Key>>));
}

template <class... Keys>
void check_order_words_of(warpsort::type_list<Keys...>) {
  std::uint64_t seed = 1;
  (check_order_words<Keys, warpsort::less<Keys>>(seed++), ...);
  (check_order_words<Keys, warpsort::greater<Keys>>(seed++), ...);
}

TEST(OrderWords, BijectiveAndOrderPreservingForEveryKeyTypeAndOrder) {
  check_order_words_of(warpsort::key_types{});
}

// One place says what an order is (order_traits): the library's two orders over its key
// types take the fast paths their keys allow, any other comparator the general one; and
// equivalence is neither key before the other (-0.0 and +0.0 equivalent, NaNs by their bits).
struct by_magnitude {
  bool operator()(int a, int b) const { return (a < 0 ? -a : a) < (b < 0 ? -b : b); }
  static int sentinel() { return std::numeric_limits<int>::max(); }
};
TEST(OrderTraits, EachOrderTakesItsPath) {
  using warpsort::greater;
  using warpsort::less;
  using warpsort::order_traits;
  static_assert(order_traits<std::uint32_t, less<std::uint32_t>>::builtin);
  static_assert(!order_traits<std::uint32_t, less<std::uint32_t>>::descending);
  static_assert(order_traits<std::int64_t, greater<std::int64_t>>::descending);
  static_assert(order_traits<std::int32_t, greater<std::int32_t>>::minmax);
  static_assert(!order_traits<float, less<float>>::minmax);
  static_assert(order_traits<double, greater<double>>::sorts_as_bits);
  static_assert(!order_traits<std::uint64_t, less<std::uint64_t>>::sorts_as_bits);
  static_assert(!order_traits<int, by_magnitude>::builtin);
  static_assert(!order_traits<int, by_magnitude>::minmax && !order_traits<int, by_magnitude>::sorts_as_bits);
  // an order over a key type that is not its own falls back to the general path too
  static_assert(!order_traits<std::int64_t, less<std::int32_t>>::builtin);

  const warpsort::equivalent<float, less<float>> same_float{};
  EXPECT_TRUE(same_float(0.0f, -0.0f));
  EXPECT_FALSE(same_float(1.0f, -1.0f));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(same_float(nan, nan));
  EXPECT_FALSE(same_float(nan, -nan));
  const warpsort::equivalent<int, by_magnitude> same_magnitude{};
  EXPECT_TRUE(same_magnitude(-3, 3));
  EXPECT_FALSE(same_magnitude(2, 3));
}

// ---------------------------------------------------------------- version 5

// The thread merge levels themselves run on the GPU (tests/stages/test_thread_merge_gpu.cu);
// here, the index functions they call.

TEST(ThreadMerge, ItemsAndBlockShapes) {
  for (int len : {0, 1, 30, 31, 32, 1000}) EXPECT_EQ(ws::items_in(len, 31), (len + 30) / 31);
  EXPECT_EQ(ws::thread_merge_keys<std::uint32_t>(), 32);
  EXPECT_EQ(ws::thread_merge_keys<std::uint64_t>(), 16);
  EXPECT_GE(ws::run_gap<std::uint32_t>(), ws::thread_merge_keys<std::uint32_t>() - 1);
  struct twelve { char b[12]; };
  EXPECT_GE(ws::run_gap<twelve>(), ws::thread_merge_keys<twelve>() - 1);
  EXPECT_EQ(ws::run_gap<twelve>() * sizeof(twelve) % 16, 0u);
  for (int keys : {1024, 4096, 8192, 16384}) {
    const auto shape = ws::sort_blocks_shape<std::uint32_t>(keys);
    const int runs = keys / ws::warp_run_keys<std::uint32_t>();
    EXPECT_GE(shape.threads, ws::items_bound(keys, runs, 31));
    EXPECT_EQ(shape.threads % 32, 0);
    EXPECT_GE(shape.threads / 32, runs);  // a warp for every run of step 1
    EXPECT_GE(shape.tables_at, static_cast<std::size_t>(keys + runs * 32) * 4);
    EXPECT_EQ(shape.tables_at % 16, 0u);
  }
  // the chunk swizzle is a permutation of every 64 chunks
  std::set<int> seen;
  for (int c = 0; c < 64; ++c) seen.insert(ws::staged_chunk(c));
  EXPECT_EQ(seen.size(), 64u);
  EXPECT_EQ(*seen.rbegin(), 63);
}

// The default group for every width: 64 KiB of keys where two of its blocks fit an SM's
// registers, else the largest group that still does (the next item more would not).
TEST(ThreadMerge, DefaultGroupsFitTwoBlocksAnSmsRegisters) {
  EXPECT_EQ(warpsort::group_capacity_for(4), 16384);  // the measured defaults of 4- and 8-byte keys
  EXPECT_EQ(warpsort::group_capacity_for(8), 8192);
  const int runs = warpsort::max_sequences_of(warpsort::policy{});
  for (std::size_t bytes : {4, 8, 12, 16, 24, 32, 48}) {
    const int capacity = warpsort::group_capacity_for(bytes);
    const int registers = ws::thread_merge_max_registers_of(bytes);
    const int per_item = ws::thread_merge_keys_of(bytes) - 1;
    const int threads = ws::merge_sets_shape_of(bytes, capacity, runs).threads;
    EXPECT_LE(2 * threads * registers, warpsort::sm_registers) << bytes << "-byte keys";
    EXPECT_LE(static_cast<std::size_t>(capacity) * bytes, 65536u);
    if (static_cast<std::size_t>(capacity) * bytes + bytes * per_item <= 65536u) {  // registers bind
      const int more = ws::merge_sets_shape_of(bytes, capacity + per_item, runs).threads;
      EXPECT_GT(2 * more * registers, warpsort::sm_registers) << bytes << "-byte keys";
    }
    EXPECT_EQ(warpsort::default_policy_for(bytes).group_capacity, capacity);
  }
}

TEST(ThreadMerge, HighBitOf) {
  EXPECT_EQ(ws::high_bit_of(0), 0);
  EXPECT_EQ(ws::high_bit_of(-3), 0);
  EXPECT_EQ(ws::high_bit_of(1), 1);
  EXPECT_EQ(ws::high_bit_of(7), 4);
  EXPECT_EQ(ws::high_bit_of(8), 8);
  EXPECT_EQ(ws::high_bit_of(0x7fffffff), 0x40000000);
}

// Merge path with B stored descending, over spans of every size a block holds and beyond,
// equal keys too: the same answer as merge_path on B ascending.
TEST(ThreadMerge, MergePathBDescendingMatchesMergePath) {
  std::mt19937_64 rng(17);
  for (int len : {0, 1, 5, 15, 16, 17, 255, 256, 4095, 4097, 65535, 65537, 300000}) {
    for (int spread : {3, 1 << 30}) {
      const auto a = sorted_keys(static_cast<std::size_t>(len), spread, rng);
      const auto b = sorted_keys(static_cast<std::size_t>(len / 2 + rng() % 9), spread, rng);
      const std::vector<std::uint32_t> b_desc(b.rbegin(), b.rend());
      const int na = static_cast<int>(a.size()), nb = static_cast<int>(b.size());
      for (int t = 0; t < 64; ++t) {
        const int d = t == 0 ? na + nb : static_cast<int>(rng() % static_cast<unsigned>(na + nb + 1));
        const std::size_t want = ws::merge_path(a.data(), a.size(), b.data(), b.size(),
                                                static_cast<std::size_t>(d), std::less<>());
        EXPECT_EQ(static_cast<std::size_t>(ws::merge_path_b_descending(a.begin(), na, b_desc.begin(),
                                                                       nb, d, std::less<>())),
                  want)
            << "len " << len << " d " << d;
      }
    }
  }
}

// Version 5's plan: rounds whose sets multiply up to step 1's sequences, at most max_sequences
// a set, every sample stride keeping (K + k) s within the group capacity, the last round one set.
TEST(Plan, RoundsV5StopShortOfTheSequencesLeft) {
  // make_plan(n, p, L): version 5 leaves at most L (a power of two) sorted sequences, in as few
  // rounds as the whole sort's spread takes for the bits it merges; L = 1 is the whole sort.
  for (std::size_t key_bytes : {4, 8}) {
    const warpsort::policy p = warpsort::default_policy_for(key_bytes);
    const std::size_t block = static_cast<std::size_t>(p.block_sort_keys);
    for (std::size_t left : {1, 2, 8, 32, 64})
      for (std::size_t n : {std::size_t{1}, std::size_t{1000}, block, block + 1, 33 * block,
                            std::size_t{1} << 24, (std::size_t{1} << 30) + 7,
                            (std::size_t{1} << 33) + 12345}) {
        const auto whole = warpsort::make_plan(n, p);
        const auto plan = warpsort::make_plan(n, p, left);
        std::size_t seq_keys = block;
        for (int r = 0; r < plan.round_count; ++r) {
          EXPECT_EQ(plan.rounds[r].sequence_keys, seq_keys) << n;
          EXPECT_LE(plan.rounds[r].set_sequences, static_cast<std::size_t>(warpsort::max_sequences_of(p)));
          seq_keys *= plan.rounds[r].set_sequences;
        }
        const std::size_t sequences = ws::ceil_div(n, seq_keys);
        EXPECT_LE(sequences, left) << "n " << n << " left " << left;
        EXPECT_LE(plan.round_count, whole.round_count);
        // no round more than the bits it merges need
        const int merged = ws::ceil_log2(ws::ceil_div(n, block)) - ws::ceil_log2(left);
        int per_round = 0;
        while ((2 << per_round) <= warpsort::max_sequences_of(p)) ++per_round;
        EXPECT_EQ(plan.round_count, merged <= 0 ? 0 : (merged + per_round - 1) / per_round) << n;
        if (left == 1) {
          EXPECT_EQ(plan.round_count, whole.round_count);
          EXPECT_EQ(sequences, 1u);
        }
      }
  }
}

TEST(Plan, RoundsV5) {
  for (std::size_t key_bytes : {4, 8}) {
    const warpsort::policy base = warpsort::default_policy_for(key_bytes);
    for (int k : {2, 5, 32, 64})
      for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{8192}, std::size_t{8193},
                            std::size_t{1} << 20, (std::size_t{1} << 24) + 1, std::size_t{1} << 28,
                            (std::size_t{1} << 32) + 12345}) {
        warpsort::policy p = base;
        p.max_sequences = k;
        const auto plan = warpsort::make_plan(n, p);
        std::size_t seq_keys = static_cast<std::size_t>(p.block_sort_keys);
        std::size_t sequences = ws::ceil_div(n, seq_keys);
        EXPECT_EQ(plan.round_count == 0, sequences == 1) << n;
        for (int r = 0; r < plan.round_count; ++r) {
          const warpsort::merge_round& m = plan.rounds[r];
          EXPECT_EQ(m.sequence_keys, seq_keys);
          EXPECT_EQ(m.sequences, sequences);
          EXPECT_LE(m.set_sequences, static_cast<std::size_t>(k));
          EXPECT_GE(m.set_sequences, 2u);
          EXPECT_EQ(m.sets, ws::ceil_div(sequences, m.set_sequences));
          EXPECT_LE((warpsort::oversampling_of(p) + m.set_sequences) * m.sample_stride, static_cast<std::size_t>(p.group_capacity));
          const ws::round_shape shape = ws::shape_of(n, m, p);
          std::size_t samples = 0, groups = 0;
          for (std::size_t set = 0; set < m.sets; ++set) {
            samples += shape.samples_of(set);
            EXPECT_EQ(shape.first_group(set), groups);
            for (std::size_t g = 0; g < shape.groups_of(set); ++g) EXPECT_EQ(shape.set_of_group(groups + g), set);
            for (std::size_t u = 0; u + 1 < shape.groups_of(set); ++u)
              EXPECT_EQ(shape.set_of_splitter(groups - set + u), set);
            groups += shape.groups_of(set);
            EXPECT_EQ(shape.groups_of(set), std::max<std::size_t>(1, ws::ceil_div(shape.samples_of(set), warpsort::oversampling_of(p))));
          }
          EXPECT_EQ(groups, m.groups);
          EXPECT_EQ(samples, m.samples);
          EXPECT_EQ(m.ranks_on_chip, m.set_samples <= warpsort::merge_round::max_ranked_set_samples && samples * m.set_sequences <=
                                                                   static_cast<std::size_t>(p.max_ranked_samples));
          EXPECT_EQ(samples, (m.sequences - 1) * ws::samples_in(seq_keys, m.sample_stride) +
                                 ws::samples_in(n - (m.sequences - 1) * seq_keys, m.sample_stride));
          seq_keys *= m.set_sequences;
          sequences = m.sets;
        }
        EXPECT_EQ(sequences, 1u) << "n=" << n << " k=" << k;
      }
  }
  warpsort::policy bad = warpsort::default_policy<std::uint32_t>();
  bad.block_sort_keys = 512;
  EXPECT_THROW(warpsort::make_plan(10, bad), warpsort::input_error);
  bad = warpsort::default_policy<std::uint32_t>();
  bad.max_sequences = 65;
  EXPECT_THROW(warpsort::make_plan(10, bad), warpsort::input_error);
}

// A CPU model of version 5's step 3 on one round: each set's samples ordered by (key, sequence,
// position), every K-th a splitter, every sequence of the set cut at it (cut_sequence): groups
// ordered and never over (K + k) s keys, on the distributions that break value splitters.
TEST(IndexMath, SetSplittingModelIsBoundedAndOrdered) {
  using Key = std::uint32_t;
  std::mt19937_64 rng(11);
  for (int k : {2, 7, 32})
    for (int shape = 0; shape < 4; ++shape)
      for (std::size_t n : {std::size_t{5000}, std::size_t{100000}, std::size_t{333333}}) {
        warpsort::policy p = warpsort::default_policy<Key>();
        p.block_sort_keys = 1024;
        p.group_capacity = 2048;
        p.oversampling = 16;
        p.max_sequences = k;
        const auto plan = warpsort::make_plan(n, p);
        ASSERT_GE(plan.round_count, 1);
        const warpsort::merge_round& m = plan.rounds[0];
        const ws::round_shape r = ws::shape_of(n, m, p);
        std::vector<Key> keys(n);
        for (auto& x : keys)
          x = shape == 0 ? static_cast<Key>(rng()) : shape == 1 ? 7u : shape == 2 ? static_cast<Key>(rng() % 4) : 0u;
        if (shape == 3) std::iota(keys.begin(), keys.end(), 0u);  // sorted: one sequence owns every group
        for (std::size_t b = 0; b < n; b += m.sequence_keys)
          std::sort(keys.begin() + b, keys.begin() + std::min(n, b + m.sequence_keys));
        for (std::size_t set = 0; set < m.sets; ++set) {
          struct sample { Key key; std::size_t seq, index; };
          std::vector<sample> samples;
          const std::size_t first = set * m.set_sequences;
          for (std::size_t i = 0; i < r.sequences_in(set); ++i)
            for (std::size_t t = 0; t < ws::samples_in(r.sequence_keys(first + i), m.sample_stride); ++t)
              samples.push_back({keys[(first + i) * m.sequence_keys + (t + 1) * m.sample_stride - 1], first + i, t});
          ASSERT_EQ(samples.size(), r.samples_of(set));
          std::stable_sort(samples.begin(), samples.end(), [](const sample& a, const sample& b) { return a.key < b.key; });
          std::vector<std::size_t> prev(r.sequences_in(set), 0);
          std::size_t total = 0;
          for (std::size_t g = 0; g < r.groups_of(set); ++g) {
            std::vector<std::size_t> cut(r.sequences_in(set));
            for (std::size_t i = 0; i < cut.size(); ++i) {
              const Key* seq = keys.data() + (first + i) * m.sequence_keys;
              const std::size_t len = r.sequence_keys(first + i);
              if (g + 1 == r.groups_of(set)) {
                cut[i] = len;
              } else {
                const sample& s = samples[ws::splitter_rank(g, p.oversampling)];
                cut[i] = ws::cut_sequence(seq, len, first + i, s.seq, (s.index + 1) * m.sample_stride - 1, s.key, std::less<Key>{});
              }
            }
            std::size_t size = 0;
            for (std::size_t i = 0; i < cut.size(); ++i) {
              ASSERT_GE(cut[i], prev[i]);
              size += cut[i] - prev[i];
            }
            ASSERT_LE(size, (p.oversampling + m.set_sequences) * m.sample_stride) << "k=" << k << " shape " << shape << " n=" << n;
            total += size;
            prev = cut;
          }
          std::size_t set_keys = 0;
          for (std::size_t i = 0; i < r.sequences_in(set); ++i) set_keys += r.sequence_keys(first + i);
          ASSERT_EQ(total, set_keys);
        }
      }
}

// ---------------------------------------------------------------- the paper's presets

TEST(PaperMerge, ReversedLoadsMakeTheBufferBitonic) {
  for (int s = 0; s < 64; ++s) EXPECT_EQ(ws::reversed_source(s, 64), 63 - s);
  // [block reversed | kept ascending half] first falls then rises
  std::vector<int> block(64), kept(64), buffer(128);
  std::iota(block.begin(), block.end(), 10);
  std::iota(kept.begin(), kept.end(), 5);
  for (int s = 0; s < 64; ++s) buffer[s] = block[ws::reversed_source(s, 64)];
  std::copy(kept.begin(), kept.end(), buffer.begin() + 64);
  const auto lowest = std::min_element(buffer.begin(), buffer.end());
  EXPECT_TRUE(std::is_sorted(buffer.begin(), lowest, std::greater<>()));
  EXPECT_TRUE(std::is_sorted(lowest, buffer.end()));
}

TEST(PaperMerge, RefillChoice) {
  using ws::refill;
  EXPECT_EQ(ws::choose_refill(true, true, false), refill::from_a);   // a_last <= b_last
  EXPECT_EQ(ws::choose_refill(true, true, true), refill::from_b);    // b_last < a_last
  EXPECT_EQ(ws::choose_refill(true, false, true), refill::from_a);   // B spent
  EXPECT_EQ(ws::choose_refill(false, true, false), refill::from_b);  // A spent
  EXPECT_EQ(ws::choose_refill(false, false, false), refill::none);
}

// A CPU model of the warp's buffer merge (buffer_merge.cuh): t keys, the lower half emitted, the
// refill chosen by choose_refill, partial blocks padded with the sentinel. For every t it must
// reproduce std::merge for any lengths, duplicates and keys equal to the sentinel included.
TEST(PaperMerge, BufferMergeModelReproducesStdMerge) {
  const std::uint32_t pad = ~0u;
  std::mt19937_64 rng(3);
  for (std::size_t half : {32, 64, 128}) {
    for (int trial = 0; trial < 300; ++trial) {
      const std::uint32_t distinct = trial % 2 ? 5 : 1u << 30;
      auto a = sorted_keys(rng() % 700, distinct, rng);
      auto b = sorted_keys(trial % 11 == 0 ? 0 : rng() % 700, distinct, rng);
      if (trial % 7 == 0) a.push_back(pad);  // real keys equal to the sentinel
      const std::size_t total = a.size() + b.size();
      if (total == 0) continue;
      auto block = [&](const std::vector<std::uint32_t>& v, std::size_t from) {
        std::vector<std::uint32_t> out(half, pad);
        for (std::size_t i = 0; i < half && from + i < v.size(); ++i) out[i] = v[from + i];
        return out;
      };
      std::vector<std::uint32_t> buf = block(a, 0), got;
      const auto first_b = block(b, 0);
      buf.insert(buf.end(), first_b.begin(), first_b.end());
      std::size_t an = half, bn = half;
      std::uint32_t a_last = buf[half - 1], b_last = buf[2 * half - 1];
      for (;;) {
        std::sort(buf.begin(), buf.end());  // the network's result
        got.insert(got.end(), buf.begin(), buf.begin() + half);
        const auto src = ws::choose_refill(an < a.size(), bn < b.size(), b_last < a_last);
        if (src == ws::refill::none) {
          got.insert(got.end(), buf.begin() + half, buf.end());
          break;
        }
        auto next = src == ws::refill::from_a ? block(a, an) : block(b, bn);
        (src == ws::refill::from_a ? an : bn) += half;
        (src == ws::refill::from_a ? a_last : b_last) = next.back();
        std::copy(next.begin(), next.end(), buf.begin());
        // the loop never emits past the end (buffer_merge_by_warp stores from `emitted` on)
        ASSERT_LT(got.size(), total) << "half " << half << " trial " << trial;
      }
      got.resize(total);
      std::vector<std::uint32_t> expect(total);
      std::merge(a.begin(), a.end(), b.begin(), b.end(), expect.begin());
      ASSERT_EQ(got, expect) << "half " << half << " trial " << trial;
    }
  }
}

// The paper's step 4 through memory: the rounds' pairs cover every piece of a group once, and
// pairwise merging them round by round (a model) leaves one run: the group.
TEST(PaperMerge, GroupRoundPairsMergeEveryPieceIntoOne) {
  for (std::size_t pieces : {2, 3, 5, 8, 13, 1024, 1025}) {
    std::vector<std::size_t> run_of(pieces);  // which run each piece belongs to
    std::iota(run_of.begin(), run_of.end(), 0);
    const int rounds = ws::ceil_log2(pieces);
    for (int r = 0; r < rounds; ++r) {
      std::vector<int> seen(pieces, 0);
      for (std::size_t q = 0; q < ws::pairs_in_round(pieces, r); ++q) {
        const ws::piece_pair pp = ws::group_round_pair(pieces, r, q);
        ASSERT_LE(pp.lo, pp.mid);
        ASSERT_LE(pp.mid, pp.hi);
        ASSERT_LT(pp.lo, pieces);
        for (std::size_t i = pp.lo; i < pp.hi; ++i) {
          ++seen[i];
          // A = [lo, mid) and B = [mid, hi) are each one run of the previous round
          EXPECT_EQ(run_of[i], run_of[i < pp.mid ? pp.lo : pp.mid]) << pieces << " r" << r;
        }
        for (std::size_t i = pp.lo; i < pp.hi; ++i) run_of[i] = pp.lo;
      }
      for (std::size_t i = 0; i < pieces; ++i) EXPECT_EQ(seen[i], 1) << pieces << " r" << r;
    }
    for (std::size_t i = 0; i < pieces; ++i) EXPECT_EQ(run_of[i], 0u) << pieces;
  }
}

// Key-only splitters cut every sequence after its keys equal to the splitter (an upper bound):
// with all keys equal, one group takes everything, and the cuts stay ordered.
TEST(PaperSplit, KeyOnlyCutIsAnUpperBound) {
  const std::vector<std::uint32_t> seq{1, 3, 3, 3, 7, 9};
  const warpsort::less<std::uint32_t> less;
  EXPECT_EQ(ws::cut_by_key(seq.data(), seq.size(), 3u, less), 4u);
  EXPECT_EQ(ws::cut_by_key(seq.data(), seq.size(), 0u, less), 0u);
  EXPECT_EQ(ws::cut_by_key(seq.data(), seq.size(), 9u, less), 6u);
  EXPECT_EQ(ws::cut_by_key(seq.data(), seq.size(), 5u, less), 4u);
  const std::vector<std::uint32_t> equal(100, 42);
  EXPECT_EQ(ws::cut_by_key(equal.data(), equal.size(), 42u, less), 100u);
  // (key, position) splitters split the same keys by position instead
  EXPECT_EQ(ws::cut_sequence(equal.data(), equal.size(), 3, 3, 49, 42u, less), 50u);
  EXPECT_EQ(ws::cut_sequence(equal.data(), equal.size(), 4, 3, 49, 42u, less), 0u);
  const warpsort::greater<std::uint32_t> greater;  // descending: the upper bound of the order
  const std::vector<std::uint32_t> down{9, 7, 3, 3, 1};
  EXPECT_EQ(ws::cut_by_key(down.data(), down.size(), 3u, greater), 4u);
}

TEST(PaperSplit, StrideForGroups) {
  EXPECT_EQ(ws::stride_for_groups(1u << 20, 1024, 32), 32u);
  EXPECT_EQ(ws::stride_for_groups(1000, 1024, 32), 1u);  // at least 1
  EXPECT_EQ(ws::stride_for_groups(0, 1024, 32), 1u);
}

// The presets' plans: the paper's sorts 128-key chunks, rounds of step 2 until L = 1024
// sequences, S ~ 1024 groups of any size, and ceil(log2 L) rounds of step 4; the ladder's
// policies are all valid, and key-only splitters with groups on chip are refused.
TEST(Plan, PaperPresets) {
  const warpsort::ablation::design p = warpsort::ablation::paper_for(4);
  EXPECT_EQ(p.block_sort_keys, 128);
  EXPECT_EQ(p.merge_buffer_keys, 128);
  const std::size_t n = std::size_t{1} << 24;
  const auto plan = warpsort::ablation::make_plan(n, warpsort::ablation::sized_for(p, n));
  EXPECT_EQ(plan.pairwise_rounds, 7);  // 2^17 chunks -> 2^10 sequences
  EXPECT_EQ(plan.sequences, 1024u);
  EXPECT_EQ(plan.sequence_keys, std::size_t{1} << 14);
  EXPECT_EQ(plan.group_rounds, 10);
  EXPECT_EQ(plan.sample_stride, n / (1024 * 1024));  // S K samples, K = L = 1024
  EXPECT_EQ(plan.groups, 1024u);
  EXPECT_EQ(plan.group_bound, n);
  for (std::size_t m : {std::size_t{1}, std::size_t{129}, std::size_t{1} << 20, std::size_t{1} << 28})
    for (auto f : {warpsort::ablation::paper_for, warpsort::ablation::onchip_step1_for,
                   warpsort::ablation::positions_for, warpsort::ablation::tiles_for,
                   warpsort::ablation::onchip_step4_for, warpsort::ablation::v4_for})
      for (std::size_t bytes : {4, 8, 16})
        EXPECT_NO_THROW(warpsort::ablation::make_plan(m, warpsort::ablation::sized_for(f(bytes), m)));
  const auto chip4 = warpsort::ablation::make_plan(n, warpsort::ablation::onchip_step4_for(4));
  EXPECT_EQ(chip4.group_rounds, 1);
  EXPECT_EQ(chip4.sequences, 16u);
  // K >= L (oversampling 1024: balanced groups, docs/performance.md) is valid for every item
  // width: step 4 through memory needs no group capacity
  warpsort::ablation::design k_ge_l = warpsort::ablation::paper_for(24);
  k_ge_l.oversampling = 1024;
  k_ge_l.group_capacity = 1365;  // 24-byte pair items' scaled capacity, below K + L
  const auto balanced = warpsort::ablation::make_plan(n, k_ge_l);
  EXPECT_EQ(balanced.sample_stride, n / (1024 * 1024));
  EXPECT_EQ(balanced.groups, 1024u);
  warpsort::ablation::design bad = warpsort::ablation::paper_for(4);
  bad.groups_on_chip = 1;
  EXPECT_THROW(warpsort::ablation::make_plan(n, bad), warpsort::input_error);
  bad = warpsort::ablation::paper_for(4);
  bad.merge_buffer_keys = 96;
  EXPECT_THROW(warpsort::ablation::make_plan(n, bad), warpsort::input_error);
}

TEST(DeviceLimits, DefaultPlansFitEveryGpuAndLargerBlocksAreRefusedWhereTheyDoNot) {
  // GPUs' limits as data: SMs, the shared memory a block may opt into, threads a block.
  struct gpu {
    const char* name;
    warpsort::device_limits limits;
  };
  const gpu gpus[] = {{"H100", {132, 227 * 1024, 1024}},
                      {"A100", {108, 163 * 1024, 1024}},
                      {"L4", {58, 99 * 1024, 1024}},
                      {"RTX 4090", {128, 99 * 1024, 1024}},
                      {"B200", {148, 227 * 1024, 1024}}};
  const auto each_width = [](auto f) {
    f(std::uint32_t{});
    f(std::uint64_t{});
  };
  // every width's default plan, comparator keys and pair items too (group_capacity_for)
  for (const gpu& g : gpus)
    for (std::size_t bytes : {4, 8, 12, 16, 24, 32, 48})
      for (std::size_t n : {std::size_t{1000}, std::size_t{1} << 20, std::size_t{1} << 28})
        EXPECT_NO_THROW(warpsort::plan_for(n, bytes, warpsort::default_policy_for(bytes), g.limits))
            << g.name << ", " << bytes << "-byte keys, n " << n;
  for (const gpu& g : gpus)
    each_width([&](auto key) {
      using Key = decltype(key);
      for (std::size_t n : {std::size_t{1000}, std::size_t{1} << 20, std::size_t{1} << 28})
        EXPECT_NO_THROW(warpsort::plan_for(n, sizeof(Key), warpsort::default_policy_for(sizeof(Key)),
                                           g.limits))
            << g.name << ", " << sizeof(Key) << "-byte keys, n " << n;
      // a group 1.5 times the default's: blocks of 100-108 KiB, so the L4 and the RTX 4090
      // (99 KiB) refuse it and the others run it
      warpsort::policy big = warpsort::default_policy_for(sizeof(Key));
      big.group_capacity = big.group_capacity / 2 * 3;
      const std::size_t n = std::size_t{1} << 24;
      const warpsort::device_limits unlimited{1, std::size_t{1} << 30, 1 << 30};
      const auto plan = warpsort::plan_for(n, sizeof(Key), big, unlimited).plan;
      ASSERT_GT(plan.round_count, 0);
      const std::size_t smem =
          ws::merge_sets_shape<Key>(big.group_capacity,
                                    static_cast<int>(plan.rounds[0].set_sequences))
              .smem_bytes;
      if (smem > g.limits.smem_per_block) {
        try {
          warpsort::plan_for(n, sizeof(Key), big, g.limits);
          ADD_FAILURE() << g.name << ": not refused";
        } catch (const warpsort::input_error& e) {
          EXPECT_NE(std::string(e.what()).find("group_capacity = " + std::to_string(big.group_capacity)),
                    std::string::npos)
              << e.what();
        }
      } else {
        EXPECT_NO_THROW(warpsort::plan_for(n, sizeof(Key), big, g.limits)) << g.name;
      }
      EXPECT_EQ(smem > g.limits.smem_per_block, g.limits.smem_per_block < 100 * 1024)
          << g.name << ": " << smem << " bytes";
    });
}

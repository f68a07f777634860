// GPU tests: each step's output contract on its own.
#include "common/gpu_test.hpp"
#include "common/test_inputs.hpp"
#include "step_checks.cuh"
#include <warpsort/detail/stages/index_math.hpp>
#include <warpsort/detail/stages/splitters.cuh>
#include <warpsort/stages.hpp>

#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace {

using Key = std::uint32_t;
using Comp = warpsort::less<Key>;
using namespace warpsort::testing;
namespace ws = warpsort::stages;

const std::vector<std::size_t> kStageSizes =
    capped({1, 31, 127, 128, 129, 1000, 4095, 4096, 4097, 65537, 1299709});

/// Sorts each [i*len, (i+1)*len) range of `keys` on the host.
std::vector<Key> sort_ranges(std::vector<Key> keys, std::size_t len) {
  for (std::size_t b = 0; b < keys.size(); b += len)
    std::sort(keys.begin() + b, keys.begin() + std::min(keys.size(), b + len));
  return keys;
}

/// Steps 1 and 2 as the pipeline runs them; returns the sorted sequences.
std::vector<Key> run_steps_1_2(const std::vector<Key>& input, const warpsort::ablation::design& p,
                               const warpsort::ablation::pairwise_plan& plan,
                               warpsort::detail::device_buffer<Key>& result) {
  return steps::run_steps_1_2<Key, Comp>(input, p, plan, result);
}

/// Version 4, small on-chip sizes, so that small inputs still make many sequences and rounds.
warpsort::ablation::design small_blocks(int block_sort_keys = 256, int merge_block_keys = 256) {
  warpsort::ablation::design p = warpsort::ablation::v4_for(sizeof(Key));
  p.block_sort_keys = block_sort_keys;
  p.merge_block_keys = merge_block_keys;
  return p;
}

/// Version 5 with small on-chip sizes.
warpsort::policy small_v5(int block_sort_keys = 1024, int group_capacity = 2048) {
  warpsort::policy p = warpsort::default_policy<Key>();
  p.block_sort_keys = block_sort_keys;
  p.group_capacity = group_capacity;
  return p;
}

/// Version 5's step 1 and its first round's step 3 on `input`: the sorted sequences and the
/// split (cuts and group offsets, copied to the host).
struct v5_split {
  warpsort::merge_round round;
  std::vector<Key> sequences;
  std::vector<std::size_t> cuts, offsets;
};
/// `order`: ranked_staged runs the library's split_sets with the round ranked on chip (where
/// its sets fit); sorted and merged_sets order the samples that way (split_sequences).
v5_split run_v5_split(const std::vector<Key>& input, const warpsort::policy& p,
                      ws::sample_order order, warpsort::detail::device_buffer<Key>& seqs) {
  const std::size_t n = input.size();
  const auto plan = warpsort::make_plan(n, p);
  v5_split out;
  out.round = plan.rounds[0];
  out.round.ranks_on_chip = order == ws::sample_order::ranked_staged &&
                            out.round.set_samples <= warpsort::merge_round::max_ranked_set_samples;
  auto in = to_device(input);
  seqs = poisoned<Key>(n);
  ws::sort_chunks(in.get(), seqs.get(), n, Comp{}, p, 0);
  out.sequences = to_host(seqs.get(), n);
  const ws::equal_sequences<Key> l =
      ws::equal_sequences_of(seqs.get(), ws::shape_of(n, out.round, p), out.round.samples);
  const bool library = order == ws::sample_order::ranked_staged;
  const std::size_t bytes = library ? ws::split_sets_temp_bytes<Key, Comp>(out.round)
                                    : ws::split_sequences_temp_bytes<ws::equal_sequences<Key>, Comp>(l, order);
  auto temp = poisoned<unsigned char>(bytes);
  const auto layout =
      library ? ws::split_sets(seqs.get(), n, out.round, temp.get(), bytes, Comp{}, p, 0)
              : ws::split_sequences(l, order, true, temp.get(), bytes, Comp{}, 0);
  out.cuts = to_host(layout.cuts, out.round.groups * out.round.set_sequences);
  out.offsets = to_host(layout.group_offsets, out.round.groups + 1);
  return out;
}

}  // namespace

TEST(Step1SortChunks, EveryBlockSortedAndAPermutation) {
  WARPSORT_REQUIRE_GPU();
  // block sizes from a tile to the default, with as many threads as the policies use
  for (auto [block_keys, threads] :
       {std::pair{256, 256}, std::pair{1024, 256}, std::pair{warpsort::policy{}.block_sort_keys, 256},
        std::pair{2048, 512}, std::pair{warpsort::policy{}.block_sort_keys, 1024}})
    for (const auto& dist : test_distributions())
      for (std::size_t n : kStageSizes) {
        warpsort::ablation::design p = small_blocks(block_keys);
        p.block_threads = threads;
        const auto input = make_keys(dist, n, n + 1);
        const auto expect = sort_ranges(input, block_keys);
        auto in = to_device(input);
        auto out = poisoned<Key>(n);
        ws::sort_chunks(in.get(), out.get(), n, Comp{}, p, 0);
        ASSERT_EQ(to_host(out.get(), n), expect) << dist << " n=" << n << " block=" << block_keys << " threads=" << threads;
        // in place, as the pipeline may run it
        ws::sort_chunks(in.get(), in.get(), n, Comp{}, p, 0);
        ASSERT_EQ(to_host(in.get(), n), expect) << dist << " n=" << n << " in place";
      }
}

TEST(Step1SortChunks, UnalignedInput) {
  WARPSORT_REQUIRE_GPU();
  const auto input = make_keys("uniform", 1001, 9);
  auto in = to_device(input);
  auto out = poisoned<Key>(1001);
  ws::sort_chunks(in.get() + 1, out.get() + 1, 1000, Comp{}, small_blocks(), 0);
  auto got = to_host(out.get(), 1001);
  std::vector<Key> expect(input.begin() + 1, input.end());
  expect = sort_ranges(expect, 256);
  ASSERT_EQ(std::vector<Key>(got.begin() + 1, got.end()), expect);
}

TEST(Step2MergePairs, SequencesSortedAndAPermutation) {
  WARPSORT_REQUIRE_GPU();
  // merge blocks as small as a tile, larger than the first sequences, and the default; each
  // with both split searches (a thread per block, a warp per block) and 256 or 512 threads
  for (auto [block_sort, merge_block] : {std::pair{256, 256}, std::pair{256, 512}, std::pair{8192, 4096}}) {
    warpsort::ablation::design p = small_blocks(block_sort, merge_block);
    for (auto [warp_split_max_blocks, threads] : {std::pair{0, 256}, std::pair{1 << 30, 512}})
      for (int L : {2, 5, 32})
        for (const auto& dist : test_distributions())
          for (std::size_t n : kStageSizes) {
            p.max_sequences = L;
            p.warp_split_max_blocks = warp_split_max_blocks;
            p.block_threads = threads;
            const auto plan = warpsort::ablation::make_plan(n, p);
            const auto input = make_keys(dist, n, 3 * n + L);
            warpsort::detail::device_buffer<Key> result;
            const auto got = run_steps_1_2(input, p, plan, result);
            ASSERT_EQ(got, sort_ranges(input, plan.sequence_keys))
                << dist << " n=" << n << " L=" << L << " blocks=" << block_sort << "/" << merge_block
                << " warp splits up to " << warp_split_max_blocks << " threads=" << threads;
          }
  }
}

TEST(Step3Split, GroupsOrderedBoundedAndSumToN) {
  WARPSORT_REQUIRE_GPU();
  for (int L : {2, 7, 32})
    for (const auto& dist : test_distributions())
      for (std::size_t n : capped({1000, 4097, 65537, 1299709, std::size_t{1} << 22})) {
        warpsort::ablation::design p = small_blocks();
        p.max_sequences = L;
        const auto plan = warpsort::ablation::make_plan(n, p);
        ASSERT_TRUE(plan.has_groups());
        const auto input = make_keys(dist, n, 7 * n + L);
        warpsort::detail::device_buffer<Key> seqs;
        const auto host_seqs = run_steps_1_2(input, p, plan, seqs);
        const std::size_t bytes =
            ws::split_temp_bytes<Key, Comp>(plan.samples, plan.sequences, plan.groups);
        const std::size_t S = plan.groups, Ls = plan.sequences;
        // the splitters by ranking the sample (no sort) and by sorting it (CUB) are the same
        std::vector<std::size_t> cuts, offsets;
        for (int ranked_up_to : {std::numeric_limits<int>::max(), 0}) {
          p.max_ranked_samples = ranked_up_to;
          auto temp = poisoned<unsigned char>(bytes);
          const auto layout = ws::split(seqs.get(), n, plan.sequence_keys, plan.sequences,
                                        plan.sample_stride, plan.samples, plan.groups,
                                        temp.get(), bytes, Comp{}, p, 0);
          auto got_cuts = to_host(layout.cuts, (S - 1) * Ls);
          auto got_offsets = to_host(layout.group_offsets, S + 1);
          if (ranked_up_to == 0) {
            ASSERT_EQ(got_cuts, cuts) << dist << " n=" << n << " L=" << L << ": ranked vs sorted";
            ASSERT_EQ(got_offsets, offsets) << dist << " n=" << n << " L=" << L;
          }
          cuts = std::move(got_cuts);
          offsets = std::move(got_offsets);
        }
        ASSERT_EQ(offsets.front(), 0u);
        ASSERT_EQ(offsets.back(), n);
        auto range = [&](std::size_t j, std::size_t i) {
          const std::size_t len = std::min(plan.sequence_keys, n - i * plan.sequence_keys);
          return std::make_pair(j == 0 ? 0 : cuts[(j - 1) * Ls + i], j + 1 < S ? cuts[j * Ls + i] : len);
        };
        std::size_t largest = 0;
        for (std::size_t j = 0; j < S; ++j) {
          std::size_t size = 0;
          Key max_j = 0, min_next = ~0u;
          for (std::size_t i = 0; i < Ls; ++i) {
            const auto [lo, hi] = range(j, i);
            ASSERT_LE(lo, hi);
            size += hi - lo;
            if (hi > lo) max_j = std::max(max_j, host_seqs[i * plan.sequence_keys + hi - 1]);
            if (j + 1 < S) {
              const auto [lo2, hi2] = range(j + 1, i);
              if (hi2 > lo2) min_next = std::min(min_next, host_seqs[i * plan.sequence_keys + lo2]);
            }
          }
          ASSERT_EQ(size, offsets[j + 1] - offsets[j]) << "group " << j;
          ASSERT_LE(size, plan.group_bound) << dist << " n=" << n << " group " << j;
          if (j + 1 < S) ASSERT_LE(max_j, min_next) << dist << " n=" << n << " group " << j;
          largest = std::max(largest, size);
        }
        // balanced whatever the keys: no group over twice the mean when K >= L
        if (S > 1 && p.oversampling >= L) EXPECT_LE(largest, 2 * (n / S + plan.sequences * plan.sample_stride));
      }
}

TEST(Step4MergeGroups, OutputEqualsThrustSort) {
  WARPSORT_REQUIRE_GPU();
  for (int L : {2, 3, 32})
    for (const auto& dist : test_distributions())
      for (std::size_t n : capped({257, 1000, 4097, 65537, 1299709})) {
        warpsort::ablation::design p = small_blocks();
        p.max_sequences = L;
        const auto plan = warpsort::ablation::make_plan(n, p);
        ASSERT_TRUE(plan.has_groups());
        const auto input = make_keys(dist, n, 11 * n + L);
        warpsort::detail::device_buffer<Key> seqs;
        run_steps_1_2(input, p, plan, seqs);
        const std::size_t bytes =
            ws::split_temp_bytes<Key, Comp>(plan.samples, plan.sequences, plan.groups);
        warpsort::detail::device_buffer<unsigned char> temp(bytes);
        const auto layout = ws::split(seqs.get(), n, plan.sequence_keys, plan.sequences,
                                      plan.sample_stride, plan.samples, plan.groups, temp.get(),
                                      bytes, Comp{}, p, 0);
        auto out = poisoned<Key>(n);
        ws::merge_groups(seqs.get(), out.get(), n, plan.sequence_keys, plan.sequences,
                         plan.groups, layout, Comp{}, p, 0);
        auto in = to_device(input);
        const auto report = warpsort::validate_against_references(in.get(), out.get(), n, Comp{});
        ASSERT_TRUE(report.ok) << dist << " n=" << n << " L=" << L << ": " << report.message();
      }
}

// Steps 3 and 4 by ranks (small inputs): every key of sequences of any number and length,
// duplicates and all-equal keys included, written at its rank; both orders.
TEST(Step34MergeByRank, OutputEqualsTheReferences) {
  WARPSORT_REQUIRE_GPU();
  for (std::size_t seq_len : {256, 2048})
    for (const auto& dist : test_distributions())
      for (std::size_t n : {257, 1000, 2048 + 1, 4096, 3 * 2048, 16384 - 1, 16384, 30000}) {
        if (n <= seq_len) continue;  // one sequence: nothing to merge
        warpsort::ablation::design p = small_blocks(static_cast<int>(seq_len),
                                                    static_cast<int>(seq_len));
        p.max_sequences = 128;  // no step 2: step 1's blocks (118 at most here) are the sequences
        const auto plan = warpsort::ablation::make_plan(n, p);
        ASSERT_EQ(plan.pairwise_rounds, 0);
        const auto input = make_keys(dist, n, 7 * n + seq_len);
        warpsort::detail::device_buffer<Key> seqs;
        run_steps_1_2(input, p, plan, seqs);
        auto out = poisoned<Key>(n);
        ws::merge_by_rank(seqs.get(), out.get(), n, plan.sequence_keys, Comp{}, 0);
        auto in = to_device(input);
        const auto report = warpsort::validate_against_references(in.get(), out.get(), n, Comp{});
        ASSERT_TRUE(report.ok) << dist << " n=" << n << " sequences of " << seq_len << ": "
                               << report.message();
        // descending: the sequences sorted by greater, merged by greater
        using Greater = warpsort::greater<Key>;
        std::vector<Key> down = input;
        for (std::size_t b = 0; b < n; b += seq_len)
          std::sort(down.begin() + b, down.begin() + std::min(n, b + seq_len), std::greater<>());
        auto down_seqs = to_device(down);
        auto down_out = poisoned<Key>(n);
        ws::merge_by_rank(down_seqs.get(), down_out.get(), n, seq_len, Greater{}, 0);
        const auto down_report =
            warpsort::validate_against_references(in.get(), down_out.get(), n, Greater{});
        ASSERT_TRUE(down_report.ok) << dist << " n=" << n << " descending: " << down_report.message();
      }
}

// ---------------------------------------------------------------- version 5

TEST(Step1SortBlocksV5, EveryBlockSortedAndAPermutation) {
  WARPSORT_REQUIRE_GPU();
  for (int block_keys : {1024, 2048, warpsort::default_policy<Key>().block_sort_keys, 16384})
    for (const auto& dist : test_distributions())
      for (std::size_t n : kStageSizes) {
        const warpsort::policy p = small_v5(block_keys);
        const auto input = make_keys(dist, n, n + 2);
        const auto expect = sort_ranges(input, block_keys);
        auto in = to_device(input);
        auto out = poisoned<Key>(n);
        ws::sort_chunks(in.get(), out.get(), n, Comp{}, p, 0);
        ASSERT_EQ(to_host(out.get(), n), expect) << dist << " n=" << n << " block=" << block_keys;
        ws::sort_chunks(in.get(), in.get(), n, Comp{}, p, 0);  // in place
        ASSERT_EQ(to_host(in.get(), n), expect) << dist << " n=" << n << " in place";
      }
}

TEST(Step1SortBlocksV5, UnalignedInput) {
  WARPSORT_REQUIRE_GPU();
  const auto input = make_keys("uniform", 5001, 9);
  auto in = to_device(input);
  auto out = poisoned<Key>(5001);
  ws::sort_chunks(in.get() + 1, out.get() + 1, 5000, Comp{}, small_v5(), 0);
  auto got = to_host(out.get(), 5001);
  std::vector<Key> expect(input.begin() + 1, input.end());
  expect = sort_ranges(expect, 1024);
  ASSERT_EQ(std::vector<Key>(got.begin() + 1, got.end()), expect);
}

// Every set's groups: ordered, within the sampling bound, sizes that sum to the offsets, and
// the cuts those of a host model (the samples of each set stably sorted by key, every K-th a
// splitter, cut_sequence); for uint32 keys the samples sort by radix, for the descending order
// and int32 as well (complemented, signed), which the other tests of the pipeline cover.
TEST(Step3SplitSets, GroupsOrderedBoundedAndAsTheModelSays) {
  WARPSORT_REQUIRE_GPU();
  int merged_rounds = 0;  // rounds whose sets' samples were also merged on chip
  for (int k : {2, 8, 32, 64})
    for (const auto& dist : test_distributions())
      for (std::size_t n : capped({3000, 65537, 1299709, std::size_t{1} << 22})) {
        warpsort::policy p = small_v5();
        p.max_sequences = k;
        warpsort::detail::device_buffer<Key> seqs;
        const auto input = make_keys(dist, n, 7 * n + k);
        const v5_split split = run_v5_split(input, p, ws::sample_order::sorted, seqs);
        const v5_split ranked = run_v5_split(input, p, ws::sample_order::ranked_staged, seqs);
        ASSERT_EQ(ranked.offsets, split.offsets) << dist << " n=" << n << " k=" << k << ": ranked vs sorted";
        ASSERT_EQ(ranked.cuts.size(), split.cuts.size());
        if (ws::merges_set_samples<Key, Comp>(split.round.set_samples)) {  // small sets
          const v5_split merged = run_v5_split(input, p, ws::sample_order::merged_sets, seqs);
          ASSERT_EQ(merged.offsets, split.offsets) << dist << " n=" << n << " k=" << k << ": merged vs sorted";
          ASSERT_EQ(merged.cuts, split.cuts) << dist << " n=" << n << " k=" << k << ": merged vs sorted";
          ++merged_rounds;
        }
        const warpsort::merge_round& m = split.round;
        ASSERT_GT(m.sets, 0u);
        const ws::round_shape r = ws::shape_of(n, m, p);
        const auto& seq = split.sequences;
        ASSERT_EQ(split.offsets.back(), n);
        for (std::size_t set = 0; set < m.sets; ++set) {
          const std::size_t g0 = r.first_group(set), groups = r.groups_of(set);
          const std::size_t first = set * m.set_sequences;
          ASSERT_EQ(split.offsets[g0], r.set_begin(set));
          struct sample { Key key; std::size_t seq, pos; };
          std::vector<sample> samples;
          for (std::size_t i = 0; i < r.sequences_in(set); ++i)
            for (std::size_t t = 0; t < ws::samples_in(r.sequence_keys(first + i), m.sample_stride); ++t) {
              const std::size_t pos = (t + 1) * m.sample_stride - 1;
              samples.push_back({seq[(first + i) * m.sequence_keys + pos], first + i, pos});
            }
          std::stable_sort(samples.begin(), samples.end(), [](const sample& a, const sample& b) { return a.key < b.key; });
          for (std::size_t j = 0; j < groups; ++j) {
            const std::size_t g = g0 + j;
            std::size_t size = 0;
            Key max_j = 0, min_next = ~0u;
            for (std::size_t i = 0; i < r.sequences_in(set); ++i) {
              const std::size_t q = first + i, at = q * m.sequence_keys;
              const std::size_t lo = j == 0 ? 0 : split.cuts[(g - 1) * m.set_sequences + i];
              const std::size_t hi = j + 1 == groups ? r.sequence_keys(q) : split.cuts[g * m.set_sequences + i];
              if (j + 1 < groups) {
                ASSERT_EQ(hi, ranked.cuts[g * m.set_sequences + i]);
                const sample& s = samples[ws::splitter_rank(j, warpsort::oversampling_of(p))];
                ASSERT_EQ(hi, ws::cut_sequence(seq.data() + at, r.sequence_keys(q), q, s.seq, s.pos, s.key, Comp{}))
                    << dist << " n=" << n << " k=" << k << " group " << g << " sequence " << i;
              }
              ASSERT_LE(lo, hi);
              size += hi - lo;
              if (hi > lo) max_j = std::max(max_j, seq[at + hi - 1]);
              if (j + 1 < groups) {
                const std::size_t hi2 = j + 2 == groups ? r.sequence_keys(q) : split.cuts[(g + 1) * m.set_sequences + i];
                if (hi2 > hi) min_next = std::min(min_next, seq[at + hi]);
              }
            }
            ASSERT_EQ(size, split.offsets[g + 1] - split.offsets[g]) << "group " << g;
            ASSERT_LE(size, (warpsort::oversampling_of(p) + m.set_sequences) * m.sample_stride)
                << dist << " n=" << n << " k=" << k << " group " << g;
            ASSERT_LE(size, static_cast<std::size_t>(p.group_capacity));
            if (j + 1 < groups) ASSERT_LE(max_j, min_next) << dist << " n=" << n << " group " << g;
          }
        }
      }
  EXPECT_GT(merged_rounds, 0) << "no round had sets small enough to merge their samples";
}

// A round: every set becomes one sorted sequence holding exactly its keys.
TEST(Step4MergeSets, EverySetSortedAndAPermutation) {
  WARPSORT_REQUIRE_GPU();
  for (int k : {2, 3, 32, 64})
    for (const auto& dist : test_distributions())
      for (std::size_t n : capped({1500, 4097, 65537, 1299709})) {
        warpsort::policy p = small_v5();
        p.max_sequences = k;
        warpsort::detail::device_buffer<Key> seqs;
        const auto input = make_keys(dist, n, 11 * n + k);
        const v5_split split = run_v5_split(
            input, p, k % 2 == 0 ? ws::sample_order::ranked_staged : ws::sample_order::sorted, seqs);
        const std::size_t bytes = ws::split_sets_temp_bytes<Key, Comp>(split.round);
        warpsort::detail::device_buffer<unsigned char> temp(bytes);
        const auto layout = ws::split_sets(seqs.get(), n, split.round, temp.get(), bytes, Comp{}, p, 0);
        auto out = poisoned<Key>(n);
        ws::merge_sets(seqs.get(), out.get(), n, split.round, layout, Comp{}, p, 0);
        ASSERT_EQ(to_host(out.get(), n), sort_ranges(input, split.round.set_keys()))
            << dist << " n=" << n << " k=" << k;
      }
}

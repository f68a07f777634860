// CPU: the layout the distributed splitters run step 3 over (rank_sequences in
// detail/distributed/sort_impl.cuh). Every rank's samples, gathered in slot order and sorted
// stably by key, must be ordered by (key, global position), and each rank's cut of its own
// sequences at any sample, with the layout's sequence ids for ties, must be the count of its
// keys ordered at or before that sample by (key, global position): the rule that makes all
// ranks' cuts one partition of the N keys; with splitters_first, the count of its keys before
// the sample's key (keep_own_ties' lower bounds). Checked against brute force, with few
// distinct keys so that ties are everywhere, on 1..5 ranks with empty ranks and short last
// sequences.
#include <warpsort/detail/distributed/sort_impl.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace {

namespace wd = warpsort::distributed::detail;
namespace ws = warpsort::stages;
using word = std::uint32_t;

struct gathered {
  word key;
  std::uint32_t index;      // rank p's sample t: p slots + t
  std::size_t rank, global;  // for the brute force only
};

TEST(RankSequences, SamplesSortByGlobalPositionAndCutsAgreeWithBruteForce) {
  std::mt19937_64 rng(2026);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t P = 1 + trial % 5;
    std::vector<std::size_t> counts(P), cut_keys(P);
    std::vector<std::vector<word>> keys(P);
    for (std::size_t p = 0; p < P; ++p) {
      counts[p] = rng() % 4 == 0 ? 0 : rng() % 2000;
      cut_keys[p] = 1 + rng() % 600;
      keys[p].resize(counts[p]);
      for (word& k : keys[p]) k = static_cast<word>(rng() % 6);
      for (std::size_t at = 0; at < counts[p]; at += cut_keys[p])  // the rank's sequences
        std::sort(keys[p].begin() + at, keys[p].begin() + std::min(counts[p], at + cut_keys[p]));
    }
    const std::vector<std::size_t> offsets = wd::prefix(counts);
    const std::size_t stride = 1 + rng() % 37;
    std::size_t slots = 0, m = 0, rows = 1;
    for (std::size_t p = 0; p < P; ++p) {
      const std::size_t s = wd::samples_of_rank(offsets[p], counts[p], stride);
      slots = std::max(slots, s);
      m += s;
      rows = std::max(rows, ws::ceil_div(counts[p], cut_keys[p]));
    }
    wd::rank_ends ends{};
    for (std::size_t q = 0; q <= P; ++q) ends.at[q] = offsets[q];
    const auto layout_of = [&](std::size_t p) {
      const std::size_t samples = wd::samples_of_rank(offsets[p], counts[p], stride);
      return wd::rank_sequences<word>{keys[p].data(), counts[p], cut_keys[p],
                                      ws::ceil_div(counts[p], cut_keys[p]), rows, p, slots,
                                      offsets[p], stride, samples, m, 1, P, ends};
    };
    // every rank's records as its gather writes them, in slot order (unused slots left out)
    std::vector<gathered> samples;
    for (std::size_t p = 0; p < P; ++p) {
      const auto l = layout_of(p);
      ASSERT_EQ(l.first_index(), p * slots);
      for (std::size_t t = 0; t < l.samples(); ++t) {
        const std::size_t index = l.first_index() + t;
        const ws::key_site site = l.sample_at(index);
        const std::size_t at = (site.sequence - 1) * cut_keys[p] + site.offset;
        ASSERT_EQ(at, wd::sample_position(t, offsets[p], stride));
        ASSERT_EQ((offsets[p] + at + 1) % stride, 0u) << "samples sit at global multiples";
        samples.push_back({l.sequence(site.sequence)[site.offset],
                           static_cast<std::uint32_t>(index), p, offsets[p] + at});
      }
    }
    ASSERT_EQ(samples.size(), m);
    std::stable_sort(samples.begin(), samples.end(),
                     [](const gathered& a, const gathered& b) { return a.key < b.key; });
    for (std::size_t i = 1; i < samples.size(); ++i)
      ASSERT_TRUE(samples[i - 1].key < samples[i].key ||
                  (samples[i - 1].key == samples[i].key &&
                   samples[i - 1].global < samples[i].global))
          << "a stable sort by key orders the gathered samples by (key, global position)";
    // every rank cuts its sequences at every sample as the brute force says
    for (std::size_t me = 0; me < P; ++me) {
      const auto l = layout_of(me);
      for (const gathered& s : samples) {
        const ws::key_site site = l.sample_at(s.index);
        if (s.rank < me) EXPECT_EQ(site.sequence, 0u);
        if (s.rank > me) EXPECT_EQ(site.sequence, ~std::size_t{0});
        // with splitters_first, every cut is the lower bound of the sample's key
        wd::rank_sequences<word> first = l;
        first.splitters_first = true;
        const ws::key_site before_all = first.sample_at(s.index);
        std::size_t cut_total = 0, brute = 0, lower_total = 0, lower = 0;
        for (std::size_t seq = 1; seq <= l.sequences_in(0); ++seq) {
          const std::size_t len = l.length(seq);
          cut_total += ws::cut_sequence(l.sequence(seq), len, seq, site.sequence, site.offset,
                                        s.key, warpsort::less<word>{});
          lower_total += ws::cut_sequence(l.sequence(seq), len, seq, before_all.sequence,
                                          before_all.offset, s.key, warpsort::less<word>{});
          for (std::size_t j = 0; j < len; ++j) {
            const word k = l.sequence(seq)[j];
            const std::size_t global = offsets[me] + (seq - 1) * cut_keys[me] + j;
            brute += k < s.key || (k == s.key && global <= s.global);
            lower += k < s.key;
          }
        }
        ASSERT_EQ(cut_total, brute) << "trial " << trial << ", rank " << me << " of " << P
                                    << ", sample of rank " << s.rank << " at " << s.global;
        ASSERT_EQ(lower_total, lower) << "trial " << trial << ", rank " << me << " of " << P
                                      << ", sample of rank " << s.rank << " at " << s.global;
      }
    }
    // splitter b: the c-th sorted sample, c the nearest number of strides to its target; none
    // (before every key) when c is 0
    const auto l = layout_of(0);
    for (std::size_t b = 0; b + 1 < P; ++b) {
      const std::size_t c = wd::splitter_samples(wd::bucket_target(b + 1, 1, ends.at), stride, m);
      EXPECT_EQ(l.splitter_sample(0, b), c == 0 ? ws::no_sample : c - 1);
    }
  }
}

// The gathered path's local sort in ranges (sequence_ranges, range_plan): the ranges cover the
// share in order, each ends where a sequence of the whole plan ends, and a range's plan runs the
// whole plan's rounds (the same sequence lengths and set widths) over the range's keys, so the
// ranges leave exactly the whole plan's sequences.
TEST(LocalSortRanges, RangesAreWholeSequencesSortedByThePlansRounds) {
  const warpsort::policy local = warpsort::default_policy<word>();
  for (const std::size_t n : {std::size_t{1}, std::size_t{127}, std::size_t{8193},
                              (std::size_t{1} << 20) + 3, std::size_t{3} << 21,
                              std::size_t{1} << 24, (std::size_t{1} << 25) - 1})
    for (const int ranks : {2, 3, 4})
      for (const int pieces : {0, 1, 2, 3, 4, 64}) {
        const wd::local_plan lp = wd::plan_local(n, ranks, local, false, 64,
                                                 warpsort::distributed::local_algorithm::warpsort);
        const std::vector<std::size_t> ends = wd::sequence_ranges(lp, pieces);
        const std::string label = "n " + std::to_string(n) + ", " + std::to_string(ranks) +
                                  " ranks, " + std::to_string(pieces) + " pieces";
        ASSERT_GE(ends.size(), 2u) << label;
        EXPECT_EQ(ends.front(), 0u) << label;
        EXPECT_EQ(ends.back(), n) << label;
        const std::size_t asked = std::max<std::size_t>(1, static_cast<std::size_t>(pieces));
        EXPECT_LE(ends.size() - 1, asked) << label;
        EXPECT_LE(ends.size() - 1, lp.sequences) << label;
        std::size_t sequences = 0;
        for (std::size_t i = 0; i + 1 < ends.size(); ++i) {
          ASSERT_LT(ends[i], ends[i + 1]) << label << ", range " << i;
          if (i + 2 < ends.size()) EXPECT_EQ(ends[i + 1] % lp.sequence_keys, 0u) << label;
          const wd::local_plan r = wd::range_plan(lp, ends[i + 1] - ends[i], local);
          EXPECT_EQ(r.n, ends[i + 1] - ends[i]) << label;
          EXPECT_EQ(r.sequence_keys, lp.sequence_keys) << label;
          ASSERT_EQ(r.plan.round_count, lp.plan.round_count) << label;
          std::size_t seq_keys = static_cast<std::size_t>(local.block_sort_keys);
          for (int k = 0; k < r.plan.round_count; ++k) {
            const warpsort::merge_round& m = r.plan.rounds[k];
            EXPECT_EQ(m.sequence_keys, seq_keys) << label << ", round " << k;
            EXPECT_EQ(m.sequences, ws::ceil_div(r.n, seq_keys)) << label << ", round " << k;
            EXPECT_EQ(m.set_sequences, std::min(lp.plan.rounds[k].set_sequences, m.sequences))
                << label << ", round " << k;
            seq_keys *= lp.plan.rounds[k].set_sequences;
          }
          EXPECT_EQ(seq_keys, lp.sequence_keys) << label;
          sequences += r.sequences;
        }
        EXPECT_EQ(sequences, lp.sequences) << label;
      }
}

}  // namespace

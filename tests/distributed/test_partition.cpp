// CPU: the distributed sort's arithmetic (warpsort/detail/distributed/partition.hpp) and the
// run merge's splitting (stages::make_runs_shape), checked by plain C++ models of the splitting
// that use the same functions: every key lands on exactly one rank, in order, no rank receives
// more than bucket_bound, and the rebalancing ranges cover every position once. Any P. Also the
// checks that keep the ranks from waiting forever: the agreement of an exchange's two sides,
// and the deadline's arithmetic.
#include <warpsort/detail/distributed/partition.hpp>
#include <warpsort/transport.hpp>
#include <warpsort/detail/stages/index_math.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace wd = warpsort::distributed::detail;
namespace ws = warpsort::stages;
using keys_t = std::vector<std::uint64_t>;

/// What each rank receives: the model of steps 1-3 of the distributed sort. Each rank's keys
/// are cut into local_sequences(P) sequences, each sorted (the local sort's output), or, with
/// `ways` > 1 (the bucketed last round), into `ways` times as many, the sequences before the
/// last local round; samples sit at global positions, P K - 1 splitters after the nearest
/// sample cut every sequence by (key, global position) into P K buckets, and rank q receives
/// buckets qK..qK+K-1. Each part's size is checked against its own bound.
std::vector<keys_t> split_model(std::vector<keys_t> ranks, int oversampling, bool rebalance,
                                std::vector<std::size_t>* received_bound = nullptr,
                                std::size_t parts = 1, std::size_t ways = 1) {
  const int P = static_cast<int>(ranks.size());
  const bool bucketed = ways > 1;
  const std::size_t S = static_cast<std::size_t>(wd::local_sequences(P)) * ways;
  std::vector<std::size_t> counts, seq_keys, first_sequence{0};
  for (auto& r : ranks) {
    const std::size_t L = r.empty() ? 1 : (r.size() + S - 1) / S;
    for (std::size_t at = 0; at < r.size(); at += L)
      std::sort(r.begin() + at, r.begin() + std::min(r.size(), at + L));
    counts.push_back(r.size());
    seq_keys.push_back(L);
    first_sequence.push_back(first_sequence.back() + (r.size() + L - 1) / L);
  }
  const std::size_t cut = wd::cut_sequences_bound(P, bucketed);
  EXPECT_LE(first_sequence.back(), cut);
  const std::vector<std::size_t> offsets = wd::prefix(counts);
  const std::size_t N = offsets.back();
  const std::size_t stride = wd::sample_stride(N, P, oversampling, cut);
  struct sample {  // a key and its global position: ordered by both, every key is unique
    std::uint64_t key;
    std::size_t position;
  };
  std::vector<sample> samples;
  for (int r = 0; r < P; ++r) {
    const std::size_t s = wd::samples_of_rank(offsets[r], counts[r], stride);
    for (std::size_t t = 0; t < s; ++t) {
      const std::size_t pos = wd::sample_position(t, offsets[r], stride);
      EXPECT_LT(pos, counts[r]);
      EXPECT_EQ((offsets[r] + pos + 1) % stride, 0u) << "samples sit at global multiples";
      samples.push_back({ranks[r][pos], offsets[r] + pos});
    }
  }
  EXPECT_EQ(samples.size(), N / stride) << "one sample every stride keys";
  std::sort(samples.begin(), samples.end(), [](const sample& a, const sample& b) {
    return a.key != b.key ? a.key < b.key : a.position < b.position;
  });
  std::vector<std::size_t> ends(P + 1);
  for (int q = 0; q <= P; ++q) ends[q] = rebalance ? offsets[q] : wd::balanced_prefix(q, P, N);
  const std::size_t buckets = static_cast<std::size_t>(P) * parts;
  std::vector<keys_t> out(P);
  std::vector<std::size_t> bucket_keys(buckets, 0);
  for (int r = 0; r < P; ++r)
    for (std::size_t begin = 0, i = 0; begin < counts[r]; begin += seq_keys[r], ++i) {
      const std::size_t len = std::min(seq_keys[r], counts[r] - begin);
      const std::uint64_t* seq = ranks[r].data() + begin;
      std::vector<std::size_t> cuts{0};
      for (std::size_t j = 1; j < buckets; ++j) {
        const std::size_t c = wd::splitter_samples(wd::bucket_target(j, parts, ends.data()),
                                                   stride, samples.size());
        std::size_t cut = 0;
        if (c > 0) {
          // ties by global position: this sequence starts at offsets[r] + begin
          const sample& s = samples[c - 1];
          const std::size_t at = offsets[r] + begin;
          const std::size_t splitter_seq =
              s.position < at ? 0 : s.position < at + len ? 1 : ~std::size_t{0};
          cut = ws::cut_sequence(seq, len, 1, splitter_seq, s.position - at, s.key,
                                 std::less<std::uint64_t>{});
        }
        cuts.push_back(cut);
      }
      cuts.push_back(len);
      for (std::size_t b = 0; b < buckets; ++b) {
        EXPECT_LE(cuts[b], cuts[b + 1]) << "cuts are monotone";
        out[b / parts].insert(out[b / parts].end(), seq + cuts[b], seq + cuts[b + 1]);
        bucket_keys[b] += cuts[b + 1] - cuts[b];
      }
    }
  if (received_bound) {
    received_bound->clear();
    for (int q = 0; q < P; ++q) {
      const std::size_t share = ends[q + 1] - ends[q];
      received_bound->push_back(wd::bucket_bound(share, stride, cut));
      for (std::size_t k = 0; k < parts; ++k)
        EXPECT_LE(bucket_keys[q * parts + k],
                  wd::bucket_bound((share + parts - 1) / parts, stride, cut))
            << "rank " << q << " part " << k << " of " << parts;
    }
  }
  for (auto& o : out) std::sort(o.begin(), o.end());  // the merge
  return out;
}

std::vector<keys_t> make_ranks(const std::string& dist, const std::vector<std::size_t>& counts,
                               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<keys_t> ranks;
  std::uint64_t base = 0;
  for (std::size_t n : counts) {
    keys_t v(n);
    for (auto& x : v) {
      if (dist == "all_equal") x = 42;
      else if (dist == "two_values") x = rng() % 2;
      else if (dist == "by_rank") x = base++;  // rank r holds the r-th range: nothing to move
      else if (dist == "reverse_by_rank") x = ~(base++);  // everything moves
      else x = rng();
    }
    ranks.push_back(std::move(v));
  }
  return ranks;
}

void check_split(const std::vector<keys_t>& in, const std::vector<keys_t>& out,
                 const std::vector<std::size_t>& bound, const std::string& what) {
  keys_t all, joined;
  for (const auto& r : in) all.insert(all.end(), r.begin(), r.end());
  std::sort(all.begin(), all.end());
  for (std::size_t q = 0; q < out.size(); ++q) {
    EXPECT_LE(out[q].size(), bound[q]) << what << ": rank " << q << " over its bound";
    joined.insert(joined.end(), out[q].begin(), out[q].end());
  }
  EXPECT_EQ(joined, all) << what << ": the ranks' outputs in rank order are the sorted input";
}

TEST(DistributedPartition, EveryKeyOnceInOrderWithinTheBound) {
  const std::vector<int> rank_counts{1, 2, 3, 4, 5, 8, 16, 64};
  const std::vector<std::string> dists{"uniform", "all_equal", "two_values", "by_rank",
                                       "reverse_by_rank"};
  std::mt19937_64 rng(7);
  for (int P : rank_counts)
    for (const auto& dist : dists)
      for (std::size_t per : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
        // equal counts, then uneven ones with some empty ranks
        for (int uneven = 0; uneven < 2; ++uneven) {
          std::vector<std::size_t> counts(P, per);
          if (uneven)
            for (auto& c : counts) c = rng() % 3 == 0 ? 0 : rng() % (2 * per + 2);
          for (bool rebalance : {false, true})
            for (std::size_t parts : {std::size_t{1}, std::size_t{3}})
              for (std::size_t ways : {std::size_t{1}, std::size_t{16}}) {
                if (ways > 1 && (rebalance || parts == 1)) continue;  // as the library buckets
                const auto in = make_ranks(dist, counts, rng());
                std::vector<std::size_t> bound;
                const auto out = split_model(in, 64, rebalance, &bound, parts, ways);
                check_split(in, out, bound,
                            "P " + std::to_string(P) + " " + dist + " per " +
                                std::to_string(per) + (uneven ? " uneven" : "") +
                                (rebalance ? " rebalance" : "") + " parts " +
                                std::to_string(parts) + " ways " + std::to_string(ways));
              }
        }
      }
}

TEST(DistributedPartition, LargestRankWithinFivePercentOfTheMeanOnEveryDistribution) {
  // The balance target after the exchange: largest rank <= 1.05 x the mean.
  for (int P : {2, 3, 4, 8})
    for (const std::string dist : {"uniform", "all_equal", "two_values", "by_rank",
                                   "reverse_by_rank"}) {
      const std::size_t per = 200000 / static_cast<std::size_t>(P);
      const auto in = make_ranks(dist, std::vector<std::size_t>(P, per), 11);
      for (std::size_t ways : {std::size_t{1}, std::size_t{16}}) {  // the bucketed cut too
        std::vector<std::size_t> bound;
        const auto out = split_model(in, 64, false, &bound, 4, ways);
        std::size_t largest = 0;
        for (const auto& o : out) largest = std::max(largest, o.size());
        EXPECT_LE(static_cast<double>(largest), 1.05 * static_cast<double>(per))
            << "P " << P << " " << dist << " ways " << ways;
        check_split(in, out, bound, dist + " ways " + std::to_string(ways));
      }
    }
}

TEST(DistributedPartition, RebalancedOutputsKeepTheInputCounts) {
  // The rebalancing ranges: every global position sent once and received once, and each rank
  // ends with its input count.
  std::mt19937_64 rng(3);
  for (int P : {1, 2, 3, 8, 17}) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<std::size_t> have(P), want(P);
      std::size_t total = rng() % 1000;
      // two random compositions of the same total
      auto compose = [&](std::vector<std::size_t>& v) {
        std::vector<std::size_t> cuts{0, total};
        for (int i = 1; i < P; ++i) cuts.push_back(rng() % (total + 1));
        std::sort(cuts.begin(), cuts.end());
        for (int i = 0; i < P; ++i) v[i] = cuts[i + 1] - cuts[i];
      };
      compose(have);
      compose(want);
      const auto hp = wd::prefix(have), wp = wd::prefix(want);
      std::vector<int> covered(total, 0);
      for (int me = 0; me < P; ++me) {
        const auto out = wd::overlaps(hp, wp, me, true);
        std::size_t received = 0;
        for (int p = 0; p < P; ++p) {
          const auto in = wd::overlaps(hp, wp, p, false);
          // what I send to p is what p receives from me
          EXPECT_EQ(out[p].count, in[me].count);
          EXPECT_EQ(out[p].from, in[me].from);
          EXPECT_EQ(out[p].to, in[me].to);
          for (std::size_t k = 0; k < out[p].count; ++k) ++covered[hp[me] + out[p].from + k];
          if (out[p].count) EXPECT_LE(out[p].to + out[p].count, want[p]);
        }
        for (const auto& s : wd::overlaps(hp, wp, me, false)) received += s.count;
        EXPECT_EQ(received, want[me]);
      }
      for (std::size_t x = 0; x < total; ++x) ASSERT_EQ(covered[x], 1) << "position " << x;
    }
  }
}

/// Every rank's sorted sequences (ranks[p][c]) cut at splitters given by their global ranks in
/// the order (key, rank, position), as the ranks' kernels cut them and the ranks gather them
/// (keep_own_ties' input): splitter b is the key at global rank splitter_ranks[b] (0: before
/// every key); the cut, then its key's lower and upper bounds, in every sequence.
struct gathered_cuts {
  std::vector<std::size_t> m, sequences;
  wd::cut_tables t;
  std::size_t parts;
};
gathered_cuts cut_ranks(const std::vector<std::vector<keys_t>>& ranks,
                        const std::vector<std::size_t>& splitter_ranks, std::size_t parts) {
  struct site {
    std::uint64_t key;
    std::size_t rank, seq, offset;
  };
  const auto before = [](const site& a, const site& b) {
    return std::tie(a.key, a.rank, a.seq, a.offset) < std::tie(b.key, b.rank, b.seq, b.offset);
  };
  std::vector<site> all;
  std::size_t rows = 1;
  gathered_cuts g;
  for (std::size_t p = 0; p < ranks.size(); ++p) {
    rows = std::max(rows, ranks[p].size());
    g.sequences.push_back(ranks[p].size());
    for (std::size_t c = 0; c < ranks[p].size(); ++c)
      for (std::size_t i = 0; i < ranks[p][c].size(); ++i) all.push_back({ranks[p][c][i], p, c, i});
  }
  std::sort(all.begin(), all.end(), before);
  const std::size_t splitters = splitter_ranks.size();
  g.t = wd::cut_tables{3 * rows * splitters + 1, rows, splitters};
  g.parts = parts;
  g.m.assign(ranks.size() * g.t.row_words, 0);
  for (std::size_t b = 0; b < splitters; ++b) {
    if (splitter_ranks[b] == 0) continue;  // every cut and bound 0
    const site s = all[splitter_ranks[b] - 1];
    for (std::size_t p = 0; p < ranks.size(); ++p)
      for (std::size_t c = 0; c < ranks[p].size(); ++c) {
        const keys_t& seq = ranks[p][c];
        std::size_t cut = 0;
        for (std::size_t i = 0; i < seq.size(); ++i) cut += !before(s, site{seq[i], p, c, i});
        g.m[g.t.at(p, wd::cut_at, b, c)] = cut;
        g.m[g.t.at(p, wd::lower_at, b, c)] = static_cast<std::size_t>(
            std::lower_bound(seq.begin(), seq.end(), s.key) - seq.begin());
        g.m[g.t.at(p, wd::upper_at, b, c)] = static_cast<std::size_t>(
            std::upper_bound(seq.begin(), seq.end(), s.key) - seq.begin());
      }
  }
  return g;
}

/// Each bucket's keys, sorted (bucket b ends at splitter b), and sent[p P + q]: what rank p
/// sends rank q (buckets qK..qK+K-1); checks every cut lies in its sequence, in order.
std::vector<keys_t> buckets_of(const std::vector<std::vector<keys_t>>& ranks,
                               const gathered_cuts& g, std::vector<std::size_t>& sent) {
  const std::size_t P = ranks.size(), buckets = g.t.splitters + 1;
  std::vector<keys_t> out(buckets);
  sent.assign(P * P, 0);
  for (std::size_t p = 0; p < P; ++p)
    for (std::size_t c = 0; c < ranks[p].size(); ++c) {
      const keys_t& seq = ranks[p][c];
      for (std::size_t b = 0, from = 0; b < buckets; ++b) {
        const std::size_t to = b + 1 == buckets ? seq.size() : g.m[g.t.at(p, wd::cut_at, b, c)];
        EXPECT_LE(from, to) << "rank " << p << " sequence " << c << " bucket " << b;
        EXPECT_LE(to, seq.size());
        if (from > to || to > seq.size()) return out;
        out[b].insert(out[b].end(), seq.begin() + static_cast<std::ptrdiff_t>(from),
                      seq.begin() + static_cast<std::ptrdiff_t>(to));
        if (b / g.parts < P) sent[p * P + b / g.parts] += to - from;
        from = to;
      }
    }
  for (auto& o : out) std::sort(o.begin(), o.end());
  return out;
}

std::size_t moved(const std::vector<std::size_t>& sent, std::size_t P) {
  std::size_t x = 0;
  for (std::size_t p = 0; p < P; ++p)
    for (std::size_t q = 0; q < P; ++q) x += p == q ? 0 : sent[p * P + q];
  return x;
}

TEST(KeepOwnTies, DuplicatesStayWithTheirRank) {
  // deterministic duplicates on four ranks: each holds 1, 2, 3, 3 and four 4s; buckets 2 and 3
  // are all 4s. By (rank, position) rank 2 would get ranks 0's and 1's 4s and send its own to
  // rank 3; keeping its own, each of ranks 2 and 3 receives four from one peer.
  const keys_t one{1, 2, 3, 3, 4, 4, 4, 4};
  const std::vector<std::vector<keys_t>> ranks(4, std::vector<keys_t>{one});
  gathered_cuts g = cut_ranks(ranks, {8, 16, 24}, 1);
  std::vector<std::size_t> sent_before, sent_after;
  const auto before = buckets_of(ranks, g, sent_before);
  EXPECT_EQ(sent_before[0 * 4 + 2] + sent_before[1 * 4 + 2], 8u) << "the model's starting point";
  EXPECT_EQ(sent_before[2 * 4 + 2], 0u);
  ASSERT_TRUE(wd::keep_own_ties(g.m, g.t, g.sequences, g.parts));
  EXPECT_EQ(buckets_of(ranks, g, sent_after), before) << "every bucket holds the same keys";
  EXPECT_EQ(sent_after[2 * 4 + 2], 4u) << "rank 2 keeps its own 4s";
  EXPECT_EQ(sent_after[3 * 4 + 3], 4u) << "rank 3 keeps its own 4s";
  EXPECT_EQ(sent_after[1 * 4 + 1], 2u) << "rank 1 keeps its own 3s";
  EXPECT_EQ(moved(sent_after, 4), 32u - 8u - 2u - 2u);  // all but the kept 4s, 3s, and 1 and 2
}

TEST(KeepOwnTies, SameBucketsNeverMoreMovedForAnyPPartsAndSequences) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t P = 1 + rng() % 5, parts = 1 + rng() % 3, values = 1 + rng() % 4;
    std::vector<std::vector<keys_t>> ranks(P);
    std::size_t total = 0;
    for (auto& r : ranks) {
      r.resize(1 + rng() % 3);
      for (auto& seq : r) {
        seq.resize(rng() % 12);  // empty sequences and ranks included
        for (auto& x : seq) x = rng() % values;
        std::sort(seq.begin(), seq.end());
        total += seq.size();
      }
    }
    std::vector<std::size_t> at;  // balanced targets, or random ones in order
    const bool random_targets = trial % 2 == 1;
    for (std::size_t b = 1; b < P * parts; ++b)
      at.push_back(random_targets ? rng() % (total + 1) : total * b / (P * parts));
    std::sort(at.begin(), at.end());
    gathered_cuts g = cut_ranks(ranks, at, parts);
    std::vector<std::size_t> sent_before, sent_after;
    const auto before = buckets_of(ranks, g, sent_before);
    ASSERT_TRUE(wd::keep_own_ties(g.m, g.t, g.sequences, g.parts)) << "trial " << trial;
    EXPECT_EQ(buckets_of(ranks, g, sent_after), before) << "trial " << trial;
    EXPECT_LE(moved(sent_after, P), moved(sent_before, P)) << "trial " << trial;
  }
}

TEST(KeepOwnTies, ContradictoryTablesAreRefused) {
  const std::vector<std::vector<keys_t>> ranks(2, std::vector<keys_t>{{5, 5, 5, 5}});
  gathered_cuts g = cut_ranks(ranks, {4}, 1);
  g.m[g.t.at(0, wd::upper_at, 0, 0)] = 1;  // the cut (4) past its key's upper bound
  EXPECT_FALSE(wd::keep_own_ties(g.m, g.t, g.sequences, g.parts));
}

TEST(DistributedPartition, SampleArithmetic) {
  EXPECT_EQ(wd::sample_stride(0, 2, 64), 1u);
  // oversampling x P x (P x local_sequences(P)) samples: 64 x 2 x 64 over 2 ranks
  EXPECT_EQ(wd::local_sequences(1), 64);
  EXPECT_EQ(wd::local_sequences(2), 32);
  EXPECT_EQ(wd::local_sequences(3), 16);
  EXPECT_EQ(wd::local_sequences(8), 8);
  EXPECT_EQ(wd::local_sequences(64), 1);
  EXPECT_EQ(wd::sample_stride(1000, 2, 64), 1u);
  EXPECT_EQ(wd::sample_stride(std::size_t{1} << 24, 2, 64), (std::size_t{1} << 24) / 8192);
  EXPECT_EQ(wd::sample_stride(std::size_t{1} << 34, 8, 64), (std::size_t{1} << 34) / 32768);
  // bucket targets: rank q's share split evenly into K parts
  const std::vector<std::size_t> ends{0, 10, 10, 17};
  EXPECT_EQ(wd::bucket_target(1, 2, ends.data()), 5u);
  EXPECT_EQ(wd::bucket_target(2, 2, ends.data()), 10u);
  EXPECT_EQ(wd::bucket_target(3, 2, ends.data()), 10u);  // an empty rank's parts
  EXPECT_EQ(wd::bucket_target(5, 2, ends.data()), 13u);
  // ranks' samples add up to N / stride whatever the counts, and sit at global multiples
  EXPECT_EQ(wd::samples_of_rank(0, 10, 4) + wd::samples_of_rank(10, 3, 4) +
                wd::samples_of_rank(13, 7, 4),
            5u);
  EXPECT_EQ(wd::sample_position(0, 10, 4), 1u);  // global 11
  EXPECT_EQ(wd::sample_position(0, 0, 4), 3u);
  EXPECT_EQ(wd::splitter_samples(0, 4, 10), 0u);    // before every key
  EXPECT_EQ(wd::splitter_samples(1, 4, 10), 0u);
  EXPECT_EQ(wd::splitter_samples(2, 4, 10), 1u);    // nearest whole stride
  EXPECT_EQ(wd::splitter_samples(400, 4, 10), 10u); // capped at the samples
  EXPECT_EQ(wd::balanced_prefix(1, 3, 10), 3u);
  EXPECT_EQ(wd::balanced_prefix(2, 3, 10), 6u);
  EXPECT_EQ(wd::balanced_prefix(3, 3, 10), 10u);
  // 2^34 keys over 8 ranks: the bound is within 1 + 129/4096 of the share
  const std::size_t N = std::size_t{1} << 34, share = N / 8;
  const std::size_t b = wd::bucket_bound(share, wd::sample_stride(N, 8, 64), wd::sequences_bound(8));
  EXPECT_LE(static_cast<double>(b), 1.032 * static_cast<double>(share));
  // the bucketed cut: most_runs times the sequences, as many times the samples, the same bound
  EXPECT_EQ(wd::cut_sequences_bound(8, false), wd::sequences_bound(8));
  EXPECT_EQ(wd::cut_sequences_bound(8, true), wd::sequences_bound(8) * wd::most_runs);
  const std::size_t fine = wd::cut_sequences_bound(8, true);
  const std::size_t bf = wd::bucket_bound(share, wd::sample_stride(N, 8, 64, fine), fine);
  EXPECT_LE(static_cast<double>(bf), 1.032 * static_cast<double>(share));
}

}  // namespace

namespace {

TEST(RunMerge, GroupsOfAnySplitOfRunsStayWithinCapacity) {
  // The run merge's step 3 (merge_runs_impl.cuh) modelled on the CPU: samples every s-th key of
  // each run, sorted by (key, position), every K-th a splitter, every run cut at it; no group
  // may exceed the block's capacity, and the groups in order are the sorted keys.
  std::mt19937_64 rng(5);
  for (int runs : {1, 2, 3, 8, 64})
    for (const std::string dist : {"uniform", "all_equal", "two_values"})
      for (int trial = 0; trial < 4; ++trial) {
        std::vector<std::size_t> lengths(runs);
        for (auto& l : lengths) l = trial == 0 ? 0 : rng() % (trial == 3 ? 40000 : 3000);
        const auto keys_of = make_ranks(dist, lengths, rng());
        keys_t src;
        for (auto r : keys_of) {
          std::sort(r.begin(), r.end());
          src.insert(src.end(), r.begin(), r.end());
        }
        const int capacity = 4096, K = 64;
        const ws::runs_shape r = ws::make_runs_shape(lengths.data(), runs, capacity, K);
        ASSERT_EQ(r.keys(), src.size());
        std::vector<std::pair<std::uint64_t, std::size_t>> samples;
        for (std::size_t m = 0; m < r.samples; ++m) {
          const int run = r.run_of(m, r.sample_start);
          const std::size_t pos = r.start[run] + (m - r.sample_start[run] + 1) * r.stride - 1;
          ASSERT_LT(pos, r.start[run + 1]);
          samples.push_back({src[pos], pos});
        }
        std::sort(samples.begin(), samples.end());
        std::vector<std::size_t> prev(r.start, r.start + runs);
        keys_t joined;
        for (std::size_t g = 0; g < r.groups; ++g) {
          std::vector<std::size_t> next(runs);
          for (int i = 0; i < runs; ++i) {
            if (g + 1 == r.groups) {
              next[i] = r.start[i + 1];
              continue;
            }
            const auto& s = samples[ws::splitter_rank(g, r.oversampling)];
            const int srun = r.run_of(s.second, r.start);
            next[i] = r.start[i] + ws::cut_sequence(src.data() + r.start[i],
                                                     r.start[i + 1] - r.start[i],
                                                     static_cast<std::size_t>(i),
                                                     static_cast<std::size_t>(srun),
                                                     s.second - r.start[srun], s.first,
                                                     std::less<std::uint64_t>{});
          }
          std::size_t size = 0;
          keys_t group;
          for (int i = 0; i < runs; ++i) {
            ASSERT_LE(prev[i], next[i]);
            size += next[i] - prev[i];
            group.insert(group.end(), src.begin() + prev[i], src.begin() + next[i]);
          }
          ASSERT_LE(size, static_cast<std::size_t>(capacity))
              << runs << " runs, " << dist << ", group " << g;
          std::sort(group.begin(), group.end());
          joined.insert(joined.end(), group.begin(), group.end());
          prev = next;
        }
        keys_t sorted = src;
        std::sort(sorted.begin(), sorted.end());
        ASSERT_EQ(joined, sorted) << runs << " runs, " << dist;
      }
}

TEST(ExchangeAgreement, AgreeingSidesPassForAnyPAndLayout) {
  // the sort's own plans: the count matrix's two views, and rebalancing's ranges, for counts
  // with empty ranks anywhere
  std::mt19937_64 rng(5);
  for (int P : {1, 2, 3, 4, 8, 64})
    for (int trial = 0; trial < 20; ++trial) {
      const std::size_t Pz = static_cast<std::size_t>(P);
      std::vector<std::size_t> sends(Pz * Pz), receives(Pz * Pz);
      for (std::size_t p = 0; p < Pz; ++p)
        for (std::size_t q = 0; q < Pz; ++q) sends[p * Pz + q] = rng() % 3 == 0 ? 0 : rng() % 1000;
      for (std::size_t p = 0; p < Pz; ++p)
        for (std::size_t q = 0; q < Pz; ++q) receives[q * Pz + p] = sends[p * Pz + q];
      EXPECT_EQ(wd::count_disagreement(sends, receives, P, "exchange", "keys"), "");
      // rebalancing from what the ranks hold to their input counts
      std::vector<std::size_t> have(Pz), want(Pz);
      std::size_t total = 0;
      for (std::size_t p = 0; p < Pz; ++p) total += have[p] = rng() % 4 == 0 ? 0 : rng() % 500;
      std::size_t left = total;
      for (std::size_t p = 0; p + 1 < Pz; ++p) left -= want[p] = left == 0 ? 0 : rng() % (left + 1);
      want[Pz - 1] = left;
      const auto hp = wd::prefix(have), wp = wd::prefix(want);
      for (int p = 0; p < P; ++p) {
        const auto out = wd::overlaps(hp, wp, p, true), in = wd::overlaps(hp, wp, p, false);
        for (std::size_t q = 0; q < Pz; ++q) {
          sends[static_cast<std::size_t>(p) * Pz + q] = out[q].count;
          receives[static_cast<std::size_t>(p) * Pz + q] = in[q].count;
        }
      }
      EXPECT_EQ(wd::count_disagreement(sends, receives, P, "rebalance", "keys"), "") << "P " << P;
    }
}

TEST(ExchangeAgreement, DisagreementNamesBothRanksAndThePhase) {
  // the CLI's old all-to-all on two ranks at a total of 3: blocks from each rank's own count
  // (1 and 2 keys: 0 and 4 bytes a block)
  const std::vector<std::size_t> sends{0, 0, 4, 4}, receives{0, 0, 4, 4};
  // receives[q * P + p]: rank 0 expects 0 from rank 1, rank 1 expects 4 from rank 0
  EXPECT_EQ(wd::count_disagreement(sends, receives, 2, "alltoall", "bytes"),
            "phase alltoall: rank 0 would send 0 bytes to rank 1, which expects 4");
  EXPECT_NE(wd::count_disagreement({1}, {1, 2, 3, 4}, 2, "x", "keys"), "");
}

TEST(Deadline, NoneNeverPassesAndASetOnePassesOnTime) {
  using clock = wd::deadline::clock;
  const auto now = clock::now();
  const wd::deadline none;
  EXPECT_FALSE(none.set());
  EXPECT_FALSE(none.passed(now + std::chrono::hours(24 * 365)));
  EXPECT_FALSE(wd::deadline(0, now).set());
  EXPECT_FALSE(wd::deadline(-5, now).set());
  const wd::deadline five(5, now);
  EXPECT_TRUE(five.set());
  EXPECT_EQ(five.seconds(), 5);
  EXPECT_FALSE(five.passed(now + std::chrono::milliseconds(4999)));
  EXPECT_TRUE(five.passed(now + std::chrono::milliseconds(5000)));
  EXPECT_TRUE(wd::deadline(0.25, now).passed(now + std::chrono::milliseconds(250)));
}

TEST(Deadline, TimeoutErrorNamesTheRankThePhaseAndTheSeconds) {
  const warpsort::distributed::timeout_error e(1, "exchange", 5);
  EXPECT_EQ(e.rank(), 1);
  EXPECT_EQ(e.phase(), "exchange");
  EXPECT_NE(std::string(e.what()).find("rank 1: phase exchange: no progress within the deadline of 5 s"),
            std::string::npos)
      << e.what();
  EXPECT_NE(std::string(warpsort::distributed::timeout_error(0, "init", 2.5).what()).find("of 2.5 s"),
            std::string::npos);
}

}  // namespace

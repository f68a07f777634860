#pragma once
// The distributed sort's arithmetic: how many keys each rank samples and where, which sorted
// sample is each global splitter, the bound on what a rank receives, where each rank's output
// starts, and what moves when the output is rebalanced to the input counts. Pure functions of
// the counts, shared by the host, the kernels and the CPU tests; they hold for any number of
// ranks P.
#include <warpsort/detail/stages/index_math.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpsort::distributed::detail {

using stages::ceil_div;
using stages::max_size;
using stages::min_size;

/// Most runs a rank merges on chip (one from each sorted sequence of every rank).
constexpr int most_runs = 64;

/// Sorted sequences a rank's local sort may leave, so that P of them fit one merge of at most
/// `runs` runs: the largest power of two <= runs / P (at least 1).
WARPSORT_HD int local_sequences(int ranks, int runs = most_runs) {
  int s = 1;
  while (2 * s * ranks <= runs) s *= 2;
  return s;
}

/// Sequences over all ranks, at most: what the splitters' error adds up over.
WARPSORT_HD std::size_t sequences_bound(int ranks) {
  return static_cast<std::size_t>(ranks) * static_cast<std::size_t>(local_sequences(ranks));
}

/// Sequences the splitters cut, over all ranks, at most: the local sort's, or, where its last
/// round runs bucket by bucket during the exchange (`bucketed`), the sequences before that
/// round, at most most_runs (a round's widest set) to each of the local sort's.
WARPSORT_HD std::size_t cut_sequences_bound(int ranks, bool bucketed) {
  return sequences_bound(ranks) * (bucketed ? static_cast<std::size_t>(most_runs) : 1);
}

/// Sampling by global position: the ranks' keys, in rank order, are one sequence of N keys;
/// every key at a global position g - 1, 2g - 1, ... is sampled, g = ceil(N / samples) with
/// samples = oversampling x P x `sequences` (the sequences cut, cut_sequences_bound). Each
/// sample then stands for g keys of its sorted sequence, whatever the ranks' counts, and a
/// splitter taken from the sorted samples misses its target by less than one stride in each
/// sequence.
WARPSORT_HD std::size_t sample_stride(std::size_t total, int ranks, int oversampling,
                                      std::size_t sequences) {
  const std::size_t samples = static_cast<std::size_t>(oversampling) *
                              static_cast<std::size_t>(ranks) * sequences;
  return total == 0 ? 1 : max_size(ceil_div(total, samples), 1);
}
WARPSORT_HD std::size_t sample_stride(std::size_t total, int ranks, int oversampling) {
  return sample_stride(total, ranks, oversampling, sequences_bound(ranks));
}

/// Samples of a rank whose keys are the global positions [offset, offset + n): the multiples
/// of the stride in (offset, offset + n].
WARPSORT_HD std::size_t samples_of_rank(std::size_t offset, std::size_t n, std::size_t stride) {
  return (offset + n) / stride - offset / stride;
}

/// Local position of a rank's sample t: global position (offset / stride + t + 1) stride - 1.
WARPSORT_HD std::size_t sample_position(std::size_t t, std::size_t offset, std::size_t stride) {
  return (offset / stride + t + 1) * stride - 1 - offset;
}

/// Bucket b of P K (rank b / K, part b % K) ends at splitter b + 1: every key ordered at or
/// before it goes to buckets 0..b, which should then hold `target` keys. It is placed after the
/// first c of the m sorted samples, c the nearest whole number of strides to the target; c = 0
/// puts it before every key.
WARPSORT_HD std::size_t splitter_samples(std::size_t target, std::size_t stride, std::size_t m) {
  return min_size((target + stride / 2) / stride, m);
}

/// What ranks 0..j-1 together hold when balanced: j N / P.
WARPSORT_HD std::size_t balanced_prefix(int j, int ranks, std::size_t total) {
  const std::size_t p = static_cast<std::size_t>(ranks), q = total / p, r = total % p;
  return q * static_cast<std::size_t>(j) + (r * static_cast<std::size_t>(j)) / p;
}

/// The keys buckets 0..b-1 should hold: rank q = b / K ends at ends[q + 1] (ends: P + 1
/// prefix counts, balanced or the input counts), and its K parts split its share evenly.
WARPSORT_HD std::size_t bucket_target(std::size_t b, std::size_t parts, const std::size_t* ends) {
  const std::size_t q = b / parts, k = b % parts;
  const std::size_t share = ends[q + 1] - ends[q];
  return ends[q] + (share / parts) * k + ((share % parts) * k) / parts;
}

/// Most keys a bucket of `share` keys can receive: its share, plus half a stride of rounding
/// at each end, plus, at each end, less than a stride from each of the `sequences` sorted
/// sequences it is cut from (where a splitter falls within a sequence is known to one stride).
WARPSORT_HD std::size_t bucket_bound(std::size_t share, std::size_t stride, std::size_t sequences) {
  return share + (2 * sequences + 1) * stride;
}

/// A contiguous range of a rank's keys to move: `count` keys from `from` on the sender to `to`
/// on the receiver.
struct segment {
  std::size_t from, to, count;
};

/// Rebalancing: rank r holds the global positions [have[r], have[r + 1]) and must end with
/// [want[r], want[r + 1]). The overlap with each rank, as segments (empty ones included: one
/// entry per peer, in rank order). Both prefix arrays have P + 1 entries and the same last.
inline std::vector<segment> overlaps(const std::vector<std::size_t>& have_prefix,
                                     const std::vector<std::size_t>& want_prefix, int me,
                                     bool sending) {
  const int ranks = static_cast<int>(have_prefix.size()) - 1;
  std::vector<segment> out(static_cast<std::size_t>(ranks));
  const auto& mine = sending ? have_prefix : want_prefix;
  const auto& theirs = sending ? want_prefix : have_prefix;
  for (int p = 0; p < ranks; ++p) {
    const std::size_t lo = max_size(mine[me], theirs[p]), hi = min_size(mine[me + 1], theirs[p + 1]);
    if (lo < hi)
      out[p] = {lo - have_prefix[sending ? me : p], lo - want_prefix[sending ? p : me], hi - lo};
    else
      out[p] = {0, 0, 0};
  }
  return out;
}

/// Whether an exchange's two sides agree: sends[p * P + q] is what rank p will send rank q,
/// receives[q * P + p] what rank q expects from rank p. Empty if they agree everywhere;
/// otherwise the first disagreement, naming both ranks and the phase. A pure function of
/// matrices every rank holds alike, so every rank reaches the same verdict.
inline std::string count_disagreement(const std::vector<std::size_t>& sends,
                                      const std::vector<std::size_t>& receives, int ranks,
                                      const std::string& phase, const std::string& unit) {
  const std::size_t P = static_cast<std::size_t>(ranks);
  if (sends.size() != P * P || receives.size() != P * P)
    return "phase " + phase + ": the count matrices are not " + std::to_string(P) + " x " +
           std::to_string(P);
  for (std::size_t p = 0; p < P; ++p)
    for (std::size_t q = 0; q < P; ++q)
      if (sends[p * P + q] != receives[q * P + p])
        return "phase " + phase + ": rank " + std::to_string(p) + " would send " +
               std::to_string(sends[p * P + q]) + " " + unit + " to rank " + std::to_string(q) +
               ", which expects " + std::to_string(receives[q * P + p]);
  return {};
}

/// Every rank's cut tables, as gathered: rank p's row starts at p * row_words and holds three
/// tables of `rows` x `splitters` entries, entry b rows + c for splitter b and sequence c:
/// where the splitter cuts the sequence, and the lower and upper bounds of the splitter's key
/// there; rank p cuts its first sequences[p] sequences.
struct cut_tables {
  std::size_t row_words, rows, splitters;
  std::size_t table() const { return rows * splitters; }
  std::size_t at(std::size_t p, int which, std::size_t b, std::size_t c) const {
    return p * row_words + static_cast<std::size_t>(which) * table() + b * rows + c;
  }
};
enum cut_table : int { cut_at = 0, lower_at = 1, upper_at = 2 };

/// Keys alone: equal keys are interchangeable, so where consecutive splitters fall on one key,
/// its copies may go to their buckets from any rank. Ordered by (rank, position), a run of
/// equal keys is handed out rank by rank, and a destination may receive every copy from its
/// peers while its own go elsewhere. This recuts such runs: each bucket takes as many as it
/// can of its own rank's copies first (bucket b belongs to rank b / parts), then the rest in
/// (rank, position) order. Every bucket keeps its size, so the output is the same; each rank's
/// copies are cut in (sequence, position) order, a cut of its keys in (key, position) order as
/// before. A pure function of the gathered tables: every rank makes the same change. False
/// where the tables contradict themselves (a cut outside its key's bounds, or going back).
inline bool keep_own_ties(std::vector<std::size_t>& m, const cut_tables& t,
                          const std::vector<std::size_t>& sequences, std::size_t parts) {
  const std::size_t P = sequences.size();
  const auto same_key = [&](std::size_t a, std::size_t b) {
    for (std::size_t p = 0; p < P; ++p)
      for (std::size_t c = 0; c < sequences[p]; ++c)
        for (int which : {lower_at, upper_at})
          if (m[t.at(p, which, a, c)] != m[t.at(p, which, b, c)]) return false;
    return true;
  };
  std::vector<std::size_t> copies(P), left(P), taken;
  for (std::size_t b1 = 0, b2 = 0; b1 < t.splitters; b1 = b2 + 1) {
    b2 = b1;
    while (b2 + 1 < t.splitters && same_key(b1, b2 + 1)) ++b2;
    // bucket b1 + j takes quota[j] of the key's copies, j = 0..b2 - b1 + 1
    const std::size_t n_buckets = b2 - b1 + 2;
    std::vector<std::size_t> quota(n_buckets, 0);
    for (std::size_t p = 0; p < P; ++p) {
      copies[p] = 0;
      std::size_t before = 0;  // rank p's copies left of the previous splitter
      for (std::size_t c = 0; c < sequences[p]; ++c)
        copies[p] += m[t.at(p, upper_at, b1, c)] - m[t.at(p, lower_at, b1, c)];
      for (std::size_t j = 0; j + 1 < n_buckets; ++j) {
        std::size_t x = 0;
        for (std::size_t c = 0; c < sequences[p]; ++c) {
          const std::size_t cut = m[t.at(p, cut_at, b1 + j, c)];
          if (cut < m[t.at(p, lower_at, b1 + j, c)] || cut > m[t.at(p, upper_at, b1 + j, c)])
            return false;
          x += cut - m[t.at(p, lower_at, b1 + j, c)];
        }
        if (x < before) return false;
        quota[j] += x - before;
        before = x;
      }
      quota[n_buckets - 1] += copies[p] - before;
      left[p] = copies[p];
    }
    // taken[j P + p]: rank p's copies in bucket b1 + j
    taken.assign(n_buckets * P, 0);
    for (std::size_t j = 0; j < n_buckets; ++j) {
      const std::size_t own = (b1 + j) / parts;
      if (own >= P) continue;
      const std::size_t x = min_size(quota[j], left[own]);
      taken[j * P + own] += x;
      left[own] -= x;
      quota[j] -= x;
    }
    for (std::size_t j = 0, p = 0; j < n_buckets; ++j)
      while (quota[j] > 0) {
        while (p < P && left[p] == 0) ++p;
        if (p == P) return false;
        const std::size_t x = min_size(quota[j], left[p]);
        taken[j * P + p] += x;
        left[p] -= x;
        quota[j] -= x;
      }
    // each rank's new cuts: its first x copies, in (sequence, position) order, lie left
    for (std::size_t p = 0; p < P; ++p)
      for (std::size_t j = 0, x = 0; j + 1 < n_buckets; ++j) {
        x += taken[j * P + p];
        for (std::size_t c = 0, before = 0; c < sequences[p]; ++c) {
          const std::size_t lo = m[t.at(p, lower_at, b1 + j, c)];
          const std::size_t len = m[t.at(p, upper_at, b1 + j, c)] - lo;
          m[t.at(p, cut_at, b1 + j, c)] = lo + min_size(x - min_size(x, before), len);
          before += len;
        }
      }
  }
  return true;
}

/// Exclusive prefix sums (n + 1 entries).
inline std::vector<std::size_t> prefix(const std::vector<std::size_t>& v) {
  std::vector<std::size_t> p(v.size() + 1, 0);
  for (std::size_t i = 0; i < v.size(); ++i) p[i + 1] = p[i] + v[i];
  return p;
}

}  // namespace warpsort::distributed::detail

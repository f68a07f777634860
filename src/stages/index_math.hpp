// Pure index math of the four steps: small __host__ __device__ functions, tested on the CPU.
#pragma once

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define WARPSORT_HD __host__ __device__ __forceinline__
#else
#define WARPSORT_HD inline
#endif

namespace warpsort::stages {

WARPSORT_HD std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
WARPSORT_HD std::size_t min_size(std::size_t a, std::size_t b) { return a < b ? a : b; }

/// ceil(log2(x)) for x >= 1.
WARPSORT_HD int ceil_log2(std::size_t x) {
  int r = 0;
  while ((std::size_t{1} << r) < x) ++r;
  return r;
}

// ---------------------------------------------------------------- step 1: chunks and lanes

/// Register layouts of a warp holding 32 * V keys. Blocked: lane l holds slots l*V .. l*V+V-1
/// (contiguous, so a lane can load them as one vector). Striped: register r holds slots
/// r*32 .. r*32+31 across the lanes (each register is one coalesced warp-wide access).
WARPSORT_HD int blocked_slot(int lane, int reg, int keys_per_lane) { return lane * keys_per_lane + reg; }
WARPSORT_HD int striped_slot(int lane, int reg) { return reg * 32 + lane; }

/// Bitonic network step: while building sorted runs of length k, the element at `slot` is
/// compared with slot ^ j. The lower of the two keeps the smaller key if its run ascends.
WARPSORT_HD bool run_ascends(int slot, int k) { return (slot & k) == 0; }
WARPSORT_HD bool keeps_min(int slot, int k, int j) { return ((slot & j) == 0) == run_ascends(slot, k); }

// ---------------------------------------------------------------- step 2: pairs and tiles

/// Sequences of `seq_len` keys tile [0, n); pair p merges sequences 2p and 2p+1 into
/// [a_begin, b_end). The last sequence may be short, and an odd one out has an empty B.
struct pair_bounds {
  std::size_t a_begin, a_end, b_end;  // A = [a_begin, a_end), B = [a_end, b_end)
};
WARPSORT_HD pair_bounds pair_of(std::size_t pair, std::size_t seq_len, std::size_t n) {
  const std::size_t a_begin = min_size(pair * 2 * seq_len, n);
  const std::size_t a_end = min_size(a_begin + seq_len, n);
  return {a_begin, a_end, min_size(a_end + seq_len, n)};
}

/// Merge path: how many of the first `diag` outputs of merge(A, B) come from A, equal keys
/// taken from A first. Splitting both inputs there makes the two halves independent merges.
template <class ItA, class ItB, class Comp>
WARPSORT_HD std::size_t merge_path(ItA a, std::size_t na, ItB b, std::size_t nb,
                                   std::size_t diag, Comp comp) {
  std::size_t lo = diag > nb ? diag - nb : 0;
  std::size_t hi = min_size(diag, na);
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (comp(b[diag - 1 - mid], a[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/// A merge tile: the outputs [d, d + count) of merge(A, B) come from A[a0, a1) and B[b0, b1)
/// (merge path at d and d + count). A warp loads them as one bitonic sequence of `tile` slots:
/// A's share ascending in slots [0, na), B's share reversed in slots [tile - nb, tile) (slot s
/// takes B's key tile - 1 - s), and the sentinel between them (only a partial tile has a gap).
/// Ascending, then padding that sorts last, then descending: bitonic, so the log2(tile)-level
/// bitonic merge network sorts it, and its first count slots are the tile's outputs.
enum class tile_source { a, b, pad };
struct tile_slot {
  tile_source from;
  int index;  // into A's or B's share
};
WARPSORT_HD tile_slot bitonic_tile_slot(int slot, int na, int nb, int tile) {
  if (slot < na) return {tile_source::a, slot};
  if (slot >= tile - nb) return {tile_source::b, tile - 1 - slot};
  return {tile_source::pad, 0};
}

/// Step 2 cuts the output of every pair into blocks of `block_keys` (a power of two no longer
/// than a pair, so a block never straddles two pairs). Block b starts at output b * block_keys.
WARPSORT_HD std::size_t merge_blocks(std::size_t n, std::size_t block_keys) {
  return ceil_div(n, block_keys);
}

// ---------------------------------------------------------------- step 3: samples and cuts

/// Regular sampling of L sorted sequences (all `seq_len` long but the last): every s-th key,
/// positions s-1, 2s-1, ... Sample m lies in sequence m / per_seq at this position.
WARPSORT_HD std::size_t samples_in(std::size_t len, std::size_t stride) { return len / stride; }
struct sample_site {
  std::size_t sequence, position;
};
WARPSORT_HD sample_site sample_site_of(std::size_t m, std::size_t seq_len, std::size_t stride) {
  const std::size_t per_seq = samples_in(seq_len, stride);
  return {m / per_seq, (m % per_seq + 1) * stride - 1};
}

/// The samples of one sorted sequence, read in place: sample t is the key at (t+1)s - 1.
template <class Key>
struct sample_view {
  const Key* seq;
  std::size_t stride;
  WARPSORT_HD const Key& operator[](std::size_t t) const { return seq[(t + 1) * stride - 1]; }
};

/// Splitter j (0 <= j < groups-1) is the sorted sample at rank (j+1)K - 1: each group holds
/// K samples, so every group's size is bounded whatever the keys.
WARPSORT_HD std::size_t splitter_rank(std::size_t j, std::size_t oversampling) {
  return (j + 1) * oversampling - 1;
}

/// Splitters are (key, global position) pairs, so equal keys are split by position and groups
/// stay balanced under duplicates. Sequence `seq` is cut after every element ordered at or
/// before the splitter taken from sequence `splitter_seq` at `splitter_pos`:
///  - an earlier sequence keeps all keys <= the splitter key (upper bound),
///  - a later sequence keeps the keys < the splitter key (lower bound),
///  - the splitter's own sequence is cut just after the splitter.
/// `seq` is anything indexable: a pointer to the keys, or a sample_view of them.
/// cut_sequence_between searches only [lo, hi], where the caller knows the cut lies.
template <class Seq, class Key, class Comp>
WARPSORT_HD std::size_t cut_sequence_between(const Seq& seq, std::size_t lo, std::size_t hi,
                                             std::size_t seq_index, std::size_t splitter_seq,
                                             std::size_t splitter_pos, const Key& splitter_key,
                                             Comp comp) {
  if (seq_index == splitter_seq) return splitter_pos + 1;
  const bool upper = seq_index < splitter_seq;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    // upper bound: skip keys not after the splitter; lower bound: skip keys before it
    const bool skip = upper ? !comp(splitter_key, seq[mid]) : comp(seq[mid], splitter_key);
    if (skip)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

template <class Seq, class Key, class Comp>
WARPSORT_HD std::size_t cut_sequence(const Seq& seq, std::size_t len, std::size_t seq_index,
                                     std::size_t splitter_seq, std::size_t splitter_pos,
                                     const Key& splitter_key, Comp comp) {
  return cut_sequence_between(seq, 0, len, seq_index, splitter_seq, splitter_pos, splitter_key,
                              comp);
}

/// A sample's rank in the sample sorted by (key, position), without sorting it: cut every
/// sequence's samples at the sample itself (cut_sequence on sample_views), sum the cuts (the
/// samples ordered at or before it, itself included), less one. Step 3 uses this for small
/// samples; a stable sort of the sample by key puts every sample at exactly this rank.
template <class Key, class Comp>
WARPSORT_HD std::size_t sample_cut(const Key* sequence_begin, std::size_t sequence_len,
                                   std::size_t stride, std::size_t seq_index,
                                   std::size_t sample_seq, std::size_t sample_index,
                                   const Key& sample_key, Comp comp) {
  return cut_sequence(sample_view<Key>{sequence_begin, stride}, samples_in(sequence_len, stride),
                      seq_index, sample_seq, sample_index, sample_key, comp);
}

/// Where a sequence's cut at a splitter lies, given its sample cut c at that splitter (c of its
/// samples are ordered at or before it): sample c - 1, the key at c s - 1, is in the cut and
/// sample c, the key at (c + 1) s - 1, is not, so the cut lies in [c s, (c + 1) s - 1] (capped
/// at len): a search over fewer than s keys instead of the whole sequence.
struct key_range {
  std::size_t begin, end;
};
WARPSORT_HD key_range cut_window(std::size_t sample_cut, std::size_t stride, std::size_t len) {
  const std::size_t lo = sample_cut * stride, hi = (sample_cut + 1) * stride - 1;
  return {lo < len ? lo : len, hi < len ? hi : len};
}

}  // namespace warpsort::stages

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
WARPSORT_HD std::size_t max_size(std::size_t a, std::size_t b) { return a > b ? a : b; }

/// The highest set bit of x > 0.
constexpr int high_bit(int x) { return x & (x - 1) ? high_bit(x & (x - 1)) : x; }

/// The highest set bit of x (0 for x <= 0), at run time.
WARPSORT_HD int high_bit_of(int x) {
  if (x <= 0) return 0;
#ifdef __CUDA_ARCH__
  return 1 << (31 - __clz(x));
#else
  int h = 1;
  while (h <= x / 2) h *= 2;
  return h;
#endif
}

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

/// Outputs of the tile (or thread item) that starts at output d of a merge ending at `end`:
/// `width`, or fewer if the merge ends first.
WARPSORT_HD int outputs_from(int d, int end, int width) { return end - d < width ? end - d : width; }

/// Step 2 cuts the output of every pair into blocks of `block_keys` (a power of two no longer
/// than a pair, so a block never straddles two pairs). Block b starts at output b * block_keys.
WARPSORT_HD std::size_t merge_blocks(std::size_t n, std::size_t block_keys) {
  return ceil_div(n, block_keys);
}

/// Shared memory of a version-4 block that merges round by round between two buffers (steps 1
/// and 4): ping, then pong at ping + keys, `keys` keys each, then `table_entries` unsigned
/// entries at pong + keys (step 4's piece offsets). The host sizes launches with bytes(); the
/// kernels carve their __shared__ array in that order themselves (a helper given the array as
/// a pointer changed their code: up to 270 more instructions in the 16-byte kernels). `Count`
/// is the kernel's own type for `keys`, so the carving's arithmetic is the kernel's.
template <class Key, class Count>
struct ping_pong_layout {
  Count keys;
  std::size_t table_entries;
  WARPSORT_HD std::size_t bytes() const {
    return 2 * static_cast<std::size_t>(keys) * sizeof(Key) + table_entries * sizeof(unsigned);
  }
};

// ---------------------------------------------------------------- thread merges (version 5)
// On chip, version 5 merges runs held in shared memory a thread at a time: a thread makes one
// item, `per_item` consecutive outputs of the merge of runs 2q and 2q + 1, with a bitonic network
// of E = per_item + 1 keys in registers. Run r lies at its logical start plus r gaps of `gap`
// (>= E) keys, ascending when r is even and descending when r is odd, and an even run's gap
// holds sentinels: an item's filler reads past A's end land there.

/// Items of one output run of `len` keys.
WARPSORT_HD int items_in(int len, int per_item) { return (len + per_item - 1) / per_item; }

/// Most items a level of `keys` keys in `runs` runs can make: each output run's last item
/// may be short, so a block with this many threads gives every item its own thread.
WARPSORT_HD int items_bound(int keys, int runs, int per_item) {
  return items_in(keys, per_item) + (runs + 1) / 2;
}

/// Logical start of run r of a level: step 1's runs are `len` keys each over `count` keys (the
/// last may be shorter); step 4's run r is pieces [r 2^level, (r + 1) 2^level) of a group,
/// whose starts are offsets[0..pieces] (also the rounds of version 4's step 4).
WARPSORT_HD int equal_run_begin(int r, int len, int count) { return r * len < count ? r * len : count; }
template <class Offset>
WARPSORT_HD Offset table_run_begin(const Offset* offsets, int r, int level, int pieces) {
  const int piece = r << level;
  return offsets[piece < pieces ? piece : pieces];
}

/// Where run r (logical start `start`) lies in the gapped layout.
WARPSORT_HD int gapped_offset(int start, int run, int gap) { return start + run * gap; }

/// The item whose outputs start `d` keys into the merge of A and B, with `a0` and `a1` A keys
/// before its first and after its last output (merge path): it holds slots [0, e - nb) of A
/// from a0 on and, reversed, B's share [b0, b1) in slots [e - nb, e). Slots [a1 - a0, e - nb)
/// are filler: the A keys after the item (or the sentinels of A's gap), none ordered before
/// any of its outputs, so the sorted item's first outputs are the item.
struct item_share {
  int a0, a1, b0, b1;
  WARPSORT_HD int nb() const { return b1 - b0; }
  WARPSORT_HD int count() const { return a1 - a0 + b1 - b0; }
};
WARPSORT_HD item_share item_share_of(int d, int count, int a0, int a1) {
  return {a0, a1, d - a0, d + count - a1};
}

/// Offset, from its run's start, of the key slot s of an item reads: A's share ascending from
/// a0, B's share (a descending run of len_b keys) so that slot e - 1 holds B's key b0.
WARPSORT_HD bool slot_from_a(int slot, int e, int nb) { return slot < e - nb; }
WARPSORT_HD int slot_offset_in_a(int slot, int a0) { return a0 + slot; }
WARPSORT_HD int slot_offset_in_b(int slot, int e, int len_b, int b0) { return len_b - b0 - e + slot; }

/// After a level of `pairs` output runs (pairs > 1: one run is the result and needs none), the
/// gaps of the next level's even runs get sentinels: `gap` keys after each even output run.
/// Key x of them is key `offset` of output run `run`'s gap.
WARPSORT_HD int next_gap_keys(int pairs, int gap) { return (pairs + 1) / 2 * gap; }
struct gap_key {
  int run, offset;
};
WARPSORT_HD gap_key next_gap_key(int x, int gap) { return {x / gap * 2, x % gap}; }

/// Merge path on A ascending and B stored descending (len_b keys): how many of the first
/// `diag` outputs come from A, equal keys from A first. B's key diag - 1 - m lies at
/// len_b - diag + m, so both probes of a step share one index. Binary lifting: `pos` only
/// grows, by halving steps, while the probe says the answer lies further.
template <class ItA, class ItB, class Comp>
WARPSORT_HD int merge_path_b_descending(ItA a, int na, ItB b_desc, int nb, int diag, Comp comp) {
  const int lo = diag > nb ? diag - nb : 0;
  const int hi = diag < na ? diag : na;  // the answer lies in [lo, hi]
  const int b_shift = nb - diag;
  int pos = lo;
  for (int step = high_bit_of(hi - lo); step > 0; step >>= 1) {
    const int m = pos + step - 1;  // the last key the step would skip
    if (m < hi && !comp(b_desc[b_shift + m], a[m])) pos += step;
  }
  return pos;
}

// ---------------------------------------------------------------- the paper's buffer merge
// The preset "paper" merges as Ye et al. describe (lucchi2023warpsort, section 3.2, in
// docs/references.bib): a warp holds a buffer of t keys, [t/2 keys of one input reversed | t/2
// kept keys ascending], a bitonic sequence; the merge network sorts it, the lower half is final,
// and the next t/2 keys come, reversed, from the input whose last loaded key is smaller.

/// The buffer's lower half is refilled with `half` keys loaded in reverse: buffer slot s takes
/// the block's key half-1-s, so [reversed block | kept ascending half] is bitonic.
WARPSORT_HD int reversed_source(int slot, int half) { return half - 1 - slot; }

/// Which input refills the buffer: the one whose last loaded key is smaller (A on ties), since
/// its unloaded keys may still belong before the keys held in the buffer; none when both are
/// spent (the kept half is then flushed).
enum class refill { from_a, from_b, none };
WARPSORT_HD refill choose_refill(bool a_left, bool b_left, bool b_last_before_a_last) {
  if (a_left && (!b_left || !b_last_before_a_last)) return refill::from_a;
  if (b_left) return refill::from_b;
  return refill::none;
}

/// Step 4 through global memory (policy::groups_on_chip = 0): round r merges, in every group,
/// the runs of 2^r pieces pairwise; pair q of round r merges pieces [lo, mid) with [mid, hi)
/// (of `pieces`, one a sequence). Rounds: ceil(log2 pieces); pairs a group (pairs_in_round): ceil(pieces / 2^(r+1)).
struct piece_pair {
  std::size_t lo, mid, hi;
};
WARPSORT_HD std::size_t pairs_in_round(std::size_t pieces, int r) {
  return ceil_div(pieces, std::size_t{2} << r);
}
WARPSORT_HD piece_pair group_round_pair(std::size_t pieces, int r, std::size_t q) {
  const std::size_t lo = q * (std::size_t{2} << r);
  return {lo, min_size(lo + (std::size_t{1} << r), pieces),
          min_size(lo + (std::size_t{2} << r), pieces)};
}

// ---------------------------------------------------------------- step 3: samples and cuts

/// Regular sampling of L sorted sequences (all `seq_len` long but the last): every s-th key,
/// positions s-1, 2s-1, ... With per_seq = samples_in(seq_len, s) samples a whole sequence
/// (counted once, by the caller), sample m lies in sequence m / per_seq at this position.
WARPSORT_HD std::size_t samples_in(std::size_t len, std::size_t stride) { return len / stride; }
struct sample_site {
  std::size_t sequence, position;
};
WARPSORT_HD sample_site sample_site_of(std::size_t m, std::size_t per_seq, std::size_t stride) {
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
///
/// Whether key x of a sequence other than the splitter's lies before its cut: in an earlier
/// sequence every key not after the splitter (upper bound), in a later one every key before it
/// (lower bound).
template <class Key, class Comp>
WARPSORT_HD bool before_cut(const Key& x, const Key& splitter_key, bool earlier, Comp comp) {
  return earlier ? !comp(splitter_key, x) : comp(x, splitter_key);
}

/// The cut of a sequence other than the splitter's, searched in [lo, hi] (positions of any
/// unsigned type): the first position whose key is not before_cut.
template <class Seq, class Index, class Key, class Comp>
WARPSORT_HD Index cut_other_sequence(const Seq& seq, Index lo, Index hi, bool earlier,
                                     const Key& splitter_key, Comp comp) {
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (before_cut(seq[mid], splitter_key, earlier, comp))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

template <class Seq, class Key, class Comp>
WARPSORT_HD std::size_t cut_sequence_between(const Seq& seq, std::size_t lo, std::size_t hi,
                                             std::size_t seq_index, std::size_t splitter_seq,
                                             std::size_t splitter_pos, const Key& splitter_key,
                                             Comp comp) {
  if (seq_index == splitter_seq) return splitter_pos + 1;
  return cut_other_sequence(seq, lo, hi, seq_index < splitter_seq, splitter_key, comp);
}

template <class Seq, class Key, class Comp>
WARPSORT_HD std::size_t cut_sequence(const Seq& seq, std::size_t len, std::size_t seq_index,
                                     std::size_t splitter_seq, std::size_t splitter_pos,
                                     const Key& splitter_key, Comp comp) {
  return cut_sequence_between(seq, 0, len, seq_index, splitter_seq, splitter_pos, splitter_key,
                              comp);
}

/// Key-only splitters (the paper's; policy::splitter_positions = 0): every sequence is cut
/// after its last key not ordered after the splitter key (an upper bound), whichever sequence
/// the splitter came from. Equal keys then all fall on one side of every splitter equal to
/// them: with all keys equal, one group holds the whole input. Written as the rule above with a
/// splitter from no sequence (index ~0: every sequence counts as earlier).
template <class Seq, class Key, class Comp>
WARPSORT_HD std::size_t cut_by_key(const Seq& seq, std::size_t len, const Key& splitter_key,
                                   Comp comp) {
  return cut_sequence_between(seq, 0, len, 0, ~std::size_t{0}, 0, splitter_key, comp);
}

/// Key-only sampling (policy::groups_on_chip = 0): S = `groups` groups of K samples wanted, so
/// the stride is n / (S K), at least 1; groups are not bounded (they need not fit on chip).
WARPSORT_HD std::size_t stride_for_groups(std::size_t n, std::size_t groups, std::size_t oversampling) {
  const std::size_t s = n / (groups * oversampling);
  return s > 0 ? s : 1;
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

// ---------------------------------------------------------------- version 5's on-chip blocks
/// Keys a thread's network holds: E - 1 outputs an item. Wider keys take fewer registers.
WARPSORT_HD constexpr int thread_merge_keys_of(std::size_t key_bytes) {
  return key_bytes <= 4 ? 32 : key_bytes <= 8 ? 16 : 8;
}
template <class Key>
constexpr int thread_merge_keys() {
  return thread_merge_keys_of(sizeof(Key));
}

/// Register cap of the thread-merge kernels (step 1's blocks, step 4's groups): 56 lets two
/// 576-thread blocks of step 4 (uint32 at C = 16384, and 8-byte keys, 63 registers uncapped, 52
/// capped, no spill) and four 288-thread blocks of step 1 share an SM; items wider than 8 bytes
/// run 256 threads a block, where 56 gains no block (65536 / (256 x 64) = 4) and spills more.
WARPSORT_HD constexpr int thread_merge_max_registers_of(std::size_t key_bytes) {
  return key_bytes <= 8 ? 56 : 64;
}
template <class Key>
constexpr int thread_merge_max_registers() {
  return thread_merge_max_registers_of(sizeof(Key));
}

/// Keys between two runs in shared memory: at least E - 1 (the filler an item may read past
/// A's end), rounded so that every run of whole warps' keys starts 16-byte aligned.
WARPSORT_HD constexpr int run_gap_of(std::size_t key_bytes) {
  int g = thread_merge_keys_of(key_bytes) - 1;
  while ((static_cast<std::size_t>(g) * key_bytes) % 16 != 0) ++g;
  return g;
}
template <class Key>
constexpr int run_gap() {
  return run_gap_of(sizeof(Key));
}

/// A block that merges up to `keys` keys in up to `runs` gapped runs on chip: its threads (one
/// an item of the busiest level) and its shared memory (the gapped keys, then the tables). The
/// host sizes launches with it (and plan_for checks it against the device, by the key's width),
/// the kernels carve their shared memory with it.
struct thread_block_shape {
  int threads;
  std::size_t tables_at;   // byte offset of the tables
  std::size_t smem_bytes;  // the whole block
};
WARPSORT_HD thread_block_shape thread_block_shape_of(std::size_t key_bytes, int keys,
                                                            int runs, int extra_ints = 0) {
  const int per_item = thread_merge_keys_of(key_bytes) - 1;
  const int items = items_bound(keys, runs, per_item);
  const int threads = (items + 31) / 32 * 32;
  const std::size_t bytes =
      static_cast<std::size_t>(keys + runs * run_gap_of(key_bytes)) * key_bytes;
  const std::size_t tables_at = (bytes + 15) / 16 * 16;
  const std::size_t table_ints = static_cast<std::size_t>(runs / 2 + 2 + threads + extra_ints);
  return {threads, tables_at, tables_at + table_ints * sizeof(int)};
}
template <class Key>
WARPSORT_HD thread_block_shape thread_block_shape_for(int keys, int runs, int extra_ints = 0) {
  return thread_block_shape_of(sizeof(Key), keys, runs, extra_ints);
}

/// Step 4's blocks (version 5): a group of up to `capacity` keys in up to `pieces` pieces; the
/// pieces' offsets (pieces + 1 ints) follow the level tables.
WARPSORT_HD thread_block_shape merge_sets_shape_of(std::size_t key_bytes, int capacity,
                                                          int pieces) {
  return thread_block_shape_of(key_bytes, capacity, pieces, pieces + 1);
}
template <class Key>
WARPSORT_HD thread_block_shape merge_sets_shape(int capacity, int pieces) {
  return merge_sets_shape_of(sizeof(Key), capacity, pieces);
}

/// Keys one warp of step 1 sorts in registers: 32 a lane, as many as a thread merges.
template <class Key>
constexpr int warp_run_keys() {
  return 32 * thread_merge_keys<Key>();
}

/// Step 1 stages a block's keys in shared memory for its warps to read, each warp one run of
/// 32 keys a lane: lane l's keys are 16-byte chunks 8 l .. 8 l + 7 of the run (for 4-, 8- and
/// 16-byte keys), which an XOR of the chunk index with its bits 3..5 spreads over the banks.
template <class Key>
constexpr bool stages_in_chunks() {
  return 16 % sizeof(Key) == 0 && warp_run_keys<Key>() * sizeof(Key) == 32 * 128;
}
WARPSORT_HD int staged_chunk(int chunk) { return chunk ^ ((chunk >> 3) & 7); }

/// Step 1's blocks: block_keys keys in runs of warp_run_keys.
WARPSORT_HD thread_block_shape sort_blocks_shape_of(std::size_t key_bytes, int block_keys) {
  const int run_keys = 32 * thread_merge_keys_of(key_bytes);
  return thread_block_shape_of(key_bytes, block_keys, (block_keys + run_keys - 1) / run_keys);
}
template <class Key>
WARPSORT_HD thread_block_shape sort_blocks_shape(int block_keys) {
  return sort_blocks_shape_of(sizeof(Key), block_keys);
}


// ---------------------------------------------------------------- version 5: rounds over sets
/// One round of steps 3 and 4 as the kernels see it (warpsort::merge_round plus n and K):
/// sequences of seq_len keys (the last may be shorter) taken set_sequences at a time.
struct round_shape {
  std::size_t n, seq_len, sequences, set_sequences, sets, stride, set_samples, set_groups,
      last_set_groups, groups, oversampling;
  WARPSORT_HD std::size_t sequence_keys(std::size_t seq) const {
    return min_size(seq_len, n - seq * seq_len);
  }
  WARPSORT_HD std::size_t samples_per_sequence() const { return samples_in(seq_len, stride); }
  WARPSORT_HD std::size_t sequences_in(std::size_t set) const {
    return min_size(set_sequences, sequences - set * set_sequences);
  }
  WARPSORT_HD std::size_t set_begin(std::size_t set) const { return set * set_sequences * seq_len; }
  /// Samples of a set: every sequence's but the input's last are whole.
  WARPSORT_HD std::size_t samples_of(std::size_t set) const {
    const std::size_t last = set * set_sequences + sequences_in(set) - 1;
    return (sequences_in(set) - 1) * samples_per_sequence() +
           samples_in(sequence_keys(last), stride);
  }
  WARPSORT_HD std::size_t groups_of(std::size_t set) const {
    return set + 1 < sets ? set_groups : last_set_groups;
  }
  WARPSORT_HD std::size_t first_group(std::size_t set) const { return set * set_groups; }
  WARPSORT_HD std::size_t set_of_group(std::size_t group) const {
    const std::size_t set = group / set_groups;
    return set < sets ? set : sets - 1;
  }
  /// Splitters of all sets, numbered set by set: set q's are [q (set_groups - 1), ...).
  WARPSORT_HD std::size_t splitters() const { return groups - sets; }
  WARPSORT_HD std::size_t set_of_splitter(std::size_t u) const {
    if (set_groups == 1) return sets - 1;  // only the last set can have splitters then
    const std::size_t set = u / (set_groups - 1);
    return set < sets ? set : sets - 1;
  }
};

// ---------------------------------------------------------------- runs of any lengths
/// Runs laid end to end: run i is [start[i], start[i + 1]) (at most max_runs runs, passed by
/// value to the kernels); sample_start[i] is the first sample of run i (stride s).
struct runs_shape {
  static constexpr int max_runs = 64;  // the block merge's most pieces
  int runs = 0;
  std::size_t stride = 1, oversampling = 1, samples = 0, groups = 1;
  std::size_t start[max_runs + 1] = {};
  std::size_t sample_start[max_runs + 1] = {};
  WARPSORT_HD std::size_t keys() const { return start[runs]; }
  /// The run holding sample m (or position x, with `table` = start).
  WARPSORT_HD int run_of(std::size_t x, const std::size_t* table) const {
    int r = 0;
    while (r + 1 < runs && table[r + 1] <= x) ++r;
    return r;
  }
};

/// The shape of merging runs of these lengths (1 <= runs <= runs_shape::max_runs, which the
/// caller checks) into blocks of `capacity` keys with oversampling K: s = capacity / (K + runs),
/// so no group holds more than (K + runs) s <= capacity keys.
inline runs_shape make_runs_shape(const std::size_t* lengths, int runs, int capacity,
                                  int oversampling) {
  runs_shape r;
  r.runs = runs;
  r.oversampling = static_cast<std::size_t>(oversampling);
  r.stride = max_size(1, static_cast<std::size_t>(capacity) /
                             (static_cast<std::size_t>(oversampling) + static_cast<std::size_t>(runs)));
  for (int i = 0; i < runs; ++i) {
    r.start[i + 1] = r.start[i] + lengths[i];
    r.sample_start[i + 1] = r.sample_start[i] + samples_in(lengths[i], r.stride);
  }
  r.samples = r.sample_start[runs];
  r.groups = r.samples / r.oversampling + 1;  // splitters at ranks K - 1, 2K - 1, ...
  return r;
}

}  // namespace warpsort::stages

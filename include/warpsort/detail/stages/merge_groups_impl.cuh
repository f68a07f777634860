#pragma once
// Step 4: each group's L pieces merged on chip by warps and written at the group's offset.
//
// One block per group: the pieces are copied into shared memory, then ceil(log2 L) rounds of
// pairwise warp merges (the step 2 merge, reading and writing shared memory) run there; the
// last round writes straight to global memory. In a round each warp takes an equal share of
// the output and merges, pair by pair, the parts of it that merge path assigns to it.
#include "block_merge.cuh"
#include "buffer_merge.cuh"
#include "index_math.hpp"
#include "launch.hpp"
#include "merge_by_rank.cuh"
#include <warpsort/stages.hpp>
#include "thread_merge.cuh"
#include "warp_scan.cuh"

#include <warpsort/error.hpp>

#include <cstdio>

namespace warpsort::stages {

/// Start of piece `piece` of a round in which pieces are 2^width_log2 original pieces wide.
__device__ __forceinline__ int piece_start(const unsigned* offsets, int piece, int width_log2,
                                           int pieces) {
  return static_cast<int>(table_run_begin(offsets, piece, width_log2, pieces));
}

/// The pairs of round r of a group: pieces (2q, 2q+1), each 2^r original pieces wide.
struct group_round_pairs {
  const unsigned* offsets;
  int pieces, r, pairs;
  __device__ __forceinline__ run_pair operator()(int d) const {
    int lo = 0, hi = pairs;  // the last pair q whose start is <= d
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (piece_start(offsets, mid, r + 1, pieces) <= d) lo = mid; else hi = mid;
    }
    const int a = piece_start(offsets, 2 * lo, r, pieces);
    const int b = piece_start(offsets, 2 * lo + 1, r, pieces);
    return {a, b - a, piece_start(offsets, 2 * lo + 2, r, pieces) - b};
  }
};

/// The ceil(log2 pieces) rounds of a group (merge_rounds_ping_pong): round r merges pairs of
/// pieces 2^r original pieces wide.
struct group_rounds {
  const unsigned* offsets;
  int pieces, rounds;
  __device__ __forceinline__ int first() const { return 0; }
  __device__ __forceinline__ bool more(int r) const { return r < rounds; }
  __device__ __forceinline__ bool last(int r) const { return r + 1 == rounds; }
  __device__ __forceinline__ int next(int r) const { return r + 1; }
  __device__ __forceinline__ group_round_pairs pairs(int r) const {
    const int width = 1 << (r + 1);
    return {offsets, pieces, r, (pieces + width - 1) / width};
  }
};

template <class Key, class Comp>
__global__ void merge_groups_kernel(const Key* src, Key* out, std::size_t n, std::size_t seq_len,
                                    std::size_t sequences, std::size_t groups,
                                    std::size_t capacity, const std::size_t* cuts,
                                    const std::size_t* group_offsets, Comp comp) {
  extern __shared__ __align__(16) unsigned char smem[];
  const ping_pong_layout<Key, std::size_t> layout{capacity, sequences + 1};
  Key* const ping = reinterpret_cast<Key*>(smem);
  Key* const pong = ping + layout.keys;
  unsigned* const offsets = reinterpret_cast<unsigned*>(pong + layout.keys);

  const std::size_t g = blockIdx.x;
  const int warp = static_cast<int>(threadIdx.x / policy::warp_threads);
  const int warps = static_cast<int>(blockDim.x / policy::warp_threads);
  const int lane = lane_id();
  const std::size_t group_begin = group_offsets[g];
  const std::size_t group_size = group_offsets[g + 1] - group_begin;
  if (group_size > capacity) {  // impossible by the sampling bound; fail loudly if it ever is
    if (threadIdx.x == 0)
      printf("warpsort step 4: group %llu holds %llu keys, over its bound %llu\n",
             static_cast<unsigned long long>(g), static_cast<unsigned long long>(group_size),
             static_cast<unsigned long long>(capacity));
    __trap();
  }

  // Piece i of this group is sequence i's keys between the cuts of splitters g-1 and g.
  auto piece_begin = [&](std::size_t i) { return g == 0 ? 0 : cuts[(g - 1) * sequences + i]; };
  auto piece_end = [&](std::size_t i) {
    return g + 1 == groups ? min_size(seq_len, n - i * seq_len) : cuts[g * sequences + i];
  };
  // piece offsets: warp 0 scans the piece sizes
  if (warp == 0)
    warp_scan_offsets(
        offsets, sequences,
        [&](std::size_t i) { return static_cast<unsigned>(piece_end(i) - piece_begin(i)); }, lane);
  __syncthreads();

  // warp per piece, four loads a lane in flight
  for (std::size_t i = warp; i < sequences; i += warps) {
    const Key* piece = src + i * seq_len + piece_begin(i);
    const int size = static_cast<int>(offsets[i + 1] - offsets[i]);
    Key* to = ping + offsets[i];
    for (int x = lane; x < size; x += 4 * policy::warp_threads) {
      Key v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (x + j * policy::warp_threads < size) v[j] = piece[x + j * policy::warp_threads];
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (x + j * policy::warp_threads < size) to[x + j * policy::warp_threads] = v[j];
    }
  }
  __syncthreads();

  const int pieces = static_cast<int>(sequences);
  merge_rounds_ping_pong(ping, pong, static_cast<int>(group_size),
                         group_rounds{offsets, pieces, ceil_log2(sequences)}, out + group_begin,
                         comp);
}

template <class Key, class Comp>
void merge_groups(const Key* src, Key* out, std::size_t n, std::size_t seq_len,
                  std::size_t sequences, std::size_t groups, const warpsort::stages::split_layout& layout,
                  Comp comp, const ablation::design& p, cudaStream_t stream) {
  if (groups == 0) return;
  const std::size_t capacity = static_cast<std::size_t>(p.group_capacity);
  const std::size_t smem = ping_pong_layout<Key, std::size_t>{capacity, sequences + 1}.bytes();
  allow_dynamic_smem(merge_groups_kernel<Key, Comp>, smem);
  merge_groups_kernel<<<static_cast<unsigned>(groups),
                        launchable_threads(merge_groups_kernel<Key, Comp>, p.group_block_threads),
                        smem, stream>>>(src, out, n, seq_len, sequences, groups, capacity,
                                        layout.cuts, layout.group_offsets, comp);
  WARPSORT_CHECK_LAUNCH();
}

// ---- the paper's step 4 (policy::groups_on_chip = 0): groups of any size, through memory ----

/// A warp per group: pieces[g (L + 1) + i] = keys of group g in sequences before i (offsets
/// from the group's start; the last entry is the group's size).
template <class Key>
__global__ void group_piece_offsets_kernel(std::size_t n, std::size_t seq_len,
                                           std::size_t sequences, std::size_t groups,
                                           const std::size_t* cuts, std::size_t* pieces) {
  const std::size_t g =
      (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / policy::warp_threads;
  if (g >= groups) return;  // whole warps leave together
  const auto size_of = [&](std::size_t i) {
    const std::size_t begin = g == 0 ? 0 : cuts[(g - 1) * sequences + i];
    const std::size_t end =
        g + 1 == groups ? min_size(seq_len, n - i * seq_len) : cuts[g * sequences + i];
    return end - begin;
  };
  warp_scan_offsets(pieces + g * (sequences + 1), sequences, size_of, lane_id());
}

/// Round r of step 4 through memory: a warp merges pair q of group g (pieces [lo, mid) with
/// [mid, hi), group_round_pair) with the buffer merge into dst at the pair's place in the
/// output. Round 0 reads the pieces where step 2 left them (sequence i from its cut on); later
/// rounds read the previous round's runs, which lie at their final places in src.
template <class Key, class Comp>
__global__ void merge_group_pairs_kernel(const Key* src, Key* dst, std::size_t seq_len,
                                         std::size_t sequences, std::size_t groups, int r,
                                         int t, const std::size_t* cuts,
                                         const std::size_t* group_offsets,
                                         const std::size_t* pieces, Comp comp) {
  const std::size_t task =
      (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / policy::warp_threads;
  const std::size_t pairs = pairs_in_round(sequences, r);
  const std::size_t g = task / pairs;
  if (g >= groups) return;  // whole warps leave together
  const piece_pair pp = group_round_pair(sequences, r, task % pairs);
  const std::size_t* at = pieces + g * (sequences + 1);
  const std::size_t base = group_offsets[g];
  const std::size_t na = at[pp.mid] - at[pp.lo], nb = at[pp.hi] - at[pp.mid];
  const Key *a = src + base + at[pp.lo], *b = src + base + at[pp.mid];
  if (r == 0) {  // pieces pp.lo and pp.mid (if any) of the sequences
    const auto piece = [&](std::size_t i) {
      return src + i * seq_len + (g == 0 ? 0 : cuts[(g - 1) * sequences + i]);
    };
    a = piece(pp.lo);
    b = pp.mid < sequences ? piece(pp.mid) : a;
  }
  buffer_merge_by_warp(t, a, na, b, nb, dst + base + at[pp.lo], comp);
}

template <class Key, class Comp>
void group_piece_offsets(std::size_t n, std::size_t seq_len, std::size_t sequences,
                         std::size_t groups, const split_layout& layout, std::size_t* pieces,
                         cudaStream_t stream) {
  if (groups == 0) return;
  const unsigned threads = 256;
  group_piece_offsets_kernel<Key><<<static_cast<unsigned>(ceil_div(groups * policy::warp_threads,
                                                                   threads)),
                                    threads, 0, stream>>>(n, seq_len, sequences, groups,
                                                          layout.cuts, pieces);
  WARPSORT_CHECK_LAUNCH();
}

template <class Key, class Comp>
void merge_groups_round_by_buffer(const Key* src, Key* dst, std::size_t seq_len,
                                  std::size_t sequences, std::size_t groups, int round,
                                  const split_layout& layout, const std::size_t* pieces,
                                  Comp comp, const ablation::design& p, cudaStream_t stream) {
  if (groups == 0) return;
  const std::size_t tasks = groups * pairs_in_round(sequences, round);
  const int threads = launchable_threads(merge_group_pairs_kernel<Key, Comp>, p.group_block_threads);
  const std::size_t warps = static_cast<std::size_t>(threads) / policy::warp_threads;
  merge_group_pairs_kernel<<<static_cast<unsigned>(ceil_div(tasks, warps)), threads, 0,
                             stream>>>(src, dst, seq_len, sequences, groups, round,
                                          p.merge_buffer_keys, layout.cuts,
                                          layout.group_offsets, pieces, comp);
  WARPSORT_CHECK_LAUNCH();
}

/// A block merges `pieces` sorted pieces in shared memory: piece i starts at piece_at(i) and
/// holds piece_keys(i) keys, at most `capacity` in all (shared memory as
/// merge_sets_shape<Key>(capacity, max_pieces) says). The pieces are copied into the gapped
/// layout (odd pieces reversed, sentinels after even ones) and threads merge them level by level
/// in place (thread_merge.cuh); the merged keys are then smem's first Keys, and their count is
/// returned. `group` names the block if the bound is ever broken.
template <class Key, class Comp, class PieceAt, class PieceKeys>
__device__ __forceinline__ int merge_pieces_in_shared(unsigned char* smem, int capacity,
                                                      int max_pieces, int pieces,
                                                      PieceAt piece_at, PieceKeys piece_keys,
                                                      std::size_t group, Comp comp) {
  constexpr int E = thread_merge_keys<Key>(), gap = run_gap<Key>();
  Key* const keys = reinterpret_cast<Key*>(smem);
  const thread_block_shape shape = merge_sets_shape<Key>(capacity, max_pieces);
  const level_tables tables = tables_in<Key>(smem, capacity, max_pieces);
  int* const offsets = tables.item_a0 + shape.threads;  // the table merge_sets_shape adds
  const int warp = static_cast<int>(threadIdx.x / policy::warp_threads);
  const int warps = static_cast<int>(blockDim.x / policy::warp_threads);
  const int lane = lane_id();
  if (warp == 0)  // piece offsets: warp 0 scans the piece sizes
    warp_scan_offsets(offsets, pieces, piece_keys, lane);
  __syncthreads();
  const int count = offsets[pieces];
  if (count > capacity) {  // impossible by the sampling bound; fail loudly if it ever is
    if (threadIdx.x == 0)
      printf("warpsort step 4: group %llu holds %d keys, over its bound %d\n",
             static_cast<unsigned long long>(group), count, capacity);
    __trap();
  }

  // A warp a piece copies it into the gapped layout (odd pieces reversed) with asynchronous
  // copies, none waited for until all are issued; even pieces get their gaps.
  for (int i = warp; i < pieces; i += warps) {
    const Key* const piece = piece_at(i);
    const int len = offsets[i + 1] - offsets[i];
    Key* const run = keys + gapped_offset(offsets[i], i, gap);
    if (i % 2 == 1) {
      for (int x = lane; x < len; x += policy::warp_threads) copy_key_async(run + (len - 1 - x), piece + x);
    } else {
      for (int x = lane; x < len; x += policy::warp_threads) copy_key_async(run + x, piece + x);
      for (int x = lane; x < gap; x += policy::warp_threads) run[len + x] = Comp::sentinel();
    }
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  merge_runs_in_place<E, gap>(keys, table_runs{offsets, pieces, 0}, tables, comp);
  return count;
}

/// The same, the block then writing the merged keys at out_at() (asked for only then: a pointer
/// held through the merge would cost registers), each mapped by StoreMap.
template <class Key, class StoreMap = same_words, class Comp, class PieceAt, class PieceKeys,
          class OutAt>
__device__ __forceinline__ void merge_pieces_on_chip(unsigned char* smem, int capacity,
                                                     int max_pieces, int pieces,
                                                     PieceAt piece_at, PieceKeys piece_keys,
                                                     OutAt out_at, std::size_t group, Comp comp) {
  const int count = merge_pieces_in_shared<Key>(smem, capacity, max_pieces, pieces, piece_at,
                                                piece_keys, group, comp);
  copy_block_out<Key, StoreMap>(out_at(), reinterpret_cast<const Key*>(smem), count);
}

/// Version 5: block g merges group g of a round: its pieces, one from each sequence of its
/// set, between the cuts of the splitters before and after it, written at the group's offset
/// (each key mapped by StoreMap).
template <class Key, class Comp, class StoreMap>
__global__ void __maxnreg__(thread_merge_max_registers<Key>())
    merge_set_groups_kernel(const Key* src, Key* out, round_shape r, int capacity,
                            const std::size_t* cuts, const std::size_t* group_offsets,
                            Comp comp) {
  extern __shared__ __align__(16) unsigned char smem[];
  const std::size_t g = blockIdx.x;
  const std::size_t set = r.set_of_group(g), j = g - r.first_group(set);
  const std::size_t first_seq = set * r.set_sequences;
  const bool first = j == 0, last = j + 1 == r.groups_of(set);
  // piece i: sequence first_seq + i between the cut ending group g - 1 and the one ending g
  const auto piece_begin = [&](int i) { return first ? 0 : cuts[(g - 1) * r.set_sequences + i]; };
  const auto piece_end = [&](int i) {
    return last ? r.sequence_keys(first_seq + i) : cuts[g * r.set_sequences + i];
  };
  merge_pieces_on_chip<Key, StoreMap>(
      smem, capacity, static_cast<int>(r.set_sequences), static_cast<int>(r.sequences_in(set)),
      [&](int i) { return src + (first_seq + i) * r.seq_len + piece_begin(i); },
      [&](int i) { return static_cast<int>(piece_end(i) - piece_begin(i)); },
      [&] { return out + group_offsets[g]; }, g, comp);
}

template <class Key, class Comp, class StoreMap>
void merge_sets(const Key* src, Key* out, std::size_t n, const merge_round& m,
                const split_layout& layout, Comp comp, const policy& p, cudaStream_t stream) {
  if (m.groups == 0) return;
  const thread_block_shape shape =
      merge_sets_shape<Key>(p.group_capacity, static_cast<int>(m.set_sequences));
  allow_dynamic_smem(merge_set_groups_kernel<Key, Comp, StoreMap>, shape.smem_bytes);
  merge_set_groups_kernel<Key, Comp, StoreMap>
      <<<static_cast<unsigned>(m.groups), shape.threads, shape.smem_bytes, stream>>>(
          src, out, shape_of(n, m, p), p.group_capacity, layout.cuts, layout.group_offsets, comp);
  WARPSORT_CHECK_LAUNCH();
}

}  // namespace warpsort::stages

// Explicit instantiation for one (key type, order); src/stages/<step>.cu expands it for the
// built-in key types.
#define WARPSORT_INSTANTIATE_MERGE_GROUPS(Key, Comp) \
  template void warpsort::stages::merge_groups<Key, Comp>(const Key*, Key*, std::size_t, std::size_t, \
                                        std::size_t, std::size_t, const warpsort::stages::split_layout&, Comp, \
                                        const warpsort::ablation::design&, cudaStream_t); \
  template void warpsort::stages::merge_sets<Key, Comp>(const Key*, Key*, std::size_t, const warpsort::merge_round&, \
                                        const warpsort::stages::split_layout&, Comp, const warpsort::policy&, cudaStream_t); \
  template void warpsort::stages::merge_by_rank<Key, Comp>(const Key*, Key*, std::size_t, std::size_t, \
                                        Comp, cudaStream_t); \
  template void warpsort::stages::group_piece_offsets<Key, Comp>(std::size_t, std::size_t, std::size_t, std::size_t, \
                                        const warpsort::stages::split_layout&, std::size_t*, cudaStream_t); \
  template void warpsort::stages::merge_groups_round_by_buffer<Key, Comp>(const Key*, Key*, std::size_t, std::size_t, \
                                        std::size_t, int, const warpsort::stages::split_layout&, const std::size_t*, \
                                        Comp, const warpsort::ablation::design&, cudaStream_t);
// The last round writing keys of the same bits through a map (word_map.cuh): order words back
// to floats.
#define WARPSORT_INSTANTIATE_MERGE_SETS_MAPPED(Key, Comp, StoreMap)                                \
  template void warpsort::stages::merge_sets<Key, Comp, StoreMap>(                                 \
      const Key*, Key*, std::size_t, const warpsort::merge_round&,                                 \
      const warpsort::stages::split_layout&, Comp, const warpsort::policy&, cudaStream_t);

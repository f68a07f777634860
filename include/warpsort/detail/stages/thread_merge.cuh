// On-chip merge levels of version 5 (steps 1 and 4): sorted runs in shared memory merged a
// thread at a time, level by level, in place.
//
// A thread makes one item: E - 1 consecutive outputs of the merge of two runs. Merge path says
// which keys of A and B they are; the thread loads its share of A ascending and its share of B
// reversed (a bitonic sequence: the paper's reversed loads, with every odd run stored
// descending so that the reversed read is a forward one) and sorts them in registers with the
// log2(E)-stage bitonic merge network: no shuffles, one select and one load a slot, and every
// comparator ascending. An item holds E slots for E - 1 outputs so that consecutive threads
// store to addresses E - 1 apart, which an odd E - 1 spreads over all 32 banks; the spare slot
// (and a short item's others) takes filler, none of it ordered before the item's outputs: A's
// keys after the item, or past A's end the sentinels in A's gap (integer keys, and orders whose
// equal keys are the same bits), or the sentinel itself (other orders).
#pragma once

#include "index_math.hpp"
#include "warp_io.cuh"
#include "warp_network.cuh"
#include "warp_scan.cuh"
#include "word_map.cuh"

#include <warpsort/order.cuh>

#include <cuda/std/bit>
#include <cuda_pipeline.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace warpsort::stages {

/// Sorts a bitonic sequence of E keys in registers ascending (log2 E stages, E / 2 min/max
/// pairs each).
template <int E, class Key, class Comp>
__device__ __forceinline__ void bitonic_merge_thread(Key (&v)[E], Comp comp) {
#pragma unroll
  for (int j = E / 2; j >= 1; j /= 2) {
#pragma unroll
    for (int s = 0; s < E; ++s)
      if ((s & j) == 0) {
        const Key lo = first_of(v[s], v[s + j], comp);
        v[s + j] = second_of(v[s], v[s + j], comp);
        v[s] = lo;
      }
  }
}

/// Whether keys the order calls equal are the same bits (integers in warpsort's orders, and
/// orders that declare `equal_keys_are_identical`, such as the pair items'). Then filler that
/// ties with an output cannot take its place; other orders pad items with the sentinel instead.
template <class Comp, class = void>
struct declares_identical_equals : std::false_type {};
template <class Comp>
struct declares_identical_equals<Comp, std::void_t<decltype(Comp::equal_keys_are_identical)>>
    : std::bool_constant<Comp::equal_keys_are_identical> {};
template <class Key, class Comp>
constexpr bool equal_keys_identical =
    warpsort::order_traits<Key, Comp>::minmax || declares_identical_equals<Comp>::value;

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// The key at a shared-memory byte address plus a constant offset.
template <int Offset, class Key>
__device__ __forceinline__ Key load_shared(unsigned address) {
  if constexpr (sizeof(Key) == 4) {
    unsigned w;
    asm("ld.shared.b32 %0, [%1+%2];" : "=r"(w) : "r"(address), "n"(Offset));
    return cuda::std::bit_cast<Key>(w);
  } else if constexpr (sizeof(Key) == 8) {
    unsigned long long w;
    asm("ld.shared.b64 %0, [%1+%2];" : "=l"(w) : "r"(address), "n"(Offset));
    return cuda::std::bit_cast<Key>(w);
  } else {
    Key k;
    memcpy(&k, static_cast<const unsigned char*>(__cvta_shared_to_generic(address)) + Offset,
           sizeof(Key));
    return k;
  }
}

/// v[s] = the key at (s < from_a_slots ? a : b) + s keys: a select of the base address and a
/// load with a constant offset a slot (selecting indices instead costs one more instruction).
template <int E, class Key, int... S>
__device__ __forceinline__ void load_slots(Key (&v)[E], unsigned a, unsigned b, int from_a_slots,
                                           std::integer_sequence<int, S...>) {
  ((v[S] = load_shared<S * static_cast<int>(sizeof(Key)), Key>(S < from_a_slots ? a : b)), ...);
}

/// Loads an item's E slots: A (ascending, at keys[a_at]) from its share's start, B (descending,
/// len_b keys at keys[b_at]) reversed into the last nb slots (index_math's slot functions).
template <int E, class Key, class Comp>
__device__ __forceinline__ void load_item(Key (&v)[E], const Key* keys, int a_at, int b_at,
                                          int len_b, const item_share& it) {
  const int nb = it.nb();
  const Key* const from_a = keys + a_at + slot_offset_in_a(0, it.a0);
  const Key* const from_b = keys + b_at + slot_offset_in_b(0, E, len_b, it.b0);
  if constexpr (equal_keys_identical<Key, Comp>) {
    load_slots(v, shared_address(from_a), shared_address(from_b), E - nb,
               std::make_integer_sequence<int, E>{});
  } else {
    const int na = it.a1 - it.a0;
#pragma unroll
    for (int s = 0; s < E; ++s)
      v[s] = s < na ? from_a[s] : !slot_from_a(s, E, nb) ? from_b[s] : Comp::sentinel();
  }
}

/// Stores an item's first `count` sorted slots at out[0..count) (ascending) or out[0], out[-1],
/// ... (descending). A whole item stores without predicates.
template <int E, class Key>
__device__ __forceinline__ void store_item(Key* out, const Key (&v)[E], int count,
                                           bool descending) {
  constexpr int per_item = E - 1;
  if (count == per_item) {
    if (descending) {
#pragma unroll
      for (int s = 0; s < per_item; ++s) out[-s] = v[s];
    } else {
#pragma unroll
      for (int s = 0; s < per_item; ++s) out[s] = v[s];
    }
    return;
  }
  if (descending) {  // a short item: predicated stores, still at constant offsets
#pragma unroll
    for (int s = 0; s < per_item; ++s)
      if (s < count) out[-s] = v[s];
  } else {
#pragma unroll
    for (int s = 0; s < per_item; ++s)
      if (s < count) out[s] = v[s];
  }
}

/// Shared-memory tables of a merge level: the items before each output run (only for runs
/// given by a table; runs / 2 + 2 entries) and each item's a0 (one entry a thread).
struct level_tables {
  int* items_before;
  int* item_a0;
};

/// Copies one key from global to shared memory without passing through registers and without
/// waiting (cp.async; wait with __pipeline_wait_prior(0) before the block's barrier), for keys
/// of 4, 8 or 16 bytes; other keys are copied plainly.
template <class Key>
__device__ __forceinline__ void copy_key_async(Key* dst, const Key* src) {
  if constexpr (sizeof(Key) == 4 || sizeof(Key) == 8 || sizeof(Key) == 16)
    __pipeline_memcpy_async(dst, src, sizeof(Key));
  else
    *dst = *src;
}

/// Copies src[0..count) into the stage, sentinels after it up to `padded` keys, 16 bytes at a
/// time asynchronously where it can; with a map (word_map.cuh), every key is then mapped in
/// place by the thread that copied it. Whole block; a barrier must follow.
template <class Key, class Map = same_words>
__device__ __forceinline__ void stage_runs(Key* stage, const Key* src, int count, int padded,
                                           const Key& pad) {
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  if constexpr (stages_in_chunks<Key>()) {
    constexpr int per = 16 / static_cast<int>(sizeof(Key));
    const int whole = reinterpret_cast<std::uintptr_t>(src) % 16 == 0 ? count / per : 0;
    for (int c = tid; c < padded / per; c += threads) {
      uint4* const to = reinterpret_cast<uint4*>(stage) + staged_chunk(c);
      if (c < whole) {
        __pipeline_memcpy_async(to, reinterpret_cast<const uint4*>(src) + c, 16);
      } else {
        Key k[per];
        if constexpr (Map::identity) {
#pragma unroll
          for (int i = 0; i < per; ++i) k[i] = c * per + i < count ? src[c * per + i] : pad;
        } else {
#pragma unroll
          for (int i = 0; i < per; ++i)
            k[i] = c * per + i < count ? Map::apply(src[c * per + i]) : pad;
        }
        memcpy(to, k, 16);
      }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    if constexpr (!Map::identity) {
      for (int c = tid; c < whole; c += threads) {
        uint4* const at = reinterpret_cast<uint4*>(stage) + staged_chunk(c);
        Key k[per];
        memcpy(k, at, 16);
#pragma unroll
        for (int i = 0; i < per; ++i) k[i] = Map::apply(k[i]);
        memcpy(at, k, 16);
      }
    }
  } else if constexpr (Map::identity) {
    for (int i = tid; i < padded; i += threads) stage[i] = i < count ? src[i] : pad;
  } else {
    for (int i = tid; i < padded; i += threads) stage[i] = i < count ? Map::apply(src[i]) : pad;
  }
}

/// Lane `lane`'s V keys of staged run `run` (blocked: keys lane V .. lane V + V - 1).
template <int V, class Key>
__device__ __forceinline__ void load_staged_run(Key (&v)[V], const Key* stage, int run, int lane) {
  if constexpr (stages_in_chunks<Key>()) {
    constexpr int per = 16 / static_cast<int>(sizeof(Key));
    const uint4* const chunks = reinterpret_cast<const uint4*>(stage);
#pragma unroll
    for (int j = 0; j < V / per; ++j) {
      const uint4 chunk = chunks[staged_chunk((run * 32 * V + lane * V) / per + j)];
      memcpy(&v[j * per], &chunk, 16);
    }
  } else {
#pragma unroll
    for (int i = 0; i < V; ++i) v[i] = stage[run * 32 * V + lane * V + i];
  }
}

/// The tables inside a block's shared memory, as thread_block_shape_for lays them out.
template <class Key>
__device__ __forceinline__ level_tables tables_in(unsigned char* smem, int keys, int runs) {
  const thread_block_shape shape = thread_block_shape_for<Key>(keys, runs);
  int* const at = reinterpret_cast<int*>(smem + shape.tables_at);
  return {at, at + runs / 2 + 2};
}

/// The runs of a level in step 1: `len` keys each (the last may be shorter) over `count` keys.
struct equal_runs {
  static constexpr bool from_table = false;
  int count, len;
  __device__ __forceinline__ int runs() const { return (count + len - 1) / len; }
  __device__ __forceinline__ int begin(int r) const { return equal_run_begin(r, len, count); }
  __device__ __forceinline__ equal_runs next() const { return {count, 2 * len}; }
  /// The output run of item t and the items before it: every output run but the last has the
  /// same number of items, so a division says (by a multiply: t and the items a run are
  /// below 2^16, where the rounded-up reciprocal is exact).
  __device__ __forceinline__ int2 output_run_of(int t, int per_item, const level_tables&) const {
    const unsigned per_run = static_cast<unsigned>(items_in(2 * len, per_item));
    const unsigned reciprocal = 0xffffffffu / per_run + 1;
    const int last = (runs() - 1) / 2;
    int q = static_cast<int>(__umulhi(static_cast<unsigned>(t), reciprocal));
    q = q < last ? q : last;
    return {q, q * static_cast<int>(per_run)};
  }
  __device__ __forceinline__ void count_items(int, const level_tables&) const {}
  __device__ __forceinline__ int items(int per_item, const level_tables&) const {
    const int pairs = (runs() + 1) / 2;
    return (pairs - 1) * items_in(2 * len, per_item) + items_in(count - (pairs - 1) * 2 * len, per_item);
  }
};

/// The runs of a level in step 4: run r is pieces [r 2^level, (r + 1) 2^level) of a group,
/// whose starts are offsets[0..pieces] (in shared memory).
struct table_runs {
  static constexpr bool from_table = true;
  const int* offsets;
  int pieces, level;
  __device__ __forceinline__ int runs() const { return (pieces + (1 << level) - 1) >> level; }
  __device__ __forceinline__ int begin(int r) const {
    return table_run_begin(offsets, r, level, pieces);
  }
  __device__ __forceinline__ table_runs next() const { return {offsets, pieces, level + 1}; }
  /// Items before each output run, by a warp scan, 32 output runs at a time (the first warp).
  __device__ __forceinline__ void count_items(int per_item, const level_tables& t) const {
    const int tid = static_cast<int>(threadIdx.x);
    if (tid >= 32) return;
    const int pairs = (runs() + 1) / 2;
    warp_scan_offsets(
        t.items_before, pairs,
        [&](int q) {
          return items_in(begin(2 * q + 2 < runs() ? 2 * q + 2 : runs()) - begin(2 * q), per_item);
        },
        tid);
  }
  __device__ __forceinline__ int items(int, const level_tables& t) const {
    return t.items_before[(runs() + 1) / 2];
  }
  __device__ __forceinline__ int2 output_run_of(int t, int, const level_tables& tables) const {
    int lo = 0, hi = (runs() + 1) / 2;  // items_before[lo] <= t < items_before[hi]
    while (hi - lo > 1) {
      const int mid = (lo + hi) >> 1;
      if (tables.items_before[mid] <= t) lo = mid; else hi = mid;
    }
    return {lo, tables.items_before[lo]};
  }
};

/// One merge level in place. Run r (of runs.runs()) holds the keys [runs.begin(r),
/// runs.begin(r + 1)) and lies at runs.begin(r) + r * Gap, even runs ascending, odd runs
/// descending, even runs' gaps holding sentinels. Output run q merges runs 2q and 2q + 1 into
/// the same layout (at begin(2q) + q * Gap): the runs runs.next() describes. Thread t makes
/// item t: the block needs items_bound(keys, runs, E - 1) threads. Call with the whole block.
template <int E, int Gap, class Key, class Comp, class Runs>
__device__ __forceinline__ void merge_level_in_place(Key* keys, const Runs& runs, level_tables t,
                                                     Comp comp) {
  constexpr int per_item = E - 1;
  const int count_runs = runs.runs();
  const int pairs = (count_runs + 1) / 2;
  const int tid = static_cast<int>(threadIdx.x);
  const auto start = [&](int r) { return runs.begin(r < count_runs ? r : count_runs); };
  if constexpr (Runs::from_table) {
    runs.count_items(per_item, t);
    __syncthreads();
  }

  const bool mine = tid < runs.items(per_item, t);
  int q = 0, a_begin = 0, len_a = 0, len_b = 0, d = 0, a0 = 0;
  bool last_item = false;
  if (mine) {
    const int2 found = runs.output_run_of(tid, per_item, t);
    q = found.x;
    a_begin = start(2 * q);
    const int b_begin = start(2 * q + 1);
    len_a = b_begin - a_begin;
    len_b = start(2 * q + 2) - b_begin;
    d = (tid - found.y) * per_item;
    last_item = d + per_item >= len_a + len_b;
    a0 = merge_path_b_descending(keys + gapped_offset(a_begin, 2 * q, Gap), len_a,
                                 keys + gapped_offset(b_begin, 2 * q + 1, Gap), len_b, d, comp);
    t.item_a0[tid] = a0;
  }
  __syncthreads();

  Key v[E];
  int count = 0;
  if (mine) {  // the item ends where the next one starts
    const int a1 = last_item ? len_a : t.item_a0[tid + 1];
    count = outputs_from(d, len_a + len_b, per_item);
    load_item<E, Key, Comp>(v, keys, gapped_offset(a_begin, 2 * q, Gap),
                            gapped_offset(a_begin + len_a, 2 * q + 1, Gap), len_b,
                            item_share_of(d, count, a0, a1));
    bitonic_merge_thread<E>(v, comp);
  }
  __syncthreads();  // every read of this level is done: write in place

  if (mine) {
    const int out = gapped_offset(a_begin, q, Gap), len = len_a + len_b;
    const bool descending = q % 2 == 1;
    store_item<E>(keys + (descending ? out + len - 1 - d : out + d), v, count, descending);
  }
  if (pairs > 1)  // the gaps of the next level's even runs
    for (int x = tid; x < next_gap_keys(pairs, Gap); x += static_cast<int>(blockDim.x)) {
      const gap_key g = next_gap_key(x, Gap);
      keys[gapped_offset(start(2 * g.run + 2), g.run, Gap) + g.offset] = Comp::sentinel();
    }
  __syncthreads();
}

/// Merges the gapped runs `runs` describes into one ascending run at keys[0, ...), level by
/// level.
template <int E, int Gap, class Key, class Comp, class Runs>
__device__ __forceinline__ void merge_runs_in_place(Key* keys, Runs runs, level_tables t,
                                                    Comp comp) {
  for (; runs.runs() > 1; runs = runs.next()) merge_level_in_place<E, Gap>(keys, runs, t, comp);
}

/// Copies count keys from shared memory to global memory with the whole block, 16 bytes at a
/// time where both ends allow it; with a map (word_map.cuh), each key mapped on its way.
template <class Key, class Map = same_words>
__device__ __forceinline__ void copy_block_out(Key* dst, const Key* src, int count) {
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  if constexpr (16 % sizeof(Key) == 0 && sizeof(Key) < 16) {
    constexpr int per = 16 / static_cast<int>(sizeof(Key));
    if (reinterpret_cast<std::uintptr_t>(dst) % 16 == 0 &&
        reinterpret_cast<std::uintptr_t>(src) % 16 == 0) {
      const int vectors = count / per;
      if constexpr (Map::identity) {
        for (int i = tid; i < vectors; i += threads)
          reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(src)[i];
      } else {
        for (int i = tid; i < vectors; i += threads) {
          uint4 raw = reinterpret_cast<const uint4*>(src)[i];
          Key k[per];
          memcpy(k, &raw, 16);
#pragma unroll
          for (int j = 0; j < per; ++j) k[j] = Map::apply(k[j]);
          memcpy(&raw, k, 16);
          reinterpret_cast<uint4*>(dst)[i] = raw;
        }
      }
      for (int i = vectors * per + tid; i < count; i += threads) dst[i] = Map::apply(src[i]);
      return;
    }
  }
  if constexpr (Map::identity) {
    for (int i = tid; i < count; i += threads) dst[i] = src[i];
  } else {
    for (int i = tid; i < count; i += threads) dst[i] = Map::apply(src[i]);
  }
}

}  // namespace warpsort::stages

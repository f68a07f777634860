// The warp's bitonic merge (steps 1, 2 and 4): a tile of 256 outputs of merge(A, B) per network.
//
// The paper's warp merge streams A and B through a t-key buffer: each round loads t/2 keys in
// reverse, runs the log2(t)-level merge network over the buffer and emits t/2 keys, so every
// output pays for two network slots. Here merge path tells the warp exactly which keys of A
// and B make up its next 256 outputs; it loads A's share ascending and B's share in reverse
// (the paper's reversed load, which makes the tile bitonic) and one 8-level network sorts
// them. Every network slot is an output, and no round waits on the previous one's choice.
//
// Keys are striped over the lanes (slot r * 32 + lane in register r): every load and store of
// a register is one contiguous warp-wide access (conflict-free in shared memory, coalesced in
// global memory), and the first three levels of the network (partners 128, 64, 32 slots
// apart) stay inside a lane.
#pragma once

#include "index_math.hpp"
#include "warp_network.cuh"

#include <warpsort/policy.hpp>

namespace warpsort::stages {

/// Merge path computed by the whole warp: how many of the first `diag` outputs of merge(A, B)
/// come from A (equal keys from A first), as index_math's merge_path. Each round the 32 lanes
/// test 32 evenly spaced candidates and a ballot keeps the interval holding the answer, so a
/// search over 2^k candidates takes about k / 5 rounds instead of k dependent loads.
template <class Size, class Key, class Comp>
__device__ __forceinline__ Size merge_path_by_warp(const Key* a, Size na, const Key* b, Size nb,
                                                   Size diag, Comp comp) {
  const int lane = lane_id();
  Size lo = diag > nb ? diag - nb : 0;  // the answer lies in [lo, hi]
  Size hi = diag < na ? diag : na;
  while (lo < hi) {
    // an odd spacing puts the 32 candidates in 32 different shared-memory banks
    const Size step = (hi - lo + 31) / 32 | 1;
    const Size m = lo + static_cast<Size>(lane) * step;
    // "B's key before A's key at m" holds from the answer on
    const bool after = m < hi && comp(b[diag - 1 - m], a[m]);
    const unsigned ballot = __ballot_sync(full_warp, after);
    if (ballot == 0) {  // the answer lies past the last candidate below hi
      const Size last = (hi - 1 - lo) / step < 31 ? (hi - 1 - lo) / step : 31;
      lo = lo + last * step + 1;
    } else {
      const Size f = static_cast<Size>(__ffs(ballot) - 1);  // the first candidate at or past it
      hi = lo + f * step;
      if (f > 0) lo = lo + (f - 1) * step + 1;
    }
  }
  return lo;
}

/// Loads the bitonic tile of one merge: A's share a[0..na) ascending, B's share b[0..nb)
/// reversed, sentinel between (index_math's bitonic_tile_slot). na + nb <= 32 V.
template <int V, class Key, class Comp>
__device__ __forceinline__ void load_bitonic_tile(Key (&v)[V], const Key* a, int na,
                                                  const Key* b, int nb, int lane) {
  constexpr int tile = 32 * V;
  if (na + nb == tile) {  // a full tile: no gap, two branch-free ranges
#pragma unroll
    for (int r = 0; r < V; ++r) {
      const int slot = striped_slot(lane, r);
      v[r] = slot < na ? a[slot] : b[tile - 1 - slot];
    }
    return;
  }
#pragma unroll
  for (int r = 0; r < V; ++r) {
    const tile_slot t = bitonic_tile_slot(striped_slot(lane, r), na, nb, tile);
    v[r] = t.from == tile_source::a ? a[t.index]
           : t.from == tile_source::b ? b[t.index]
                                      : Comp::sentinel();
  }
}

/// Stores the first `count` slots of a striped tile.
template <int V, class Key>
__device__ __forceinline__ void store_tile(Key* dst, const Key (&v)[V], int count, int lane) {
  constexpr int tile = 32 * V;
  if (count == tile) {
#pragma unroll
    for (int r = 0; r < V; ++r) dst[striped_slot(lane, r)] = v[r];
    return;
  }
#pragma unroll
  for (int r = 0; r < V; ++r)
    if (striped_slot(lane, r) < count) dst[striped_slot(lane, r)] = v[r];
}

/// One tile of V keys a lane: outputs [d, d + count) of the merge, A's share starting at a0
/// and ending at a1.
template <int V, class Key, class Comp>
__device__ __forceinline__ void merge_tile_by_warp(const Key* a, int a0, int a1, const Key* b,
                                                   int d, int count, Key* out, int lane,
                                                   Comp comp) {
  Key v[V];
  const int b0 = d - a0, b1 = d + count - a1;
  load_bitonic_tile<V, Key, Comp>(v, a + a0, a1 - a0, b + b0, b1 - b0, lane);
  bitonic_merge_warp<V, /*Blocked=*/false>(v, lane, comp);
  store_tile<V>(out, v, count, lane);
}

/// Writes outputs [begin, end) of merge(a[0..na), b[0..nb)) to out[0 .. end - begin), one tile
/// of 256 at a time; a last, short tile uses the smallest network that holds it (64 or 128
/// keys: 6 or 7 levels instead of 8), which matters where pieces are small (step 4's first
/// rounds). Call with the whole warp; inputs in shared (or global) memory, out anywhere.
template <class Key, class Comp>
__device__ __forceinline__ void merge_range_by_warp(const Key* a, int na, const Key* b, int nb,
                                                    int begin, int end, Key* out, Comp comp) {
  constexpr int V = policy::tile_keys_per_lane;
  constexpr int tile = policy::merge_tile_keys;
  static_assert(V == 8, "the short-tile networks below assume 8 keys a lane");
  const int lane = lane_id();
  int a0 = merge_path_by_warp(a, na, b, nb, begin, comp);
  for (int d = begin; d < end; d += tile) {
    const int count = outputs_from(d, end, tile);
    const int a1 = merge_path_by_warp(a, na, b, nb, d + count, comp);
    Key* const to = out + (d - begin);
    if (count <= 64)
      merge_tile_by_warp<2>(a, a0, a1, b, d, count, to, lane, comp);
    else if (count <= 128)
      merge_tile_by_warp<4>(a, a0, a1, b, d, count, to, lane, comp);
    else
      merge_tile_by_warp<V>(a, a0, a1, b, d, count, to, lane, comp);
    a0 = a1;
  }
}

}  // namespace warpsort::stages

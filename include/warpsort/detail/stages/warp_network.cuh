// Warp-level bitonic networks on keys held in registers (shared by steps 1, 2 and 4).
//
// A warp holds 32 * V keys, V per lane, in a blocked or striped layout (index_math.hpp). A
// compare-exchange whose partner sits in the same lane swaps registers; otherwise the lanes
// trade keys with __shfl_xor_sync. Every lane runs the same instructions: the direction of
// each comparator is a select on the lane's slot, never a branch.
#pragma once

#include "index_math.hpp"

#include <warpsort/order.cuh>

#include <cstring>
#include <type_traits>

namespace warpsort::stages {

constexpr unsigned full_warp = 0xffffffffu;

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31u); }

/// __shfl_xor_sync for any trivially copyable key, four bytes at a time where needed.
template <class Key>
__device__ __forceinline__ Key shfl_xor(const Key& x, int lane_mask) {
  if constexpr (std::is_arithmetic_v<Key> && (sizeof(Key) == 4 || sizeof(Key) == 8)) {
    return __shfl_xor_sync(full_warp, x, lane_mask);
  } else {
    static_assert(std::is_trivially_copyable_v<Key>, "keys must be trivially copyable");
    constexpr int words = (sizeof(Key) + 3) / 4;
    unsigned w[words] = {};
    memcpy(w, &x, sizeof(Key));
#pragma unroll
    for (int i = 0; i < words; ++i) w[i] = __shfl_xor_sync(full_warp, w[i], lane_mask);
    Key y;
    memcpy(&y, w, sizeof(Key));
    return y;
  }
}

template <class Key>
__device__ __forceinline__ Key shfl(const Key& x, int src_lane) {
  if constexpr (std::is_arithmetic_v<Key> && (sizeof(Key) == 4 || sizeof(Key) == 8)) {
    return __shfl_sync(full_warp, x, src_lane);
  } else {
    constexpr int words = (sizeof(Key) + 3) / 4;
    unsigned w[words] = {};
    memcpy(w, &x, sizeof(Key));
#pragma unroll
    for (int i = 0; i < words; ++i) w[i] = __shfl_sync(full_warp, w[i], src_lane);
    Key y;
    memcpy(&y, w, sizeof(Key));
    return y;
  }
}

/// take_b ? b : a, word by word for keys that are not one machine word (a select each word, where
/// a struct's ternary compiles to a branch around its moves).
template <class Key>
__device__ __forceinline__ Key select_key(bool take_b, const Key& a, const Key& b) {
  if constexpr (std::is_arithmetic_v<Key>) {
    return take_b ? b : a;
  } else {
    constexpr int words = (sizeof(Key) + 3) / 4;
    unsigned wa[words] = {}, wb[words] = {};
    memcpy(wa, &a, sizeof(Key));
    memcpy(wb, &b, sizeof(Key));
#pragma unroll
    for (int i = 0; i < words; ++i) wa[i] = take_b ? wb[i] : wa[i];
    Key out;
    memcpy(&out, wa, sizeof(Key));
    return out;
  }
}

/// The key of a and b that the order puts first (a on ties), and the other one.
template <class Key, class Comp>
__device__ __forceinline__ Key first_of(const Key& a, const Key& b, Comp comp) {
  if constexpr (warpsort::order_traits<Key, Comp>::minmax) {
    if constexpr (std::is_same_v<Comp, warpsort::less<Key>>) return b < a ? b : a;
    else return a < b ? b : a;
  } else {
    return select_key(comp(b, a), a, b);
  }
}
template <class Key, class Comp>
__device__ __forceinline__ Key second_of(const Key& a, const Key& b, Comp comp) {
  if constexpr (warpsort::order_traits<Key, Comp>::minmax) {
    if constexpr (std::is_same_v<Comp, warpsort::less<Key>>) return b < a ? a : b;
    else return a < b ? a : b;
  } else {
    return select_key(comp(b, a), b, a);
  }
}

/// lo sits at the lower slot; afterwards lo/hi are in `ascending` order. Equal keys stay put,
/// so keys that compare equal but differ in bits (-0.0, +0.0) are never duplicated or lost.
template <class Key, class Comp>
__device__ __forceinline__ void compare_exchange(Key& lo, Key& hi, bool ascending, Comp comp) {
  const Key first = first_of(lo, hi, comp), second = second_of(lo, hi, comp);
  lo = select_key(ascending, second, first);
  hi = select_key(ascending, first, second);
}

/// Of a lane's key and its partner lane's, the one ordered first (keep_first) or the other;
/// ties keep the lane's own. A comparator's key takes one comparison of operands chosen by
/// select: a choice between two comparisons would branch on keep_first, which differs between
/// the lanes.
template <class Key, class Comp>
__device__ __forceinline__ Key kept_of_lanes(const Key& mine, const Key& theirs, bool keep_first,
                                             Comp comp) {
  if constexpr (warpsort::order_traits<Key, Comp>::minmax) {
    return keep_first ? first_of(mine, theirs, comp) : second_of(theirs, mine, comp);
  } else {
    const bool take =
        comp(select_key(keep_first, mine, theirs), select_key(keep_first, theirs, mine));
    return select_key(take, mine, theirs);
  }
}

/// Trades x with lane ^ lane_mask and keeps the key ordered first (keep_first) or the other.
/// The two lanes make mirror-image choices, so the pair is exchanged consistently: ties keep
/// x in both lanes, i.e. the pair is left as it was.
template <class Key, class Comp>
__device__ __forceinline__ Key compare_exchange_lanes(const Key& x, int lane_mask,
                                                      bool keep_first, Comp comp) {
  return kept_of_lanes(x, shfl_xor(x, lane_mask), keep_first, comp);
}

/// One step of a bitonic network: building runs of K slots, partner distance J.
template <int V, bool Blocked, int K, int J, class Key, class Comp>
__device__ __forceinline__ void bitonic_step(Key (&v)[V], int lane, Comp comp) {
  constexpr bool in_lane = Blocked ? (J < V) : (J >= 32);
  if constexpr (in_lane) {
    constexpr int rj = Blocked ? J : J / 32;
#pragma unroll
    for (int r = 0; r < V; ++r) {
      if ((r & rj) == 0) {
        const int slot = Blocked ? blocked_slot(lane, r, V) : striped_slot(lane, r);
        // the last phase (a merge of 32 V slots) runs every comparator ascending
        compare_exchange(v[r], v[r | rj], K == 32 * V || run_ascends(slot, K), comp);
      }
    }
  } else {
    constexpr int lane_mask = Blocked ? J / V : J;
#pragma unroll
    for (int r = 0; r < V; ++r) {
      const int slot = Blocked ? blocked_slot(lane, r, V) : striped_slot(lane, r);
      const bool keep_first = K == 32 * V ? (slot & J) == 0 : keeps_min(slot, K, J);
      v[r] = compare_exchange_lanes(v[r], lane_mask, keep_first, comp);
    }
  }
}

/// Steps J, J/2, ..., 1 of the phase that builds runs of K slots.
template <int V, bool Blocked, int K, int J, class Key, class Comp>
__device__ __forceinline__ void bitonic_merge_steps(Key (&v)[V], int lane, Comp comp) {
  bitonic_step<V, Blocked, K, J>(v, lane, comp);
  if constexpr (J > 1) bitonic_merge_steps<V, Blocked, K, J / 2>(v, lane, comp);
}

/// Sorts the warp's 32 * V keys ascending (phases K = 2, 4, ..., 32 V).
template <int V, bool Blocked, class Key, class Comp, int K = 2>
__device__ __forceinline__ void bitonic_sort_warp(Key (&v)[V], int lane, Comp comp) {
  bitonic_merge_steps<V, Blocked, K, K / 2>(v, lane, comp);
  if constexpr (K < 32 * V) bitonic_sort_warp<V, Blocked, Key, Comp, 2 * K>(v, lane, comp);
}

/// Sorts a bitonic sequence of 32 * V keys ascending (the last phase alone).
template <int V, bool Blocked, class Key, class Comp>
__device__ __forceinline__ void bitonic_merge_warp(Key (&v)[V], int lane, Comp comp) {
  bitonic_merge_steps<V, Blocked, 32 * V, 16 * V>(v, lane, comp);
}

// ---------------------------------------------------------------- the direction-free network
// The same sort with every comparator ascending: each phase starts by comparing slot i with its
// mirror i ^ (K - 1) in the run of K being built, which turns two ascending runs into one bitonic
// sequence the later steps (partners i ^ J) sort ascending. No lane ever chooses a direction, so
// an in-lane step is one min and one max per pair and a cross-lane step one shuffle and one
// min-or-max per key (the lane's half is a constant of the step).

/// One step, blocked layout: slot i meets slot i ^ Mask, the lower slot keeps the key ordered
/// first. A partner in another lane sends its register r ^ (Mask % V) in the shuffle of r.
template <int V, int Mask, class Key, class Comp>
__device__ __forceinline__ void flip_step(Key (&v)[V], int lane, Comp comp) {
  constexpr int reg_mask = Mask % V, lane_mask = Mask / V;
  if constexpr (lane_mask == 0) {
#pragma unroll
    for (int r = 0; r < V; ++r)
      if (r < (r ^ reg_mask)) {
        const Key lo = first_of(v[r], v[r ^ reg_mask], comp);
        v[r ^ reg_mask] = second_of(v[r], v[r ^ reg_mask], comp);
        v[r] = lo;
      }
  } else {
    constexpr int lane_high = high_bit(lane_mask);  // decides which lane holds the lower slot
    const bool keep_first = (lane & lane_high) == 0;
#pragma unroll
    for (int r = 0; r < V; ++r) {
      if (r > (r ^ reg_mask)) continue;  // registers r and r ^ reg_mask trade together
      const Key theirs = shfl_xor(v[r ^ reg_mask], lane_mask);
      if constexpr (reg_mask != 0) {
        const Key theirs_mirror = shfl_xor(v[r], lane_mask);
        v[r ^ reg_mask] = kept_of_lanes(v[r ^ reg_mask], theirs_mirror, keep_first, comp);
      }
      v[r] = kept_of_lanes(v[r], theirs, keep_first, comp);
    }
  }
}

/// The half-cleaners of phase K: partners J, J / 2, ..., 1 slots apart.
template <int V, int J, class Key, class Comp>
__device__ __forceinline__ void flip_half_cleaners(Key (&v)[V], int lane, Comp comp) {
  if constexpr (J >= 1) {
    flip_step<V, J>(v, lane, comp);
    flip_half_cleaners<V, J / 2>(v, lane, comp);
  }
}

/// Sorts the warp's 32 * V keys (blocked layout) ascending, phases K = 2, 4, ..., 32 V.
template <int V, class Key, class Comp, int K = 2>
__device__ __forceinline__ void flip_sort_warp(Key (&v)[V], int lane, Comp comp) {
  flip_step<V, K - 1>(v, lane, comp);
  flip_half_cleaners<V, K / 4>(v, lane, comp);
  if constexpr (K < 32 * V) flip_sort_warp<V, Key, Comp, 2 * K>(v, lane, comp);
}

}  // namespace warpsort::stages

// The paper's bitonic merge by a warp (Ye et al.; lucchi2023warpsort, section 3.2, in
// docs/references.bib), with the t-key buffer in registers (t a template parameter); the preset
// "paper" merges with it in steps 2 and 4.
//
// The buffer holds t keys striped over the lanes (slot r * 32 + lane in register r): registers
// [0, R) are its lower half, [R, 2R) its upper half (R = t / 64). It starts as [A's first t/2
// keys reversed | B's first t/2 keys], a bitonic sequence; the bitonic merge network sorts it,
// the lower half is final and is stored, the upper half stays. The lower half is refilled with
// the next t/2 keys, reversed, of the input whose last loaded key is smaller (choose_refill), and
// so on; when both inputs are spent the upper half is flushed. Every load and store is a
// whole-warp contiguous segment (the reversed load reverses the lanes, not the addresses' span).
// The next block is chosen and its load issued before the network runs on the current one, so
// the load's latency hides behind the network (the paper's data dependence still serializes one
// warp's merge: block i + 1's choice needs block i's last key).
#pragma once

#include "warp_network.cuh"

#include <warpsort/policy.hpp>

namespace warpsort::stages {

/// Striped load of R registers (32 R slots) from src[0..count), in order or reversed (slot s
/// takes src[32 R - 1 - s]); missing keys read as `pad`. Each register is one coalesced access.
template <int R, bool Reversed, class Key>
__device__ __forceinline__ void load_striped(Key* v, const Key* src, std::size_t count, int lane,
                                             const Key& pad) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int slot = striped_slot(lane, r);
    const std::size_t i = static_cast<std::size_t>(Reversed ? reversed_source(slot, 32 * R) : slot);
    v[r] = i < count ? src[i] : pad;
  }
}

/// Striped store of the first `count` slots of R registers.
template <int R, class Key>
__device__ __forceinline__ void store_striped(Key* dst, const Key* v, std::size_t count, int lane) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const std::size_t i = static_cast<std::size_t>(striped_slot(lane, r));
    if (i < count) dst[i] = v[r];
  }
}

/// Merges sorted a[0..na) and b[0..nb) into out[0..na+nb) through a T-key buffer. Call with the
/// whole warp; pointers are global memory (or shared: any generic address).
template <int T, class Key, class Comp>
__device__ __forceinline__ void buffer_merge_by_warp(const Key* a, std::size_t na, const Key* b,
                                                     std::size_t nb, Key* out, Comp comp) {
  constexpr int half = T / 2;  // keys loaded and emitted a round
  constexpr int R = half / policy::warp_threads;
  static_assert(half % policy::warp_threads == 0, "t/2 must be a whole number of warp registers");
  const std::size_t total = na + nb;
  if (total == 0) return;
  const int lane = lane_id();
  const Key pad = Comp::sentinel();  // sorts last, never stored (outputs stop at total)

  Key buf[2 * R];  // buf[0..R) lower half, buf[R..2R) upper half
  load_striped<R, /*Reversed=*/true>(buf, a, na, lane, pad);
  load_striped<R, /*Reversed=*/false>(buf + R, b, nb, lane, pad);
  std::size_t a_next = half, b_next = half;  // first key not yet loaded
  // Last loaded keys: slot 0 of A's reversed block, the top slot of B's ascending block.
  Key a_last = shfl(buf[0], 0);
  Key b_last = shfl(buf[2 * R - 1], policy::warp_threads - 1);

  for (std::size_t emitted = 0;; emitted += half) {
    const refill source = choose_refill(a_next < na, b_next < nb, comp(b_last, a_last));
    Key next[R];
    if (source == refill::from_a) {
      load_striped<R, true>(next, a + a_next, na - a_next, lane, pad);
      a_next += half;
    } else if (source == refill::from_b) {
      load_striped<R, true>(next, b + b_next, nb - b_next, lane, pad);
      b_next += half;
    }
    bitonic_merge_warp<2 * R, /*Blocked=*/false>(buf, lane, comp);
    store_striped<R>(out + emitted, buf, total - emitted, lane);  // emitted < total here
    if (source == refill::none) {
      if (emitted + half < total)
        store_striped<R>(out + emitted + half, buf + R, total - emitted - half, lane);
      return;
    }
#pragma unroll
    for (int r = 0; r < R; ++r) buf[r] = next[r];
    const Key last = shfl(buf[0], 0);
    if (source == refill::from_a)
      a_last = last;
    else
      b_last = last;
  }
}

/// buffer_merge_by_warp with t chosen at run time (policy::merge_buffer_keys: 64, 128, 256).
template <class Key, class Comp>
__device__ __forceinline__ void buffer_merge_by_warp(int t, const Key* a, std::size_t na,
                                                     const Key* b, std::size_t nb, Key* out,
                                                     Comp comp) {
  if (t == 64)
    buffer_merge_by_warp<64>(a, na, b, nb, out, comp);
  else if (t == 256)
    buffer_merge_by_warp<256>(a, na, b, nb, out, comp);
  else
    buffer_merge_by_warp<128>(a, na, b, nb, out, comp);
}

}  // namespace warpsort::stages

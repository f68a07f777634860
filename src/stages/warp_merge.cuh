// The paper's bitonic merge by a warp (steps 2 and 4), with the t-key buffer in registers.
//
// The buffer holds t = 128 keys, striped over the lanes: registers 0-1 are its lower half,
// 2-3 its upper half. It starts as [A's first 64 keys reversed | B's first 64 keys], a bitonic
// sequence; the merge network sorts it, the lower half is final and is stored, the upper half
// stays. The lower half is then refilled with the next 64 keys, reversed, of the input whose
// last loaded key is smaller, and so on; when both inputs are spent the upper half is flushed.
// The next block is chosen and its load issued before the network runs on the current one,
// so the load's latency hides behind the network.
#pragma once

#include "warp_io.cuh"
#include "warp_network.cuh"

#include <warpsort/policy.hpp>

namespace warpsort::stages {

/// Merges sorted a[0..na) and b[0..nb) into out[0..na+nb). Call with the whole warp; all
/// pointers may be global or shared memory.
template <class Key, class Comp>
__device__ __forceinline__ void merge_by_warp(const Key* a, std::size_t na, const Key* b,
                                              std::size_t nb, Key* out, Comp comp) {
  constexpr int half = policy::merge_buffer_keys / 2;  // keys loaded and emitted per round
  constexpr int R = half / 32;                         // registers per half
  static_assert(half % 32 == 0, "the merge buffer must be a whole number of warp registers");
  const std::size_t total = na + nb;
  if (total == 0) return;
  const int lane = lane_id();
  const Key pad = Comp::sentinel();

  Key buf[2 * R];  // buf[0..R) lower half, buf[R..2R) upper half
  load_striped<R, /*Reversed=*/true>(buf, a, na, lane, pad);
  load_striped<R, /*Reversed=*/false>(buf + R, b, nb, lane, pad);
  std::size_t a_next = half, b_next = half;  // first key not yet loaded
  // Last loaded keys: slot 0 of a reversed block, the top slot of B's ascending block.
  Key a_last = shfl(buf[0], 0);
  Key b_last = shfl(buf[2 * R - 1], 31);

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
    store_striped<R>(out + emitted, buf, total - emitted, lane);
    if (source == refill::none) {
      if (emitted + half < total) store_striped<R>(out + emitted + half, buf + R, total - emitted - half, lane);
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

}  // namespace warpsort::stages

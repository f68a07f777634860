// Step 1's warp-level part: the bitonic sort of one 128-key chunk by one warp (4 keys a lane,
// blocked: lane l holds keys 4l .. 4l+3, read and written as one 16-byte access, and the
// network's partners 1 and 2 slots apart, 13 of its 28 steps, stay inside a lane).
#pragma once

#include "warp_io.cuh"
#include "warp_network.cuh"

#include <warpsort/policy.hpp>

namespace warpsort::stages {

/// Sorts src[0..count) (count <= 128) into dst. Slots past count hold the sentinel, which
/// sorts last and is not stored.
template <class Key, class Comp>
__device__ __forceinline__ void sort_chunk_by_warp(const Key* src, Key* dst, int count,
                                                   Comp comp) {
  constexpr int V = policy::chunk_keys_per_lane;
  const int lane = lane_id();
  Key v[V];
  load_blocked<V>(v, src, static_cast<std::size_t>(count), lane, Comp::sentinel());
  bitonic_sort_warp<V, /*Blocked=*/true>(v, lane, comp);
  store_blocked<V>(dst, v, static_cast<std::size_t>(count), lane);
}

}  // namespace warpsort::stages

// Step 1: bitonic sort of one 128-key chunk by one warp (4 keys a lane, blocked layout, so a
// lane reads and writes its keys with one 16-byte access).
#pragma once

#include "warp_io.cuh"
#include "warp_network.cuh"

#include <warpsort/policy.hpp>

namespace warpsort::stages {

/// Sorts src[0..count) (count <= 128) into dst. Slots past count hold the sentinel, which
/// sorts last and is not stored.
template <class Key, class Comp>
__device__ __forceinline__ void sort_chunk_by_warp(const Key* src, Key* dst, std::size_t count,
                                                   Comp comp) {
  constexpr int V = policy::chunk_keys_per_lane;
  const int lane = lane_id();
  Key v[V];
  load_blocked<V>(v, src, count, lane, Comp::sentinel());
  bitonic_sort_warp<V, /*Blocked=*/true>(v, lane, comp);
  store_blocked<V>(dst, v, count, lane);
}

}  // namespace warpsort::stages

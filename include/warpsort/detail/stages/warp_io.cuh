// Warp-wide loads and stores of register layouts, padding past the end with the sentinel.
#pragma once

#include "index_math.hpp"

#include <cstdint>
#include <cstring>

namespace warpsort::stages {

/// Blocked load: lane l takes keys l*V .. l*V+V-1 of src[0..count). A full, 16-byte aligned
/// block is read with 16-byte vector loads; a partial one key by key, padded with `pad`.
template <int V, class Key>
__device__ __forceinline__ void load_blocked(Key (&v)[V], const Key* src, std::size_t count,
                                             int lane, const Key& pad) {
  constexpr int bytes = static_cast<int>(sizeof(Key)) * V;
  if constexpr (bytes % 16 == 0) {
    if (count >= static_cast<std::size_t>(32 * V) &&
        reinterpret_cast<std::uintptr_t>(src) % 16 == 0) {
      const uint4* vec = reinterpret_cast<const uint4*>(src + lane * V);
      uint4 raw[bytes / 16];
#pragma unroll
      for (int i = 0; i < bytes / 16; ++i) raw[i] = vec[i];
      memcpy(v, raw, bytes);
      return;
    }
  }
#pragma unroll
  for (int r = 0; r < V; ++r) {
    const std::size_t i = static_cast<std::size_t>(blocked_slot(lane, r, V));
    v[r] = i < count ? src[i] : pad;
  }
}

/// Blocked store of the first `count` slots (at most 32 V).
template <int V, class Key>
__device__ __forceinline__ void store_blocked(Key* dst, const Key (&v)[V], std::size_t count,
                                              int lane) {
  constexpr int bytes = static_cast<int>(sizeof(Key)) * V;
  if constexpr (bytes % 16 == 0) {
    if (count >= static_cast<std::size_t>(32 * V) &&
        reinterpret_cast<std::uintptr_t>(dst) % 16 == 0) {
      uint4 raw[bytes / 16];
      memcpy(raw, v, bytes);
      uint4* vec = reinterpret_cast<uint4*>(dst + lane * V);
#pragma unroll
      for (int i = 0; i < bytes / 16; ++i) vec[i] = raw[i];
      return;
    }
  }
#pragma unroll
  for (int r = 0; r < V; ++r) {
    const std::size_t i = static_cast<std::size_t>(blocked_slot(lane, r, V));
    if (i < count) dst[i] = v[r];
  }
}

/// Blocked store, reversed: slot x of the first `count` goes to dst[count - 1 - x].
template <int V, class Key>
__device__ __forceinline__ void store_blocked_reversed(Key* dst, const Key (&v)[V], int count,
                                                       int lane) {
  if (count == 32 * V) {  // lane l's keys, reversed, are lane 31 - l's block
    Key r[V];
#pragma unroll
    for (int i = 0; i < V; ++i) r[i] = v[V - 1 - i];
    store_blocked<V>(dst, r, static_cast<std::size_t>(count), 31 - lane);
    return;
  }
#pragma unroll
  for (int i = 0; i < V; ++i) {
    const int x = blocked_slot(lane, i, V);
    if (x < count) dst[count - 1 - x] = v[i];
  }
}

}  // namespace warpsort::stages

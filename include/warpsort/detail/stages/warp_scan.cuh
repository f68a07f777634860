// Warp-wide sums over the lanes (steps 3 and 4): a reduction, an inclusive scan, and the table
// of offsets that scanning sizes 32 at a time builds.
#pragma once

#include "warp_network.cuh"

#include <warpsort/policy.hpp>

#include <cstddef>

namespace warpsort::stages {

/// The sum over the warp's lanes, in every lane.
__device__ __forceinline__ std::size_t warp_sum(std::size_t x) {
#pragma unroll
  for (int d = 16; d > 0; d /= 2) x += __shfl_xor_sync(full_warp, x, d);
  return x;
}

/// The sum of x over lanes 0 .. lane (an inclusive scan): log2(32) shuffles up. Whole warp.
template <class T>
__device__ __forceinline__ T warp_inclusive_sum(T x, int lane) {
#pragma unroll
  for (int d = 1; d < policy::warp_threads; d *= 2) {
    const T up = __shfl_up_sync(full_warp, x, d);
    if (lane >= d) x += up;
  }
  return x;
}

/// offsets[0] = 0 and offsets[i + 1] = size_of(0) + ... + size_of(i) for every i < count: one
/// warp scans 32 sizes at a time and carries the total into the next 32. Call with the whole
/// warp; `lane` is the thread's lane (the caller's, so that it can pass what it already has).
template <class T, class Index, class SizeOf>
__device__ __forceinline__ void warp_scan_offsets(T* offsets, Index count, SizeOf size_of,
                                                  int lane) {
  T carry = 0;
  for (Index i0 = 0; i0 < count; i0 += policy::warp_threads) {
    const Index i = i0 + lane;
    const T sum = warp_inclusive_sum<T>(i < count ? size_of(i) : T{0}, lane);
    if (i < count) offsets[i + 1] = carry + sum;
    carry += __shfl_sync(full_warp, sum, policy::warp_threads - 1);
  }
  if (lane == 0) offsets[0] = 0;
}

}  // namespace warpsort::stages

// Orders: the comparators warpsort sorts by.
//
// A comparator is a strict weak order `bool operator()(const Key& a, const Key& b)` ("a before b")
// plus `static Key sentinel()`: a key that no key orders after. The warp networks pad partial
// chunks and merge buffers with it; padding never reaches the output because only the N real
// positions are stored, and a real key equal to the sentinel is indistinguishable from it.
#pragma once

#include <cuda/std/limits>

namespace warpsort {

/// Ascending order of an arithmetic key type.
template <class Key>
struct less {
  __host__ __device__ bool operator()(const Key& a, const Key& b) const { return a < b; }
  __host__ __device__ static Key sentinel() { return cuda::std::numeric_limits<Key>::max(); }
};

/// Descending order of an arithmetic key type.
template <class Key>
struct greater {
  __host__ __device__ bool operator()(const Key& a, const Key& b) const { return b < a; }
  __host__ __device__ static Key sentinel() { return cuda::std::numeric_limits<Key>::lowest(); }
};

}  // namespace warpsort

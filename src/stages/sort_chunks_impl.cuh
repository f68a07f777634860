#pragma once
// Step 1 kernel and launcher: one warp per 128-key chunk.
#include "sort_chunks.cuh"
#include "stages.hpp"

#include <warpsort/error.hpp>

namespace warpsort::stages {

template <class Key, class Comp>
__global__ void sort_chunks_kernel(const Key* in, Key* out, std::size_t n, Comp comp) {
  const std::size_t warp =
      (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / policy::warp_threads;
  const std::size_t begin = warp * policy::chunk_keys;
  if (begin >= n) return;  // whole warps leave together
  sort_chunk_by_warp(in + begin, out + begin, min_size(n - begin, policy::chunk_keys), comp);
}

template <class Key, class Comp>
void sort_chunks(const Key* in, Key* out, std::size_t n, Comp comp, const policy& p,
                 cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t warps_per_block = p.block_threads / policy::warp_threads;
  const std::size_t blocks = ceil_div(ceil_div(n, policy::chunk_keys), warps_per_block);
  sort_chunks_kernel<<<static_cast<unsigned>(blocks), p.block_threads, 0, stream>>>(in, out, n,
                                                                                    comp);
  WARPSORT_CHECK_LAUNCH();
}

}  // namespace warpsort::stages

// Explicit instantiation for one (key type, order); see CMakeLists.txt.
#define WARPSORT_INSTANTIATE_SORT_CHUNKS(Key, Comp) \
  template void warpsort::stages::sort_chunks<Key, Comp>(const Key*, Key*, std::size_t, Comp, const warpsort::policy&, cudaStream_t);

#pragma once
// Step 1 kernels and launchers: every block of block_sort_keys keys sorted on chip, so that
// the merges start from sequences of that length instead of the paper's 128.
//
// The library's sort (policy): each warp sorts a run of 32 keys a lane in registers, then the
// block's threads merge the runs in place with in-register networks (sort_blocks_by_threads).
// Version 4 (ablation::design): each warp sorts 128-key chunks with the bitonic sort network
// (the paper's step 1), and the block merges them pairwise in shared memory with the warp tile
// merge of step 2 (sort_blocks); with block_sort_keys = 128, the paper's step 1 itself, every
// chunk written to global memory.
#include "block_merge.cuh"
#include "launch.hpp"
#include "sort_chunks.cuh"
#include <warpsort/stages.hpp>
#include "thread_merge.cuh"

#include <warpsort/error.hpp>

namespace warpsort::stages {

template <class Key, class Comp>
__global__ void sort_blocks_kernel(const Key* in, Key* out, std::size_t n, int block_keys,
                                   Comp comp) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int chunk = policy::chunk_keys;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * block_keys;
  const int count = static_cast<int>(min_size(static_cast<std::size_t>(block_keys), n - base));
  const int warp = static_cast<int>(threadIdx.x / policy::warp_threads);
  const int warps = static_cast<int>(blockDim.x / policy::warp_threads);
  const ping_pong_layout<Key, int> layout{block_keys, 0};
  Key* const src = reinterpret_cast<Key*>(smem);
  Key* const dst = src + layout.keys;

  const bool one_chunk = count <= chunk;  // then the chunk is the block's result
  for (int c = warp * chunk; c < count; c += warps * chunk)
    sort_chunk_by_warp(in + base + c, one_chunk ? out + base : src + c,
                       count - c < chunk ? count - c : chunk, comp);
  if (one_chunk) return;
  __syncthreads();
  merge_rounds_ping_pong(src, dst, count, doubling_rounds{count, chunk}, out + base, comp);
}

/// Version 5: the block stages its keys in shared memory (padded with sentinels to whole warp
/// runs), each warp sorts one run of 32 keys a lane (warp_run_keys) in registers with the
/// direction-free bitonic network, whose first seven phases are the paper's sort of 128-key
/// chunks, and stores it back into the gapped layout (odd runs descending); then the block's
/// threads merge the runs level by level in place (thread_merge.cuh). Every run is whole, so no
/// step handles a short one; the padding sorts last and is not copied out. Keys are mapped by
/// LoadMap as they are staged.
template <class Key, class Comp, class LoadMap>
__global__ void __maxnreg__(thread_merge_max_registers<Key>())
    sort_blocks_by_threads_kernel(const Key* in, Key* out, std::size_t n, int block_keys,
                                  Comp comp) {
  constexpr int E = thread_merge_keys<Key>(), gap = run_gap<Key>();
  constexpr int run_keys = warp_run_keys<Key>(), V = run_keys / policy::warp_threads;
  extern __shared__ __align__(16) unsigned char smem[];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * block_keys;
  const int count = static_cast<int>(min_size(static_cast<std::size_t>(block_keys), n - base));
  const int runs = (count + run_keys - 1) / run_keys;
  Key* const keys = reinterpret_cast<Key*>(smem);
  const level_tables tables = tables_in<Key>(smem, block_keys, (block_keys + run_keys - 1) / run_keys);
  stage_runs<Key, LoadMap>(keys, in + base, count, runs * run_keys, Comp::sentinel());
  __syncthreads();
  const int warp = static_cast<int>(threadIdx.x / policy::warp_threads), lane = lane_id();
  Key v[V];
  if (warp < runs) {  // the block has a warp a run (thread_block_shape_for)
    load_staged_run<V>(v, keys, warp, lane);
    flip_sort_warp<V>(v, lane, comp);
  }
  __syncthreads();
  if (warp < runs) {
    Key* const run = keys + gapped_offset(warp * run_keys, warp, gap);
    if (warp % 2 == 1) {
      store_blocked_reversed<V>(run, v, run_keys, lane);
    } else {
      store_blocked<V>(run, v, run_keys, lane);
      for (int x = lane; x < gap; x += policy::warp_threads) run[run_keys + x] = Comp::sentinel();
    }
  }
  __syncthreads();
  merge_runs_in_place<E, gap>(keys, equal_runs{runs * run_keys, run_keys}, tables, comp);
  copy_block_out(out + base, keys, count);
}

/// The paper's step 1 (block_sort_keys = 128): a warp sorts a 128-key chunk and writes it to
/// global memory; no block-level merging.
template <class Key, class Comp>
__global__ void sort_chunks_by_warps_kernel(const Key* in, Key* out, std::size_t n, Comp comp) {
  constexpr std::size_t chunk = policy::chunk_keys;
  const std::size_t c =
      (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / policy::warp_threads;
  if (c * chunk >= n) return;  // whole warps leave together
  sort_chunk_by_warp(in + c * chunk, out + c * chunk, static_cast<int>(min_size(chunk, n - c * chunk)),
                     comp);
}

template <class Key, class Comp, class LoadMap>
void sort_chunks(const Key* in, Key* out, std::size_t n, Comp comp, const policy& p,
                 cudaStream_t stream) {
  if (n == 0) return;
  const thread_block_shape shape = sort_blocks_shape<Key>(p.block_sort_keys);
  allow_dynamic_smem(sort_blocks_by_threads_kernel<Key, Comp, LoadMap>, shape.smem_bytes);
  const std::size_t blocks = ceil_div(n, static_cast<std::size_t>(p.block_sort_keys));
  sort_blocks_by_threads_kernel<Key, Comp, LoadMap>
      <<<static_cast<unsigned>(blocks), shape.threads, shape.smem_bytes, stream>>>(
          in, out, n, p.block_sort_keys, comp);
  WARPSORT_CHECK_LAUNCH();
}

template <class Key, class Comp>
void sort_chunks(const Key* in, Key* out, std::size_t n, Comp comp, const ablation::design& p,
                 cudaStream_t stream) {
  if (n == 0) return;
  if (p.block_sort_keys == policy::chunk_keys) {
    const std::size_t chunks = ceil_div(n, policy::chunk_keys);
    const int threads = launchable_threads(sort_chunks_by_warps_kernel<Key, Comp>, p.block_threads);
    const std::size_t warps = static_cast<std::size_t>(threads) / policy::warp_threads;
    sort_chunks_by_warps_kernel<<<static_cast<unsigned>(ceil_div(chunks, warps)), threads, 0,
                                  stream>>>(in, out, n, comp);
    WARPSORT_CHECK_LAUNCH();
    return;
  }
  const std::size_t smem = ping_pong_layout<Key, int>{p.block_sort_keys, 0}.bytes();
  allow_dynamic_smem(sort_blocks_kernel<Key, Comp>, smem);
  const std::size_t blocks = ceil_div(n, static_cast<std::size_t>(p.block_sort_keys));
  sort_blocks_kernel<<<static_cast<unsigned>(blocks),
                       launchable_threads(sort_blocks_kernel<Key, Comp>, p.block_threads), smem,
                       stream>>>(in, out, n, p.block_sort_keys, comp);
  WARPSORT_CHECK_LAUNCH();
}

}  // namespace warpsort::stages

// Explicit instantiation for one (key type, order); src/stages/<step>.cu expands it for the
// built-in key types.
#define WARPSORT_INSTANTIATE_SORT_CHUNKS(Key, Comp) \
  template void warpsort::stages::sort_chunks<Key, Comp>(const Key*, Key*, std::size_t, Comp, const warpsort::policy&, cudaStream_t); \
  template void warpsort::stages::sort_chunks<Key, Comp>(const Key*, Key*, std::size_t, Comp, const warpsort::ablation::design&, cudaStream_t);
// Step 1 reading keys of the same bits through a map (word_map.cuh): floats as order words.
#define WARPSORT_INSTANTIATE_SORT_CHUNKS_MAPPED(Key, Comp, LoadMap) \
  template void warpsort::stages::sort_chunks<Key, Comp, LoadMap>(const Key*, Key*, std::size_t, Comp, \
                                                                  const warpsort::policy&, cudaStream_t);

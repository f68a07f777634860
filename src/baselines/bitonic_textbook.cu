// Baseline "bitonic_textbook": the textbook bitonic sort of seed000_bitonic_cuda and
// shen_ece498al_mp5 (docs/references.bib) with a global-memory kernel per far step and
// shared-memory kernels for the near steps.
//
// n keys are sorted as P = next_pow2(n) keys: when n is not a power of two the keys are copied
// (device to device) into a P-key buffer allocated in prepare(), the padding [n, P) is written on
// the device by a fill kernel (+inf for floating point, the maximum otherwise), and the first n
// keys are copied back after the sort; nothing crosses PCIe. Power-of-two n sorts in place.
// The launch sequence is bitonic::for_each_launch (bitonic_index.hpp):
//   tile_sort   once: every 2048-key tile fully sorted in shared memory (1024 threads, one pair
//               each), directions from the global index so that tiles alternate;
//   per stage k = 4096 .. P: a global_step kernel per j = k/2 .. 2048 (one thread per pair),
//               then one tile_merge kernel doing the remaining steps j = 1024 .. 1 in shared memory.
// Launch count: bitonic::kernel_launches(n).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "baselines/bitonic_index.hpp"
#include "baselines/gpu_baselines_impl.cuh"
#include "baselines/prepared_baseline.cuh"
#include "warpsort/error.hpp"

namespace warpsort::baselines::detail {
namespace {

namespace bt = ::warpsort::baselines::bitonic;

constexpr unsigned elementwise_threads = 256;
// Grid-stride loops everywhere; this cap keeps grids well inside gridDim.x's 2^31 - 1.
constexpr std::size_t max_blocks = std::size_t{1} << 22;

unsigned grid_for(std::size_t items, std::size_t per_block) {
  const std::size_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(blocks, max_blocks)));
}

template <class Key>
__global__ void fill_kernel(Key* keys, std::size_t from, std::size_t to, Key value) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = from + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < to; i += stride)
    keys[i] = value;
}

/// Sorts every tile of `len` keys (len = tile_len(P), a power of two <= tile_keys, with
/// blockDim.x == len / 2): stages k = 2 .. len, each step j = k/2 .. 1, thread t owns pair t.
template <class Key>
__global__ void __launch_bounds__(bt::tile_threads)
    tile_sort_kernel(Key* keys, std::size_t num_tiles, unsigned len) {
  __shared__ Key tile[bt::tile_keys];
  const unsigned t = threadIdx.x;
  const unsigned half = len / 2;
  for (std::size_t b = blockIdx.x; b < num_tiles; b += gridDim.x) {
    const std::size_t base = b * len;
    tile[t] = keys[base + t];
    tile[t + half] = keys[base + t + half];
    __syncthreads();
    for (unsigned k = 2; k <= len; k <<= 1) {
      for (unsigned j = k / 2; j > 0; j /= 2) {
        const std::size_t i = bt::pair_low(t, j);
        bt::compare_exchange(tile, i, j, bt::ascending(base + i, k));
        __syncthreads();
      }
    }
    keys[base + t] = tile[t];
    keys[base + t + half] = tile[t + half];
    __syncthreads();  // the next tile of this block reuses `tile`
  }
}

/// Stage k > tile_keys, steps j = tile_keys/2 .. 1, on every tile of tile_keys keys
/// (blockDim.x == tile_threads). Every pair of a tile has the direction of the tile's base.
template <class Key>
__global__ void __launch_bounds__(bt::tile_threads)
    tile_merge_kernel(Key* keys, std::size_t num_tiles, std::size_t k) {
  __shared__ Key tile[bt::tile_keys];
  const unsigned t = threadIdx.x;
  for (std::size_t b = blockIdx.x; b < num_tiles; b += gridDim.x) {
    const std::size_t base = b * bt::tile_keys;
    const bool asc = bt::ascending(base, k);
    tile[t] = keys[base + t];
    tile[t + bt::tile_threads] = keys[base + t + bt::tile_threads];
    __syncthreads();
    for (unsigned j = bt::tile_threads; j > 0; j /= 2) {
      bt::compare_exchange(tile, bt::pair_low(t, j), j, asc);
      __syncthreads();
    }
    keys[base + t] = tile[t];
    keys[base + t + bt::tile_threads] = tile[t + bt::tile_threads];
    __syncthreads();
  }
}

/// One step (k, j) over P keys: one thread per compared pair, P/2 pairs, grid-stride.
template <class Key>
__global__ void global_step_kernel(Key* keys, std::size_t pairs, std::size_t k, std::size_t j) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t p = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < pairs;
       p += stride) {
    const std::size_t i = bt::pair_low(p, j);
    bt::compare_exchange(keys, i, j, bt::ascending(i, k));
  }
}

template <class Key>
class bitonic_textbook_sorter final
    : public prepared_baseline<gpu_sorter<Key>, bitonic_textbook_sorter<Key>, 1> {
 public:
  std::string name() const override { return "bitonic_textbook"; }

  /// The padded copy, the only part: next_pow2(max_n) keys (none for max_n == 2, a power of two,
  /// sorted in place).
  static std::array<std::size_t, 1> part_bytes(std::size_t max_n) {
    return {{max_n <= 2 ? 0 : bt::next_pow2(max_n) * sizeof(Key)}};
  }

  void sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    this->check("bitonic_textbook", n);
    if (n <= 1) return;
    const std::size_t P = bt::next_pow2(n);
    Key* keys = d_keys;
    if (P != n) {
      keys = this->template part<Key>(0);
      WARPSORT_CUDA_CHECK(
          cudaMemcpyAsync(keys, d_keys, n * sizeof(Key), cudaMemcpyDeviceToDevice, stream));
    }
    const std::size_t tiles = P / bt::tile_len(P);
    bt::for_each_launch(n, [&](const bt::launch& l) {
      switch (l.kind) {
        case bt::launch_kind::fill:
          fill_kernel<Key><<<grid_for(P - n, elementwise_threads), elementwise_threads, 0,
                             stream>>>(keys, n, P, bt::pad_key<Key>());
          break;
        case bt::launch_kind::tile_sort:
          tile_sort_kernel<Key><<<grid_for(tiles, 1), static_cast<unsigned>(l.k / 2), 0,
                                  stream>>>(keys, tiles, static_cast<unsigned>(l.k));
          break;
        case bt::launch_kind::tile_merge:
          tile_merge_kernel<Key><<<grid_for(tiles, 1), bt::tile_threads, 0, stream>>>(keys, tiles,
                                                                                     l.k);
          break;
        case bt::launch_kind::global_step:
          global_step_kernel<Key><<<grid_for(P / 2, elementwise_threads), elementwise_threads, 0,
                                    stream>>>(keys, P / 2, l.k, l.j);
          break;
      }
      WARPSORT_CHECK_LAUNCH();
      ++launches_;
    });
    if (P != n) {
      WARPSORT_CUDA_CHECK(
          cudaMemcpyAsync(d_keys, keys, n * sizeof(Key), cudaMemcpyDeviceToDevice, stream));
    }
  }

  std::size_t kernel_launches_so_far() const override { return launches_; }

 private:
  std::size_t launches_ = 0;
};

}  // namespace

WARPSORT_DEFINE_GPU_BASELINE(make_bitonic_textbook,
                             std::make_unique<bitonic_textbook_sorter<Key>>())

}  // namespace warpsort::baselines::detail

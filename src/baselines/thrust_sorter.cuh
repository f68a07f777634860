// Internal: the one implementation of the two thrust baselines, thrust::sort(policy, first, last,
// comp) with comp = thrust::less<Key> ("thrust_sort": Thrust picks CUB's radix sort) or a user
// functor ("thrust_sort_comparator": Thrust must use CUB's merge sort). Included by
// thrust_sort.cu and thrust_sort_comparator.cu only.
//
// Temporary storage: Thrust allocates it inside thrust::sort through the policy's allocator.
// We pass an arena allocator (thrust::cuda::par_nosync(arena).on(stream)) whose single block is
// allocated in prepare(), so a timed sort() calls no cudaMalloc/cudaFree and, with par_nosync,
// makes no stream synchronization either. The arena is sized by asking Thrust itself: prepare()
// runs thrust::sort for max_n keys with a probe allocator that records the requested byte count
// and throws before anything is launched (for n >= 2 both of Thrust's sort paths, in CCCL 3.0,
// query CUB's sizes, then allocate exactly once, then launch; the probe never reaches a launch).
// Should a later sort ask for more than the arena holds, the allocator falls back to
// cudaMalloc/cudaFree and counts it (unplanned_allocations(), checked by the tests).
#pragma once

#include <thrust/functional.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system_error.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "baselines/gpu_baselines_impl.cuh"
#include "warpsort/error.hpp"

#if CCCL_MAJOR_VERSION != 3
#warning "thrust_sorter: re-check that thrust::sort allocates its temporary storage before launching (see the probe)"
#endif

namespace warpsort::baselines::detail {

/// Serves Thrust's temporary allocation from one block reserved in prepare().
struct thrust_arena_allocator {
  using value_type = char;

  char* block = nullptr;
  std::size_t capacity = 0;
  bool in_use = false;
  std::size_t unplanned = 0;

  char* allocate(std::ptrdiff_t bytes) {
    const auto want = static_cast<std::size_t>(bytes < 0 ? 0 : bytes);
    if (!in_use && want <= capacity) {
      in_use = true;
      return block;
    }
    ++unplanned;
    void* p = nullptr;
    WARPSORT_CUDA_CHECK(cudaMalloc(&p, want == 0 ? 1 : want));
    return static_cast<char*>(p);
  }

  void deallocate(char* p, std::size_t) noexcept {
    if (in_use && p == block) {
      in_use = false;  // stream order protects the next sort on the same stream
      return;
    }
    free_device_noexcept(p);
  }
};

/// Thrown by the probe allocator with the byte count Thrust asked for.
struct thrust_size_probe {
  std::size_t bytes;
};

struct thrust_probe_allocator {
  using value_type = char;
  char* allocate(std::ptrdiff_t bytes) {
    throw thrust_size_probe{static_cast<std::size_t>(bytes < 0 ? 0 : bytes)};
  }
  void deallocate(char*, std::size_t) noexcept {}
};

template <class Key, class Compare>
class thrust_sorter final : public gpu_sorter<Key>, public sorter_internals {
 public:
  explicit thrust_sorter(std::string name) : name_(std::move(name)) {}

  std::string name() const override { return name_; }

  /// Bytes thrust::sort asks its allocator for, for n keys (0 for n <= 1: nothing is sorted).
  static std::size_t thrust_request(std::size_t n) {
    if (n <= 1) return 0;
    thrust_probe_allocator probe;
    // A non-null, aligned, never dereferenced address: the probe throws before any launch.
    Key* const fake = reinterpret_cast<Key*>(std::uintptr_t{1} << 20);
    try {
      thrust::sort(thrust::cuda::par_nosync(probe), fake, fake + n, Compare{});
    } catch (const thrust_size_probe& p) {
      return p.bytes;
    } catch (const thrust::system_error& e) {
      throw cuda_error(static_cast<cudaError_t>(e.code().value()),
                       std::string("thrust::sort (size query): ") + e.what());
    }
    // Not reached with CCCL 3.x; if Thrust ever sorted without allocating, it needs no arena.
    return 0;
  }

  std::size_t temp_bytes(std::size_t max_n) const override { return thrust_request(max_n); }

  void prepare(std::size_t max_n) override {
    if (max_n <= prepared_n_) return;
    prepared_n_ = 0;
    const std::size_t bytes = thrust_request(max_n);
    arena_.block = nullptr;
    arena_.capacity = 0;
    block_.reset(0);
    block_.reset(bytes);
    arena_.block = static_cast<char*>(block_.get());
    arena_.capacity = block_.bytes();
    prepared_n_ = max_n;
  }

  void sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    check_prepared(name_.c_str(), n, prepared_n_);
    if (n <= 1) return;
    try {
      thrust::sort(thrust::cuda::par_nosync(arena_).on(stream), d_keys, d_keys + n, Compare{});
    } catch (const thrust::system_error& e) {
      arena_.in_use = false;
      throw cuda_error(static_cast<cudaError_t>(e.code().value()),
                       std::string("thrust::sort: ") + e.what());
    }
  }

  std::vector<std::pair<void*, std::size_t>> device_buffers() const override {
    std::vector<std::pair<void*, std::size_t>> out;
    block_.describe(out);
    return out;
  }

  std::size_t unplanned_allocations() const override { return arena_.unplanned; }

 private:
  std::string name_;
  device_buffer block_;
  thrust_arena_allocator arena_;
  std::size_t prepared_n_ = 0;
};

}  // namespace warpsort::baselines::detail

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

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "baselines/gpu_baselines_impl.cuh"
#include "baselines/prepared_baseline.cuh"
#include "host/device_buffer.hpp"
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
    return ::warpsort::detail::device_buffer<char>(want == 0 ? 1 : want).release();
  }

  void deallocate(char* p, std::size_t) noexcept {
    if (in_use && p == block) {
      in_use = false;  // stream order protects the next sort on the same stream
      return;
    }
    if (p != nullptr) (void)cudaFree(p);  // errors ignored: Thrust frees from destructors
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
class thrust_sorter final
    : public prepared_baseline<gpu_sorter<Key>, thrust_sorter<Key, Compare>, 1> {
  using base = prepared_baseline<gpu_sorter<Key>, thrust_sorter<Key, Compare>, 1>;

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

  /// The arena's block, the only part.
  static std::array<std::size_t, 1> part_bytes(std::size_t max_n) {
    return {{thrust_request(max_n)}};
  }

  void prepare(std::size_t max_n) override {
    arena_.block = nullptr;  // not left pointing at a block that base::prepare frees
    arena_.capacity = 0;
    base::prepare(max_n);
    arena_.block = this->template part<char>(0);
    arena_.capacity = this->part_size(0);
  }

  void sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    this->check(name_.c_str(), n);
    if (n <= 1) return;
    try {
      thrust::sort(thrust::cuda::par_nosync(arena_).on(stream), d_keys, d_keys + n, Compare{});
    } catch (const thrust::system_error& e) {
      arena_.in_use = false;
      throw cuda_error(static_cast<cudaError_t>(e.code().value()),
                       std::string("thrust::sort: ") + e.what());
    }
  }

  std::size_t unplanned_allocations() const override { return arena_.unplanned; }

 private:
  std::string name_;
  thrust_arena_allocator arena_;
};

}  // namespace warpsort::baselines::detail

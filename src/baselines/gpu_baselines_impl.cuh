// Internal to the baselines module: one factory function per baseline, each defined (and
// explicitly instantiated) in its own translation unit, so that gpu_baselines.cu (the name list
// and make_gpu_baseline) includes no CUB/Thrust header. Also a small introspection interface
// the tests use to poison temporary storage and to check that thrust made no unplanned allocation.
#pragma once

#include <warpsort/key_types.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "baselines/gpu_baselines.cuh"

namespace warpsort::baselines::detail {

/// Implemented by every GPU baseline next to gpu_sorter<Key>.
class sorter_internals {
 public:
  virtual ~sorter_internals() = default;
  /// Device allocations the sorter holds now (pointer, bytes); empty before prepare().
  virtual std::vector<std::pair<void*, std::size_t>> device_buffers() const = 0;
  /// Device allocations made inside sort() because prepare() had not covered them (only thrust,
  /// whose temporary storage comes through an allocator, can do that; expected to stay 0).
  virtual std::size_t unplanned_allocations() const { return 0; }
  /// Kernel launches made by this sorter's sort() calls so far (bitonic_textbook only; the
  /// library baselines return 0: their launches are CUB's business).
  virtual std::size_t kernel_launches_so_far() const { return 0; }
};

// Factories: construct only, touch no device. Each defined with WARPSORT_DEFINE_GPU_BASELINE.
template <class Key> std::unique_ptr<gpu_sorter<Key>> make_cub_radix();
template <class Key> std::unique_ptr<gpu_sorter<Key>> make_cub_merge();
template <class Key> std::unique_ptr<gpu_sorter<Key>> make_thrust_sort();
template <class Key> std::unique_ptr<gpu_sorter<Key>> make_thrust_sort_comparator();
template <class Key> std::unique_ptr<gpu_sorter<Key>> make_bitonic_textbook();

/// Defines the factory `make` declared above as returning the expression after it (in terms of
/// Key) and instantiates it for every key type: the tail of each baseline's translation unit.
#define WARPSORT_DEFINE_GPU_BASELINE(make, ...)    \
  template <class Key>                             \
  std::unique_ptr<gpu_sorter<Key>> make() {        \
    return __VA_ARGS__;                            \
  }                                                \
  WARPSORT_KEY_TYPES_(WARPSORT_INSTANTIATE_GPU_BASELINE_, make)
#define WARPSORT_INSTANTIATE_GPU_BASELINE_(name, Key, make) \
  template std::unique_ptr<gpu_sorter<Key>> make<Key>();

/// Throws warpsort::input_error when n exceeds what prepare() covered.
void check_prepared(const char* baseline, std::size_t n, std::size_t prepared_max_n);

}  // namespace warpsort::baselines::detail

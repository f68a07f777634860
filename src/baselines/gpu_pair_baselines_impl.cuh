// Internal to the baselines module: the pair baselines' factory functions, each defined (and
// explicitly instantiated) in its own translation unit, so that gpu_pair_baselines.cu (the name
// list and make_gpu_pair_baseline) includes no CUB header. The sorters also implement
// detail::sorter_internals (gpu_baselines_impl.cuh), which the tests use to poison their storage.
#pragma once

#include <memory>

#include "baselines/gpu_baselines_impl.cuh"
#include "baselines/gpu_pair_baselines.cuh"

namespace warpsort::baselines::detail {

// Factories: construct only, touch no device. Each defined with WARPSORT_DEFINE_GPU_PAIR_BASELINE.
template <class Key, class Value>
std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_radix_pairs();
template <class Key, class Value>
std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_merge_pairs();
template <class Key, class Value>
std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_merge_stable_pairs();

/// As WARPSORT_DEFINE_GPU_BASELINE (gpu_baselines_impl.cuh), for every key and value type.
#define WARPSORT_DEFINE_GPU_PAIR_BASELINE(make, ...)         \
  template <class Key, class Value>                          \
  std::unique_ptr<gpu_pair_sorter<Key, Value>> make() {      \
    return __VA_ARGS__;                                      \
  }                                                          \
  WARPSORT_KEY_TYPES_(WARPSORT_INSTANTIATE_GPU_PAIR_BASELINE_KEY_, make)
#define WARPSORT_INSTANTIATE_GPU_PAIR_BASELINE_KEY_(name, Key, make) \
  WARPSORT_VALUE_TYPES_(WARPSORT_INSTANTIATE_GPU_PAIR_BASELINE_, Key, make)
#define WARPSORT_INSTANTIATE_GPU_PAIR_BASELINE_(name, Value, Key, make) \
  template std::unique_ptr<gpu_pair_sorter<Key, Value>> make<Key, Value>();

}  // namespace warpsort::baselines::detail


// Internal to the baselines module: the pair baselines' factory functions, each defined (and
// explicitly instantiated) in its own translation unit, so that gpu_pair_baselines.cu (the name
// list and make_gpu_pair_baseline) includes no CUB header. The sorters also implement
// detail::sorter_internals (gpu_baselines_impl.cuh), which the tests use to poison their storage.
#pragma once

#include <cstdint>
#include <memory>

#include "baselines/gpu_baselines_impl.cuh"
#include "baselines/gpu_pair_baselines.cuh"

namespace warpsort::baselines::detail {

// Factories: construct only, touch no device.
template <class Key, class Value>
std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_radix_pairs();
template <class Key, class Value>
std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_merge_pairs();
template <class Key, class Value>
std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_merge_stable_pairs();

}  // namespace warpsort::baselines::detail


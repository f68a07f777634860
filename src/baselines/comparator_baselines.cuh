// The baselines of the comparator key (data/key128.hpp): the GPU baselines that take a
// comparator, run with key128_less. The radix sorts have no comparator form.
#pragma once

#include "baselines/gpu_baselines.cuh"
#include "baselines/gpu_pair_baselines.cuh"
#include "data/key128.hpp"

#include <memory>
#include <string>

namespace warpsort::baselines {

/// Whether baseline `name` (keys, or pairs with `pairs`) takes the comparator key.
bool has_key128_baseline(const std::string& name, bool pairs);

/// "cub_merge" (cub::DeviceMergeSort::SortKeys) and "thrust_sort_comparator" (thrust::sort) with
/// key128_less; warpsort::input_error for any other name. Constructs only.
std::unique_ptr<gpu_sorter<data::key128>> make_key128_baseline(const std::string& name);

/// "cub_merge_pairs" and "cub_merge_stable_pairs" with key128_less, ascending only (Value:
/// std::uint32_t or std::uint64_t); warpsort::input_error for any other name. Constructs only.
template <class Value>
std::unique_ptr<gpu_pair_sorter<data::key128, Value>> make_key128_pair_baseline(
    const std::string& name);

}  // namespace warpsort::baselines

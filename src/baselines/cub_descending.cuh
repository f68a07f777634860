// The keys-only baselines in descending order, for `bench --descending`: the two CUB timings the
// ratio columns need. The other keys-only baselines sort ascending only; these two sit behind
// the same gpu_sorter interface and under the same names (rows "cub_radix" and "cub_merge", so
// fill_ratios works unchanged), and are the ascending baselines' implementations in the other
// direction:
//  - cub_radix: cub::DeviceRadixSort::SortKeysDescending over all key bits, in place through a
//    cub::DoubleBuffer (cub_radix_sorter.cuh);
//  - cub_merge: cub::DeviceMergeSort::SortKeys with warpsort::greater<Key>, in place
//    (cub_merge_sorter.cuh).
// CUB's temporary storage is allocated in prepare(), before timing.
#pragma once

#include "baselines/cub_merge_sorter.cuh"
#include "baselines/cub_radix_sorter.cuh"
#include "baselines/gpu_baselines.cuh"

#include <warpsort/error.hpp>

#include <memory>
#include <string>

namespace warpsort::baselines {

/// "cub_radix", descending: cub::DeviceRadixSort::SortKeysDescending.
template <class Key>
using cub_radix_descending = detail::cub_radix_sorter<Key, true>;

/// "cub_merge", descending: cub::DeviceMergeSort::SortKeys with warpsort::greater<Key>.
template <class Key>
using cub_merge_descending = detail::cub_merge_sorter<Key, true>;

/// The keys-only sorter `name` in the given order: ascending, the baseline of that name;
/// descending, cub_radix / cub_merge from above (input_error for any other name: the other
/// baselines sort ascending only, restrict_to_descending takes them out of the plan).
template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_keys_sorter(const std::string& name, bool descending) {
  if (!descending) return make_gpu_baseline<Key>(name);
  if (name == "cub_radix") return std::make_unique<cub_radix_descending<Key>>();
  if (name == "cub_merge") return std::make_unique<cub_merge_descending<Key>>();
  throw input_error("'" + name + "' sorts ascending only (no --descending)");
}

}  // namespace warpsort::baselines

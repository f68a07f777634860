// Baseline "cub_radix": cub::DeviceRadixSort::SortKeys over all key bits, ascending, in place
// (cub_radix_sorter.cuh, shared with the descending sort of cub_descending.cuh).
#include "baselines/cub_radix_sorter.cuh"

namespace warpsort::baselines::detail {

WARPSORT_DEFINE_GPU_BASELINE(make_cub_radix, std::make_unique<cub_radix_sorter<Key, false>>())

}  // namespace warpsort::baselines::detail

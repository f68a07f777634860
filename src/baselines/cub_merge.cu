// Baseline "cub_merge": cub::DeviceMergeSort::SortKeys with warpsort::less, in place
// (cub_merge_sorter.cuh, shared with the descending sort of cub_descending.cuh).
#include "baselines/cub_merge_sorter.cuh"

namespace warpsort::baselines::detail {

WARPSORT_DEFINE_GPU_BASELINE(make_cub_merge, std::make_unique<cub_merge_sorter<Key, false>>())

}  // namespace warpsort::baselines::detail

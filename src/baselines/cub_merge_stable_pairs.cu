// Baseline "cub_merge_stable_pairs": cub::DeviceMergeSort::StableSortPairs with warpsort::less /
// greater, in place; stable. The implementation is shared with cub_merge_pairs.cu
// (cub_merge_pairs_impl.cuh).
#include "baselines/cub_merge_pairs_impl.cuh"

namespace warpsort::baselines::detail {

WARPSORT_DEFINE_GPU_PAIR_BASELINE(make_cub_merge_stable_pairs,
                                  std::make_unique<cub_merge_pairs_sorter<true, Key, Value>>())

}  // namespace warpsort::baselines::detail

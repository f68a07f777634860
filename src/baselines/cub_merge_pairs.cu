// Baseline "cub_merge_pairs": cub::DeviceMergeSort::SortPairs with warpsort::less / greater, in
// place; not guaranteed stable. The implementation is shared with cub_merge_stable_pairs.cu
// (cub_merge_pairs_impl.cuh).
#include "baselines/cub_merge_pairs_impl.cuh"

namespace warpsort::baselines::detail {

WARPSORT_DEFINE_GPU_PAIR_BASELINE(make_cub_merge_pairs,
                                  std::make_unique<cub_merge_pairs_sorter<false, Key, Value>>())

}  // namespace warpsort::baselines::detail

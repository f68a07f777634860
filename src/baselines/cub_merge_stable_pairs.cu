// Baseline "cub_merge_stable_pairs": cub::DeviceMergeSort::StableSortPairs with warpsort::less /
// greater, in place; stable. The implementation is shared with cub_merge_pairs.cu
// (cub_merge_pairs_impl.cuh).
#include "baselines/cub_merge_pairs_impl.cuh"

namespace warpsort::baselines::detail {

template <class Key, class Value>
std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_merge_stable_pairs() {
  return std::make_unique<cub_merge_pairs_sorter<true, Key, Value>>();
}

#define WARPSORT_INSTANTIATE_CUB_MERGE_STABLE_PAIRS(Key, Value) \
  template std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_merge_stable_pairs<Key, Value>();
WARPSORT_FOR_EACH_KEY_VALUE(WARPSORT_INSTANTIATE_CUB_MERGE_STABLE_PAIRS)
#undef WARPSORT_INSTANTIATE_CUB_MERGE_STABLE_PAIRS

}  // namespace warpsort::baselines::detail

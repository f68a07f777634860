// Baseline "cub_merge_pairs": cub::DeviceMergeSort::SortPairs with warpsort::less / greater, in
// place; not guaranteed stable. The implementation is shared with cub_merge_stable_pairs.cu
// (cub_merge_pairs_impl.cuh).
#include "baselines/cub_merge_pairs_impl.cuh"

namespace warpsort::baselines::detail {

template <class Key, class Value>
std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_merge_pairs() {
  return std::make_unique<cub_merge_pairs_sorter<false, Key, Value>>();
}

#define WARPSORT_INSTANTIATE_CUB_MERGE_PAIRS(Key, Value) \
  template std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_merge_pairs<Key, Value>();
WARPSORT_FOR_EACH_KEY_VALUE(WARPSORT_INSTANTIATE_CUB_MERGE_PAIRS)
#undef WARPSORT_INSTANTIATE_CUB_MERGE_PAIRS

}  // namespace warpsort::baselines::detail

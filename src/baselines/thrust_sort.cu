// Baseline "thrust_sort": thrust::sort with thrust::less<Key>; for arithmetic keys Thrust
// dispatches this to CUB's radix sort (plus a copy back when the result ends in its buffer).
#include "baselines/thrust_sorter.cuh"

namespace warpsort::baselines::detail {

template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_thrust_sort() {
  return std::make_unique<thrust_sorter<Key, thrust::less<Key>>>("thrust_sort");
}

#define WARPSORT_INSTANTIATE_THRUST_SORT(name, Key) \
  template std::unique_ptr<gpu_sorter<Key>> make_thrust_sort<Key>();
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_INSTANTIATE_THRUST_SORT)
#undef WARPSORT_INSTANTIATE_THRUST_SORT

}  // namespace warpsort::baselines::detail

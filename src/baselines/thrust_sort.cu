// Baseline "thrust_sort": thrust::sort with thrust::less<Key>; for arithmetic keys Thrust
// dispatches this to CUB's radix sort (plus a copy back when the result ends in its buffer).
#include "baselines/thrust_sorter.cuh"

namespace warpsort::baselines::detail {

WARPSORT_DEFINE_GPU_BASELINE(make_thrust_sort,
                             std::make_unique<thrust_sorter<Key, thrust::less<Key>>>("thrust_sort"))

}  // namespace warpsort::baselines::detail

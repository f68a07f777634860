// Baseline "thrust_sort_comparator": thrust::sort with a user-defined device comparator. Thrust
// cannot see that it is a plain less-than, so it dispatches to CUB's merge sort: what users of
// thrust::sort with their own comparator get.
#include "baselines/thrust_sorter.cuh"

#include <warpsort/order.cuh>

namespace warpsort::baselines::detail {
namespace {

/// A user comparator: warpsort's ascending order (for floats its total order), opaque to
/// Thrust's radix-sort dispatch.
template <class Key>
struct custom_less {
  __host__ __device__ bool operator()(const Key& a, const Key& b) const { return ::warpsort::less<Key>{}(a, b); }
};

}  // namespace

WARPSORT_DEFINE_GPU_BASELINE(
    make_thrust_sort_comparator,
    std::make_unique<thrust_sorter<Key, custom_less<Key>>>("thrust_sort_comparator"))

}  // namespace warpsort::baselines::detail

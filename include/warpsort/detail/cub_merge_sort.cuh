#pragma once
// cub::DeviceMergeSort as this library calls it (step 3's samples, the distributed sort's
// samples, CUB's merge sort as a distributed local sort, the pairs' stable reference).
//
// CCCL before 3.2 launches the merge sort's kernels with programmatic dependent launch, and its
// merge kernel reads the merge partitions the previous kernel wrote before it waits for that
// kernel (fixed upstream: NVIDIA/cccl#5456). When other streams keep the GPU busy the read can
// come first: the merge then works from stale partitions and faults (an out-of-range address
// or an illegal instruction) or could write a wrong order. There, these calls run CUB's own
// dispatch with a launcher that never asks for the dependent launch; from CCCL 3.2 they are
// CUB's public calls.
#include <cub/device/device_merge_sort.cuh>
#include <cuda/version>

#include <cstddef>

namespace warpsort::detail::cub_merge_sort {

#if CCCL_VERSION < 3002000
/// CUB's launcher with every launch ordered after the previous one on the stream.
struct launcher_without_pdl : cub::detail::TripleChevronFactory {
  CUB_RUNTIME_FUNCTION auto operator()(dim3 grid, dim3 block, std::size_t shared_bytes,
                                       cudaStream_t stream,
                                       bool /*dependent_launch*/ = false) const {
    return cub::detail::TripleChevronFactory::operator()(grid, block, shared_bytes, stream, false);
  }
};

template <class KeyIn, class ValueIn, class KeyOut, class ValueOut, class Items, class Comp>
using dispatch = cub::DispatchMergeSort<
    KeyIn, ValueIn, KeyOut, ValueOut, cub::detail::choose_offset_t<Items>, Comp,
    cub::detail::merge_sort::policy_hub<KeyOut>,
    cub::detail::merge_sort::DeviceMergeSortKernelSource<
        typename cub::detail::merge_sort::policy_hub<KeyOut>::MaxPolicy, KeyIn, ValueIn, KeyOut,
        ValueOut, cub::detail::choose_offset_t<Items>, Comp>,
    launcher_without_pdl>;

template <class KeyIn, class ValueIn, class KeyOut, class ValueOut, class Items, class Comp>
cudaError_t run(void* temp, std::size_t& bytes, KeyIn keys_in, ValueIn values_in, KeyOut keys_out,
                ValueOut values_out, Items items, Comp comp, cudaStream_t stream) {
  using d = dispatch<KeyIn, ValueIn, KeyOut, ValueOut, Items, Comp>;
  return d::Dispatch(temp, bytes, keys_in, values_in, keys_out, values_out, items, comp, stream);
}
#endif

/// cub::DeviceMergeSort::SortKeys (in place).
template <class Key, class Items, class Comp>
cudaError_t sort_keys(void* temp, std::size_t& bytes, Key* keys, Items items, Comp comp,
                      cudaStream_t stream = nullptr) {
#if CCCL_VERSION < 3002000
  return run(temp, bytes, keys, static_cast<cub::NullType*>(nullptr), keys,
             static_cast<cub::NullType*>(nullptr), items, comp, stream);
#else
  return cub::DeviceMergeSort::SortKeys(temp, bytes, keys, items, comp, stream);
#endif
}

/// cub::DeviceMergeSort::SortKeysCopy (`in` is left as it is).
template <class Key, class Items, class Comp>
cudaError_t sort_keys_copy(void* temp, std::size_t& bytes, const Key* in, Key* out, Items items,
                           Comp comp, cudaStream_t stream = nullptr) {
#if CCCL_VERSION < 3002000
  return run(temp, bytes, in, static_cast<cub::NullType*>(nullptr), out,
             static_cast<cub::NullType*>(nullptr), items, comp, stream);
#else
  return cub::DeviceMergeSort::SortKeysCopy(temp, bytes, in, out, items, comp, stream);
#endif
}

/// cub::DeviceMergeSort::StableSortPairs (in place; merge sort is stable).
template <class Key, class Value, class Items, class Comp>
cudaError_t stable_sort_pairs(void* temp, std::size_t& bytes, Key* keys, Value* values, Items items,
                              Comp comp, cudaStream_t stream = nullptr) {
#if CCCL_VERSION < 3002000
  return run(temp, bytes, keys, values, keys, values, items, comp, stream);
#else
  return cub::DeviceMergeSort::StableSortPairs(temp, bytes, keys, values, items, comp, stream);
#endif
}

}  // namespace warpsort::detail::cub_merge_sort

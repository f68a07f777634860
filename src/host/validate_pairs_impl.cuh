#pragma once
// Validation of sorted pairs against CUB's two stable pair sorts.
#include "host/device_buffer.hpp"

#include <warpsort/warpsort.cuh>

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/mismatch.h>

#include <sstream>
#include <type_traits>

namespace warpsort {

namespace detail {

/// Sets `report` at the first position where keys (under equivalence) or values differ.
template <class Key, class Value, class Comp>
bool find_pair_mismatch(const Key* ref_keys, const Value* ref_values, const Key* keys,
                        const Value* values, std::size_t n, Comp comp, cudaStream_t stream,
                        const char* name, validation_report& report) {
  const auto k = thrust::mismatch(thrust::cuda::par.on(stream), ref_keys, ref_keys + n, keys,
                                  equivalent<Key, Comp>{comp});
  const auto v = thrust::mismatch(thrust::cuda::par.on(stream), ref_values, ref_values + n, values,
                                  thrust::equal_to<Value>());
  const std::size_t ki = static_cast<std::size_t>(k.first - ref_keys);
  const std::size_t vi = static_cast<std::size_t>(v.first - ref_values);
  if (ki == n && vi == n) return false;
  const std::size_t i = ki < vi ? ki : vi;
  Key rk{}, gk{};
  Value rv{}, gv{};
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(&rk, ref_keys + i, sizeof(Key), cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(&gk, keys + i, sizeof(Key), cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(&rv, ref_values + i, sizeof(Value), cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(&gv, values + i, sizeof(Value), cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  auto pair_text = [](const Key& key, const Value& value) {
    std::ostringstream s;
    s.precision(17);
    s << "(" << +key << ", " << +value << ")";
    return s.str();
  };
  report = {false, name, i, pair_text(rk, rv), pair_text(gk, gv)};
  return true;
}

}  // namespace detail

template <class Key, class Value, class Comp>
validation_report validate_pairs_against_references(const Key* d_keys_in, const Value* d_values_in,
                                                    const Key* d_keys_out,
                                                    const Value* d_values_out, std::size_t n,
                                                    Comp comp, cudaStream_t stream) {
  validation_report report;
  if (n == 0) return report;
  {  // cub::DeviceRadixSort::SortPairs (stable)
    detail::device_buffer<Key> k0(n), k1(n);
    detail::device_buffer<Value> v0(n), v1(n);
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(k0.get(), d_keys_in, n * sizeof(Key), cudaMemcpyDeviceToDevice, stream));
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(v0.get(), d_values_in, n * sizeof(Value), cudaMemcpyDeviceToDevice, stream));
    cub::DoubleBuffer<Key> keys(k0.get(), k1.get());
    cub::DoubleBuffer<Value> values(v0.get(), v1.get());
    std::size_t bytes = 0;
    auto radix = [&](void* temp) {
      if constexpr (order_traits<Key, Comp>::descending)
        return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, keys, values, n, 0, sizeof(Key) * 8, stream);
      else
        return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, n, 0, sizeof(Key) * 8, stream);
    };
    WARPSORT_CUDA_CHECK(radix(nullptr));
    detail::device_buffer<unsigned char> temp(bytes);
    WARPSORT_CUDA_CHECK(radix(temp.get()));
    if (detail::find_pair_mismatch(keys.Current(), values.Current(), d_keys_out, d_values_out, n,
                                   comp, stream, "cub::DeviceRadixSort::SortPairs", report))
      return report;
  }
  {  // cub::DeviceMergeSort::StableSortPairs
    detail::device_buffer<Key> keys(n);
    detail::device_buffer<Value> values(n);
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys.get(), d_keys_in, n * sizeof(Key), cudaMemcpyDeviceToDevice, stream));
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(values.get(), d_values_in, n * sizeof(Value), cudaMemcpyDeviceToDevice, stream));
    std::size_t bytes = 0;
    WARPSORT_CUDA_CHECK(cub::DeviceMergeSort::StableSortPairs(nullptr, bytes, keys.get(), values.get(),
                                                              static_cast<std::int64_t>(n), comp, stream));
    detail::device_buffer<unsigned char> temp(bytes);
    WARPSORT_CUDA_CHECK(cub::DeviceMergeSort::StableSortPairs(temp.get(), bytes, keys.get(), values.get(),
                                                              static_cast<std::int64_t>(n), comp, stream));
    detail::find_pair_mismatch(keys.get(), values.get(), d_keys_out, d_values_out, n, comp, stream,
                               "cub::DeviceMergeSort::StableSortPairs", report);
  }
  return report;
}

}  // namespace warpsort

// Explicit instantiation for one (key, value, order); see cmake/warpsort_instantiate.cmake.
#define WARPSORT_INSTANTIATE_VALIDATE_PAIRS(Key, Value, Comp)                                  \
  template warpsort::validation_report warpsort::validate_pairs_against_references<Key, Value, Comp>( \
      const Key*, const Value*, const Key*, const Value*, std::size_t, Comp, cudaStream_t);

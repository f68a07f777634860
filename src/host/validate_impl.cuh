#pragma once
// Validation: a sort's output against thrust::sort and cub::DeviceRadixSort of the same input.
#include "device_buffer.hpp"

#include <warpsort/warpsort.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/mismatch.h>
#include <thrust/sort.h>

#include <sstream>
#include <stdexcept>
#include <utility>
#include <type_traits>

namespace warpsort {

namespace {

/// Which radix sort reproduces the order: ascending for less, descending for greater.
template <class Comp> struct radix_direction;
template <class Key> struct radix_direction<less<Key>> { static constexpr bool descending = false; };
template <class Key> struct radix_direction<greater<Key>> { static constexpr bool descending = true; };

template <class Key, class Comp>
struct equivalent {
  Comp comp;
  __host__ __device__ bool operator()(const Key& a, const Key& b) const {
    return !comp(a, b) && !comp(b, a);
  }
};

template <class Key>
std::string format_key(const Key& k) {
  if constexpr (std::is_arithmetic_v<Key>) {
    std::ostringstream s;
    s.precision(17);
    s << +k;
    return s.str();
  } else {
    return "<key>";
  }
}

/// First position where `result` and `reference` differ under the order's equivalence.
template <class Key, class Comp>
bool find_mismatch(const Key* reference, const Key* result, std::size_t n, Comp comp,
                   cudaStream_t stream, const char* name, validation_report& report) {
  const auto hit = thrust::mismatch(thrust::cuda::par.on(stream), reference, reference + n,
                                    result, equivalent<Key, Comp>{comp});
  const std::size_t index = static_cast<std::size_t>(hit.first - reference);
  if (index == n) return false;
  Key expected{}, got{};
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(&expected, reference + index, sizeof(Key),
                                      cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(
      cudaMemcpyAsync(&got, result + index, sizeof(Key), cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  report = {false, name, index, format_key(expected), format_key(got)};
  return true;
}

}  // namespace

template <class Key, class Comp>
reference_checker<Key, Comp>::reference_checker(const Key* d_input, std::size_t n, Comp comp,
                                                cudaStream_t stream)
    : n_(n), comp_(comp), stream_(stream) {
  if (n == 0) return;
  detail::device_buffer<Key> thrust_sorted(n), radix_sorted(n), alternate(n);
  const std::size_t bytes = n * sizeof(Key);

  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(thrust_sorted.get(), d_input, bytes, cudaMemcpyDeviceToDevice, stream));
  thrust::sort(thrust::cuda::par.on(stream), thrust_sorted.get(), thrust_sorted.get() + n, comp);
  WARPSORT_CUDA_CHECK(cudaGetLastError());

  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(radix_sorted.get(), d_input, bytes, cudaMemcpyDeviceToDevice, stream));
  cub::DoubleBuffer<Key> keys(radix_sorted.get(), alternate.get());
  std::size_t temp_bytes = 0;
  auto radix = [&](void* temp) {
    if constexpr (radix_direction<Comp>::descending)
      return cub::DeviceRadixSort::SortKeysDescending(temp, temp_bytes, keys, n, 0,
                                                      sizeof(Key) * 8, stream);
    else
      return cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, n, 0, sizeof(Key) * 8, stream);
  };
  WARPSORT_CUDA_CHECK(radix(nullptr));
  {
    detail::device_buffer<unsigned char> temp(temp_bytes);
    WARPSORT_CUDA_CHECK(radix(temp.get()));
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  // keep whichever buffer holds the radix result
  if (keys.Current() != radix_sorted.get()) std::swap(radix_sorted, alternate);
  validation_report agree;
  if (find_mismatch(thrust_sorted.get(), radix_sorted.get(), n, comp, stream,
                    "thrust::sort vs cub::DeviceRadixSort", agree))
    throw std::logic_error("the reference sorts disagree: " + agree.message());
  thrust_sorted_ = thrust_sorted.release();
  radix_sorted_ = radix_sorted.release();
}

template <class Key, class Comp>
reference_checker<Key, Comp>::~reference_checker() {
  if (thrust_sorted_) cudaFree(thrust_sorted_);
  if (radix_sorted_) cudaFree(radix_sorted_);
}

template <class Key, class Comp>
validation_report reference_checker<Key, Comp>::check(const Key* d_result) const {
  validation_report report;
  if (n_ == 0) return report;
  if (!find_mismatch(thrust_sorted_, d_result, n_, comp_, stream_, "thrust::sort", report))
    find_mismatch(radix_sorted_, d_result, n_, comp_, stream_, "cub::DeviceRadixSort", report);
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return report;
}

template <class Key, class Comp>
validation_report validate_against_references(const Key* d_input, const Key* d_result,
                                              std::size_t n, Comp comp, cudaStream_t stream) {
  return reference_checker<Key, Comp>(d_input, n, comp, stream).check(d_result);
}

}  // namespace warpsort

// Explicit instantiation for one (key type, order); see src/stages/CMakeLists.txt.
#define WARPSORT_INSTANTIATE_VALIDATE(Key, Comp)                                                        \
  template class warpsort::reference_checker<Key, Comp>;                                                 \
  template warpsort::validation_report warpsort::validate_against_references<Key, Comp>(const Key*, const Key*,  \
                                                                    std::size_t, Comp,       \
                                                                    cudaStream_t);

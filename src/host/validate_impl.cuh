#pragma once
// Validation: a sort's output against thrust::sort and cub::DeviceRadixSort of the same input.
#include "device_buffer.hpp"

#include <warpsort/validate.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/mismatch.h>
#include <thrust/sort.h>

#include <sstream>
#include <stdexcept>
#include <utility>
#include <type_traits>

#include <cuda/std/bit>

namespace warpsort {

namespace {

template <class Key>
std::string format_key(const Key& k) {
  std::ostringstream s;
  if constexpr (std::is_floating_point_v<Key>) {
    using Bits = typename detail::float_bits<Key>::type;
    s.precision(17);
    s << k << " (bits 0x" << std::hex << cuda::std::bit_cast<Bits>(k) << ")";
  } else if constexpr (std::is_arithmetic_v<Key>) {
    s << +k;
  } else {
    s << "<key>";
  }
  return s.str();
}

/// First position where `result` and `reference` differ under `same`.
template <class Key, class Same>
bool find_mismatch(const Key* reference, const Key* result, std::size_t n, Same same,
                   cudaStream_t stream, const char* name, validation_report& report) {
  const auto hit = thrust::mismatch(thrust::cuda::par.on(stream), reference, reference + n, result, same);
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

/// Sorts src[0..n) with cub::DeviceRadixSort into a new buffer (ascending or descending).
template <class Key>
detail::device_buffer<Key> radix_sorted_copy(const Key* src, std::size_t n, bool descending,
                                             cudaStream_t stream) {
  detail::device_buffer<Key> current(n), alternate(n);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(current.get(), src, n * sizeof(Key), cudaMemcpyDeviceToDevice, stream));
  cub::DoubleBuffer<Key> keys(current.get(), alternate.get());
  std::size_t temp_bytes = 0;
  auto radix = [&](void* temp) {
    return descending ? cub::DeviceRadixSort::SortKeysDescending(temp, temp_bytes, keys, n, 0,
                                                                 sizeof(Key) * 8, stream)
                      : cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, n, 0,
                                                       sizeof(Key) * 8, stream);
  };
  WARPSORT_CUDA_CHECK(radix(nullptr));
  detail::device_buffer<unsigned char> temp(temp_bytes);
  WARPSORT_CUDA_CHECK(radix(temp.get()));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (keys.Current() != current.get()) return alternate;
  return current;
}

/// Floats: the bit patterns, as unsigned integers, sorted (a multiset fingerprint).
template <class Key>
detail::device_buffer<typename detail::float_bits<Key>::type> sorted_bit_patterns(
    const Key* src, std::size_t n, cudaStream_t stream) {
  using Bits = typename detail::float_bits<Key>::type;
  return radix_sorted_copy(reinterpret_cast<const Bits*>(src), n, false, stream);
}

}  // namespace

template <class Key, class Comp>
reference_checker<Key, Comp>::reference_checker(const Key* d_input, std::size_t n, Comp comp,
                                                cudaStream_t stream)
    : n_(n), comp_(comp), stream_(stream) {
  if (n == 0) return;
  detail::device_buffer<Key> thrust_sorted(n);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(thrust_sorted.get(), d_input, n * sizeof(Key),
                                      cudaMemcpyDeviceToDevice, stream));
  thrust::sort(thrust::cuda::par.on(stream), thrust_sorted.get(), thrust_sorted.get() + n, comp);
  WARPSORT_CUDA_CHECK(cudaGetLastError());
  auto radix_sorted = radix_sorted_copy(d_input, n, order_traits<Key, Comp>::descending, stream);
  validation_report agree;
  if (find_mismatch(thrust_sorted.get(), radix_sorted.get(), n, equivalent<Key, Comp>{comp},
                    stream, "thrust::sort vs cub::DeviceRadixSort", agree))
    throw std::logic_error("the reference sorts disagree: " + agree.message());
  if constexpr (std::is_floating_point_v<Key>)
    input_bits_ = sorted_bit_patterns(d_input, n, stream).release();
  thrust_sorted_ = thrust_sorted.release();
  radix_sorted_ = radix_sorted.release();
}

template <class Key, class Comp>
reference_checker<Key, Comp>::~reference_checker() {
  if (thrust_sorted_) cudaFree(thrust_sorted_);
  if (radix_sorted_) cudaFree(radix_sorted_);
  if (input_bits_) cudaFree(input_bits_);
}

template <class Key, class Comp>
validation_report reference_checker<Key, Comp>::check(const Key* d_result) const {
  validation_report report;
  if (n_ == 0) return report;
  const equivalent<Key, Comp> same{comp_};
  if (find_mismatch(thrust_sorted_, d_result, n_, same, stream_, "thrust::sort", report) ||
      find_mismatch(radix_sorted_, d_result, n_, same, stream_, "cub::DeviceRadixSort", report))
    return report;
  if constexpr (std::is_floating_point_v<Key>) {
    // Equivalence lets -0.0 and +0.0 trade places; the bit patterns must still be the input's.
    using Bits = typename detail::float_bits<Key>::type;
    const auto result_bits = sorted_bit_patterns(d_result, n_, stream_);
    find_mismatch(static_cast<const Bits*>(input_bits_), result_bits.get(), n_,
                  thrust::equal_to<Bits>(), stream_, "the input's bit patterns (multiset)", report);
  }
  return report;
}

template <class Key, class Comp>
validation_report validate_against_references(const Key* d_input, const Key* d_result,
                                              std::size_t n, Comp comp, cudaStream_t stream) {
  // One reference at a time, each freed before the next: at most 2 n keys beyond the input and
  // the result (plus the sorts' own storage), so sorts near the device's capacity can be checked.
  validation_report report;
  if (n == 0) return report;
  const equivalent<Key, Comp> same{comp};
  {
    detail::device_buffer<Key> reference(n);
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(reference.get(), d_input, n * sizeof(Key),
                                        cudaMemcpyDeviceToDevice, stream));
    thrust::sort(thrust::cuda::par.on(stream), reference.get(), reference.get() + n, comp);
    WARPSORT_CUDA_CHECK(cudaGetLastError());
    if (find_mismatch(reference.get(), d_result, n, same, stream, "thrust::sort", report)) return report;
  }
  {
    const auto reference = radix_sorted_copy(d_input, n, order_traits<Key, Comp>::descending, stream);
    if (find_mismatch(reference.get(), d_result, n, same, stream, "cub::DeviceRadixSort", report))
      return report;
  }
  if constexpr (std::is_floating_point_v<Key>) {
    using Bits = typename detail::float_bits<Key>::type;
    const auto input_bits = sorted_bit_patterns(d_input, n, stream);
    const auto result_bits = sorted_bit_patterns(d_result, n, stream);
    find_mismatch(input_bits.get(), result_bits.get(), n, thrust::equal_to<Bits>(), stream,
                  "the input's bit patterns (multiset)", report);
  }
  return report;
}

}  // namespace warpsort

// Explicit instantiation for one (key type, order); see cmake/warpsort_instantiate.cmake.
#define WARPSORT_INSTANTIATE_VALIDATE(Key, Comp)                                                        \
  template class warpsort::reference_checker<Key, Comp>;                                                 \
  template warpsort::validation_report warpsort::validate_against_references<Key, Comp>(const Key*, const Key*,  \
                                                                    std::size_t, Comp,       \
                                                                    cudaStream_t);

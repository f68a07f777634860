// Validation: a sort's output against thrust::sort and cub::DeviceRadixSort of the same input.
#include "device_buffer.hpp"
#include "stages/instantiations.hpp"

#include <warpsort/warpsort.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/mismatch.h>
#include <thrust/sort.h>

#include <sstream>
#include <type_traits>

namespace warpsort {

std::string validation_report::message() const {
  if (ok) return "valid: equal to thrust::sort and cub::DeviceRadixSort";
  std::ostringstream s;
  s << "mismatch against " << reference << " at index " << index << ": expected " << expected
    << ", got " << got;
  return s.str();
}

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
validation_report validate_against_references(const Key* d_input, const Key* d_result,
                                              std::size_t n, Comp comp, cudaStream_t stream) {
  validation_report report;
  if (n == 0) return report;
  detail::device_buffer<Key> reference(n), alternate(n);
  const std::size_t bytes = n * sizeof(Key);

  // thrust::sort with the comparator
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(reference.get(), d_input, bytes, cudaMemcpyDeviceToDevice, stream));
  thrust::sort(thrust::cuda::par.on(stream), reference.get(), reference.get() + n, comp);
  WARPSORT_CUDA_CHECK(cudaGetLastError());
  if (find_mismatch(reference.get(), d_result, n, comp, stream, "thrust::sort", report)) return report;

  // cub::DeviceRadixSort in the same direction
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(reference.get(), d_input, bytes, cudaMemcpyDeviceToDevice, stream));
  cub::DoubleBuffer<Key> keys(reference.get(), alternate.get());
  std::size_t temp_bytes = 0;
  constexpr bool descending = radix_direction<Comp>::descending;
  auto radix = [&](void* temp) {
    if constexpr (descending)
      return cub::DeviceRadixSort::SortKeysDescending(temp, temp_bytes, keys, n, 0,
                                                      sizeof(Key) * 8, stream);
    else
      return cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, n, 0, sizeof(Key) * 8, stream);
  };
  WARPSORT_CUDA_CHECK(radix(nullptr));
  detail::device_buffer<unsigned char> temp(temp_bytes);
  WARPSORT_CUDA_CHECK(radix(temp.get()));
  find_mismatch(keys.Current(), d_result, n, comp, stream, "cub::DeviceRadixSort", report);
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return report;
}

#define WARPSORT_INSTANTIATE(Key, Comp)                                                        \
  template validation_report validate_against_references<Key, Comp>(const Key*, const Key*,  \
                                                                    std::size_t, Comp,       \
                                                                    cudaStream_t);
WARPSORT_FOR_EACH_KEY_ORDER(WARPSORT_INSTANTIATE)

}  // namespace warpsort

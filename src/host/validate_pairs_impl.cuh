#pragma once
// Validation of sorted pairs against CUB's two stable pair sorts.
#include "host/device_buffer.hpp"

#include <warpsort/detail/cub_merge_sort.cuh>
#include <warpsort/validate.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/find.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/mismatch.h>
#include <thrust/sort.h>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

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

template <class T>
std::string number_text(const T& v) {
  std::ostringstream s;
  s.precision(17);
  s << +v;
  return s.str();
}

template <class T>
T element_at(const T* d_ptr, std::size_t i, cudaStream_t stream) {
  T value{};
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(&value, d_ptr + i, sizeof(T), cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

/// True at i where the output pair did not travel together: its value is no input index, or
/// the input pair that value names has another key (compared bit for bit).
template <class Key, class Value>
struct pair_broken {
  using bits = std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>;
  const Key* keys_in;
  const Key* keys_out;
  const Value* values_out;
  std::size_t n;
  __device__ bool operator()(std::size_t i) const {
    const Value v = values_out[i];
    if (static_cast<std::size_t>(v) >= n) return true;
    return reinterpret_cast<const bits*>(keys_in)[v] != reinterpret_cast<const bits*>(keys_out)[i];
  }
};

/// The input pairs sorted by cub::DeviceMergeSort::StableSortPairs into new buffers (its
/// temporary storage freed on return).
template <class Key, class Value, class Comp>
std::pair<device_buffer<Key>, device_buffer<Value>> stable_sorted_pairs(const Key* d_keys_in,
                                                                       const Value* d_values_in,
                                                                       std::size_t n, Comp comp,
                                                                       cudaStream_t stream) {
  device_buffer<Key> keys(n);
  device_buffer<Value> values(n);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(keys.get(), d_keys_in, n * sizeof(Key), cudaMemcpyDeviceToDevice, stream));
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(values.get(), d_values_in, n * sizeof(Value), cudaMemcpyDeviceToDevice, stream));
  std::size_t bytes = 0;
  WARPSORT_CUDA_CHECK(warpsort::detail::cub_merge_sort::stable_sort_pairs(
      nullptr, bytes, keys.get(), values.get(), static_cast<std::int64_t>(n), comp, stream));
  device_buffer<unsigned char> temp(bytes);
  WARPSORT_CUDA_CHECK(warpsort::detail::cub_merge_sort::stable_sort_pairs(
      temp.get(), bytes, keys.get(), values.get(), static_cast<std::int64_t>(n), comp, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {std::move(keys), std::move(values)};
}

/// The input pairs sorted by cub::DeviceRadixSort::SortPairs (stable; SortPairsDescending for
/// a descending order) into new buffers (its temporary storage and spare halves freed on return).
template <class Key, class Value, class Comp>
std::pair<device_buffer<Key>, device_buffer<Value>> radix_sorted_pairs(const Key* d_keys_in,
                                                                      const Value* d_values_in,
                                                                      std::size_t n, Comp,
                                                                      cudaStream_t stream) {
  device_buffer<Key> k0(n), k1(n);
  device_buffer<Value> v0(n), v1(n);
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
  device_buffer<unsigned char> temp(bytes);
  WARPSORT_CUDA_CHECK(radix(temp.get()));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (keys.Current() != k0.get()) std::swap(k0, k1);
  if (values.Current() != v0.get()) std::swap(v0, v1);
  return {std::move(k0), std::move(v0)};
}

}  // namespace detail

template <class Key, class Value, class Comp>
validation_report validate_pairs_against_references(const Key* d_keys_in, const Value* d_values_in,
                                                    const Key* d_keys_out,
                                                    const Value* d_values_out, std::size_t n,
                                                    Comp comp, cudaStream_t stream) {
  validation_report report;
  if (n == 0) return report;
  {
    const auto [keys, values] = detail::radix_sorted_pairs(d_keys_in, d_values_in, n, comp, stream);
    if (detail::find_pair_mismatch(keys.get(), values.get(), d_keys_out, d_values_out, n, comp,
                                   stream, "cub::DeviceRadixSort::SortPairs", report))
      return report;
  }
  {
    const auto [keys, values] = detail::stable_sorted_pairs(d_keys_in, d_values_in, n, comp, stream);
    detail::find_pair_mismatch(keys.get(), values.get(), d_keys_out, d_values_out, n, comp, stream,
                               "cub::DeviceMergeSort::StableSortPairs", report);
  }
  return report;
}

template <class Key, class Value, class Comp>
pair_reference_checker<Key, Value, Comp>::pair_reference_checker(const Key* d_keys_in,
                                                                 const Value* d_values_in,
                                                                 std::size_t n, Comp comp,
                                                                 cudaStream_t stream)
    : keys_in_(d_keys_in), n_(n), comp_(comp), stream_(stream) {
  static_assert(sizeof(Key) == 4 || sizeof(Key) == 8, "4- or 8-byte keys");
  if (n == 0) return;
  const auto policy = thrust::cuda::par.on(stream);
  const auto not_index = thrust::mismatch(policy, d_values_in, d_values_in + n,
                                          thrust::counting_iterator<Value>(0));
  if (not_index.first != d_values_in + n)
    throw input_error("pair_reference_checker: the input values must be the indices 0..n-1; value " +
                      std::to_string(not_index.first - d_values_in) + " is not");
  auto [keys, values] = detail::stable_sorted_pairs(d_keys_in, d_values_in, n, comp, stream);
  {  // the kept reference checked once against an independent one, the radix sort
    const auto [radix_keys, radix_values] =
        detail::radix_sorted_pairs(d_keys_in, d_values_in, n, comp, stream);
    validation_report agree;
    if (detail::find_pair_mismatch(radix_keys.get(), radix_values.get(), keys.get(), values.get(),
                                   n, comp, stream,
                                   "cub::DeviceRadixSort::SortPairs (against StableSortPairs)", agree))
      throw std::logic_error("the pair references disagree: " + agree.message());
  }
  ref_keys_ = keys.release();
  ref_values_ = values.release();
}

template <class Key, class Value, class Comp>
pair_reference_checker<Key, Value, Comp>::~pair_reference_checker() {
  if (ref_keys_) cudaFree(ref_keys_);
  if (ref_values_) cudaFree(ref_values_);
}

template <class Key, class Value, class Comp>
validation_report pair_reference_checker<Key, Value, Comp>::check(const Key* d_keys,
                                                                  const Value* d_values,
                                                                  bool stable) const {
  validation_report report;
  if (n_ == 0) return report;
  const auto policy = thrust::cuda::par.on(stream_);
  const thrust::counting_iterator<std::size_t> first(0), last(n_);
  const auto broken = thrust::find_if(policy, first, last,
                                      detail::pair_broken<Key, Value>{keys_in_, d_keys, d_values, n_});
  if (broken != last) {
    const std::size_t i = *broken;
    const Value v = detail::element_at(d_values, i, stream_);
    const std::string got = "(" + detail::number_text(detail::element_at(d_keys, i, stream_)) +
                            ", " + detail::number_text(v) + ")";
    if (static_cast<std::size_t>(v) >= n_)
      return {false, "the input indices (values must be < n = " + std::to_string(n_) + ")", i,
              "an input index", got};
    return {false, "the input pair its value names (keys and values must move together)", i,
            "(" + detail::number_text(detail::element_at(keys_in_, static_cast<std::size_t>(v), stream_)) +
                ", " + detail::number_text(v) + ")",
            got};
  }
  if (stable) {
    // Keys under equivalence and values exactly: then the pairs are the stable order, bit for bit.
    detail::find_pair_mismatch(ref_keys_, ref_values_, d_keys, d_values, n_, comp_, stream_,
                               "cub::DeviceMergeSort::StableSortPairs (stable)", report);
    return report;
  }
  const auto k = thrust::mismatch(policy, ref_keys_, ref_keys_ + n_, d_keys, equivalent<Key, Comp>{comp_});
  if (k.first != ref_keys_ + n_) {
    const std::size_t i = static_cast<std::size_t>(k.first - ref_keys_);
    return {false, "cub::DeviceMergeSort::StableSortPairs (keys)", i,
            detail::number_text(detail::element_at(ref_keys_, i, stream_)),
            detail::number_text(detail::element_at(d_keys, i, stream_))};
  }
  // Unstable: every value must still occur once (sorted, the values are 0..n-1).
  detail::device_buffer<Value> sorted_values(n_);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(sorted_values.get(), d_values, n_ * sizeof(Value),
                                      cudaMemcpyDeviceToDevice, stream_));
  thrust::sort(policy, sorted_values.get(), sorted_values.get() + n_);
  const auto p = thrust::mismatch(policy, sorted_values.get(), sorted_values.get() + n_,
                                  thrust::counting_iterator<Value>(0));
  if (p.first != sorted_values.get() + n_) {
    const std::size_t i = static_cast<std::size_t>(p.first - sorted_values.get());
    return {false, "a permutation of 0..n-1 (the values, sorted)", i, std::to_string(i),
            detail::number_text(detail::element_at(sorted_values.get(), i, stream_))};
  }
  return report;
}

}  // namespace warpsort

// Explicit instantiation for one (key, value, order); see cmake/warpsort_instantiate.cmake.
#define WARPSORT_INSTANTIATE_VALIDATE_PAIRS(Key, Value, Comp)                                  \
  template class warpsort::pair_reference_checker<Key, Value, Comp>;                           \
  template warpsort::validation_report warpsort::validate_pairs_against_references<Key, Value, Comp>( \
      const Key*, const Value*, const Key*, const Value*, std::size_t, Comp, cudaStream_t);

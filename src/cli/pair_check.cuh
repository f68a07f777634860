// Validation of every run of a pairs benchmark (bench --values). The input pairs are
// (keys_in[i], i). One stable reference per input: cub::DeviceMergeSort::StableSortPairs (the
// cub_merge_stable_pairs baseline), checked once with validate_pairs_against_references (which
// compares it with cub::DeviceRadixSort::SortPairs, an independent algorithm, and with its own
// StableSortPairs). Each run's output is then checked on the device:
//  - every value is an index < n and the key at i is keys_in[value[i]] bit for bit (the pairs
//    travelled together);
//  - the keys equal the reference's under the order's equivalence;
//  - stable algorithms: the values equal the reference's exactly (with the above, the keys are
//    then bit-exact too); unstable ones: the values are a permutation of 0..n-1 (a sorted copy
//    equals 0..n-1).
#pragma once

#include "baselines/gpu_pair_baselines.cuh"
#include "cli/sort_run.cuh"
#include "host/device_buffer.hpp"

#include <warpsort/error.hpp>
#include <warpsort/warpsort.cuh>

#include <thrust/execution_policy.h>
#include <thrust/find.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/mismatch.h>
#include <thrust/sort.h>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace warpsort::cli {

namespace pair_check_detail {

template <class T>
using bits_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

/// True at i where the pair did not travel together (or the value is no index).
template <class Key, class Value>
struct pair_broken {
  const Key* keys_in;
  const Key* keys_out;
  const Value* values;
  std::size_t n;
  __device__ bool operator()(std::size_t i) const {
    const Value v = values[i];
    if (static_cast<std::size_t>(v) >= n) return true;
    return reinterpret_cast<const bits_t<Key>*>(keys_in)[v] !=
           reinterpret_cast<const bits_t<Key>*>(keys_out)[i];
  }
};

template <class T>
T element(const T* d_ptr, std::size_t i, cudaStream_t stream) {
  T value{};
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(&value, d_ptr + i, sizeof(T), cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

template <class T>
std::string text(const T& v) {
  std::ostringstream s;
  s.precision(17);
  s << +v;
  return s.str();
}

}  // namespace pair_check_detail

template <class Key, class Value, class Comp = warpsort::less<Key>>
class pair_checker {
  static_assert(sizeof(Key) == 4 || sizeof(Key) == 8, "4- or 8-byte keys");

 public:
  /// d_keys_in / d_values_in: the pristine input (values 0..n-1); kept, not copied.
  pair_checker(const Key* d_keys_in, const Value* d_values_in, std::size_t n, cudaStream_t stream)
      : keys_in_(d_keys_in), values_in_(d_values_in), n_(n), stream_(stream),
        ref_keys_(n), ref_values_(n) {
    if (n == 0) return;
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(ref_keys_.get(), d_keys_in, n * sizeof(Key),
                                        cudaMemcpyDeviceToDevice, stream));
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(ref_values_.get(), d_values_in, n * sizeof(Value),
                                        cudaMemcpyDeviceToDevice, stream));
    {
      auto sorter = baselines::make_gpu_pair_baseline<Key, Value>("cub_merge_stable_pairs");
      sorter->prepare(n);
      sorter->sort(ref_keys_.get(), ref_values_.get(), n, descending, stream);
      WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    }  // its temporary storage freed before the check below
    const validation_report agree = validate_pairs_against_references<Key, Value, Comp>(
        d_keys_in, d_values_in, ref_keys_.get(), ref_values_.get(), n, Comp{}, stream);
    if (!agree.ok) throw std::logic_error("the pair references disagree: " + agree.message());
  }

  /// Empty when d_keys/d_values[0..n) is a correct sort of the input pairs (stable: the stable
  /// one), else what is wrong. Synchronizes the stream.
  std::string check(const Key* d_keys, const Value* d_values, bool stable) const {
    namespace d = pair_check_detail;
    if (n_ == 0) return {};
    const auto policy = thrust::cuda::par.on(stream_);
    const thrust::counting_iterator<std::size_t> first(0), last(n_);
    const auto broken = thrust::find_if(policy, first, last,
                                        d::pair_broken<Key, Value>{keys_in_, d_keys, d_values, n_});
    if (broken != last) {
      const std::size_t i = *broken;
      const Value v = d::element(d_values, i, stream_);
      if (static_cast<std::size_t>(v) >= n_)
        return "value at index " + std::to_string(i) + " is " + d::text(v) +
               ", not an input index (n = " + std::to_string(n_) + ")";
      return "pair at index " + std::to_string(i) + " is (" + d::text(d::element(d_keys, i, stream_)) +
             ", " + d::text(v) + ") but input " + d::text(v) + " has key " +
             d::text(d::element(keys_in_, static_cast<std::size_t>(v), stream_)) +
             " (keys and values did not move together)";
    }
    const auto k = thrust::mismatch(policy, ref_keys_.get(), ref_keys_.get() + n_, d_keys,
                                    equivalent<Key, Comp>{Comp{}});
    if (k.first != ref_keys_.get() + n_) {
      const std::size_t i = static_cast<std::size_t>(k.first - ref_keys_.get());
      return "key mismatch against the stable reference (cub::DeviceMergeSort::StableSortPairs) "
             "at index " + std::to_string(i) + ": expected " +
             d::text(d::element(ref_keys_.get(), i, stream_)) + ", got " +
             d::text(d::element(d_keys, i, stream_));
    }
    if (stable) {
      const auto v = thrust::mismatch(policy, ref_values_.get(), ref_values_.get() + n_, d_values);
      if (v.first != ref_values_.get() + n_) {
        const std::size_t i = static_cast<std::size_t>(v.first - ref_values_.get());
        return "value mismatch against the stable reference (cub::DeviceMergeSort::"
               "StableSortPairs) at index " + std::to_string(i) + ": expected " +
               d::text(d::element(ref_values_.get(), i, stream_)) + ", got " +
               d::text(d::element(d_values, i, stream_)) + " (not stable)";
      }
      return {};
    }
    // Unstable: the values must be a permutation of 0..n-1.
    if (scratch_.size() < n_) scratch_ = detail::device_buffer<Value>(n_);
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(scratch_.get(), d_values, n_ * sizeof(Value),
                                        cudaMemcpyDeviceToDevice, stream_));
    thrust::sort(policy, scratch_.get(), scratch_.get() + n_);
    const auto p = thrust::mismatch(policy, scratch_.get(), scratch_.get() + n_,
                                    thrust::counting_iterator<Value>(0));
    if (p.first != scratch_.get() + n_) {
      const std::size_t i = static_cast<std::size_t>(p.first - scratch_.get());
      return "the values are not a permutation of 0..n-1: sorted, position " + std::to_string(i) +
             " holds " + d::text(d::element(scratch_.get(), i, stream_));
    }
    return {};
  }

 private:
  static constexpr bool descending = std::is_same_v<Comp, warpsort::greater<Key>>;
  const Key* keys_in_;
  const Value* values_in_;
  std::size_t n_;
  cudaStream_t stream_;
  detail::device_buffer<Key> ref_keys_;
  detail::device_buffer<Value> ref_values_;
  mutable detail::device_buffer<Value> scratch_;  // the permutation check's copy
};

}  // namespace warpsort::cli

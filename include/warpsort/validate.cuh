// Validation of sorted key-value pairs for many outputs of one input.
#pragma once

#include <warpsort/warpsort.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace warpsort {

/// The pair check for many outputs of one input (benchmarks validate every run). The input
/// values must be the indices 0..n-1 (an argsort; input_error otherwise): that lets check()
/// prove that keys and values moved together. The stable reference,
/// cub::DeviceMergeSort::StableSortPairs, is computed once, checked once with
/// validate_pairs_against_references, and kept on the device (n keys and n values); d_keys_in
/// must stay valid and unchanged while the checker lives.
template <class Key, class Value, class Comp = less<Key>>
class pair_reference_checker {
 public:
  pair_reference_checker(const Key* d_keys_in, const Value* d_values_in, std::size_t n,
                         Comp comp = {}, cudaStream_t stream = 0);
  ~pair_reference_checker();
  pair_reference_checker(const pair_reference_checker&) = delete;
  pair_reference_checker& operator=(const pair_reference_checker&) = delete;
  /// Checks d_keys/d_values[0..n): every pair is an input pair (its value an index < n whose
  /// input key it carries, bit for bit); stable: equal to the stable reference (keys under the
  /// order's equivalence, values exactly); not stable: keys equal to it under equivalence and the
  /// values a permutation of 0..n-1. Synchronizes the stream.
  validation_report check(const Key* d_keys, const Value* d_values, bool stable = true) const;

 private:
  const Key* keys_in_;
  std::size_t n_;
  Comp comp_;
  cudaStream_t stream_;
  Key* ref_keys_ = nullptr;
  Value* ref_values_ = nullptr;
};

}  // namespace warpsort

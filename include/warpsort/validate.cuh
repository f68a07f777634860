// Validation: a sort's output checked against reference sorts of the same input (Thrust and
// CUB), for keys and for key-value pairs, once (validate_*_against_references) or for many
// outputs of one input (reference_checker, pair_reference_checker). Compiled into the
// warpsort_validate library for the key and value types of key_types.hpp and the built-in orders.
#pragma once

#include <warpsort/warpsort.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace warpsort {

/// Result of checking a sort's output against reference sorts of the same input.
struct validation_report {
  bool ok = true;
  std::string reference;       // which reference disagreed ("thrust::sort", "cub::DeviceRadixSort")
  std::size_t index = 0;       // first mismatching position
  std::string expected, got;   // the reference's key and ours at that position
  std::string message() const;
};

/// Sorts copies of d_input with thrust::sort and cub::DeviceRadixSort and compares d_result
/// with each, position by position, under the order's equivalence (floats: also the multiset
/// of bit patterns). One reference at a time: the device needs room for 2 n more keys plus the
/// reference sorts' storage. Synchronizes the stream.
template <class Key, class Comp = less<Key>>
validation_report validate_against_references(const Key* d_input, const Key* d_result,
                                              std::size_t n, Comp comp = {},
                                              cudaStream_t stream = 0);

/// Checks sorted pairs against two stable references, cub::DeviceRadixSort::SortPairs and
/// cub::DeviceMergeSort::StableSortPairs: keys under the order's equivalence, values exactly.
/// One reference at a time. Synchronizes the stream.
template <class Key, class Value, class Comp = less<Key>>
validation_report validate_pairs_against_references(const Key* d_keys_in, const Value* d_values_in,
                                                    const Key* d_keys_out,
                                                    const Value* d_values_out, std::size_t n,
                                                    Comp comp = {}, cudaStream_t stream = 0);

/// The same check for many outputs of one input (benchmarks validate every run): both
/// references are computed once, checked against each other, and kept on the device
/// (2 n keys); check() then costs one pass over the output per reference. For floats, where
/// the order's equivalence lets -0.0 and +0.0 trade places, check() also compares the multiset
/// of bit patterns with the input's (n more keys kept, and a radix sort per check).
template <class Key, class Comp = less<Key>>
class reference_checker {
 public:
  reference_checker(const Key* d_input, std::size_t n, Comp comp = {}, cudaStream_t stream = 0);
  ~reference_checker();
  reference_checker(const reference_checker&) = delete;
  reference_checker& operator=(const reference_checker&) = delete;
  /// Compares d_result[0..n) with both references; synchronizes the stream.
  validation_report check(const Key* d_result) const;
  /// The thrust::sort reference, on the device.
  const Key* sorted() const { return thrust_sorted_; }

 private:
  std::size_t n_;
  Comp comp_;
  cudaStream_t stream_;
  Key* thrust_sorted_ = nullptr;
  Key* radix_sorted_ = nullptr;
  void* input_bits_ = nullptr;  // floats: the input's bit patterns, sorted
};


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

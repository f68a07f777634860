// One validated warpsort run the memory-lean way, shared by `warpsort sort` and `warpsort fuzz`:
// the keys go to the device from a host copy, warpsort sorts them (in place, or into a second
// buffer poisoned with 0xA5), its temporary storage (poisoned too) is freed, and only then is
// the input uploaded again for validate_against_references, so no reference sort ever shares
// the device with warpsort's storage. Pairs (--values): the values are the input indices,
// generated on the device; validate_sorted_pairs checks with validate_pairs_against_references.
#pragma once

#include "cli/key_dispatch.hpp"
#include "host/device_buffer.hpp"

#include "cli/tuning.hpp"

#include <warpsort/error.hpp>

#include <warpsort/warpsort.cuh>

#include <cuda_runtime_api.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/mismatch.h>
#include <thrust/sequence.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace warpsort::cli {

/// Calls f(key_tag<Key>{}, Comp{}) for the Key of `type` and the order (warpsort::less or
/// warpsort::greater); in f: `using Key = typename decltype(tag)::type; using Comp = decltype(comp);`.
template <class F>
auto with_key_and_order(data::key_type type, bool descending, F&& f) {
  return with_key_type(type, [&](auto tag) {
    using Key = typename decltype(tag)::type;
    return descending ? f(tag, warpsort::greater<Key>{}) : f(tag, warpsort::less<Key>{});
  });
}

/// The byte poisoned buffers are filled with before a sort.
inline constexpr int poison_byte = 0xA5;

inline void poison(void* d_ptr, std::size_t bytes, cudaStream_t stream) {
  if (bytes > 0) WARPSORT_CUDA_CHECK(cudaMemsetAsync(d_ptr, poison_byte, bytes, stream));
}

template <class Key>
void upload(Key* d_keys, const Key* h_keys, std::size_t n, cudaStream_t stream) {
  if (n > 0)
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(d_keys, h_keys, n * sizeof(Key), cudaMemcpyHostToDevice, stream));
}

template <class Key>
void download(Key* h_keys, const Key* d_keys, std::size_t n, cudaStream_t stream) {
  if (n > 0)
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(h_keys, d_keys, n * sizeof(Key), cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

/// warpsort's temporary bytes for n keys in this order.
template <class Key, class Comp>
std::size_t warpsort_temp_bytes(std::size_t n) {
  std::size_t bytes = 0;
  sort_keys<Key, Comp>(nullptr, bytes, nullptr, nullptr, n, Comp{}, 0, tuned_policy<Key>());
  return bytes;
}

/// warpsort's temporary bytes for n pairs in this order (n < 2^32).
template <class Key, class Value, class Comp>
std::size_t warpsort_pair_temp_bytes(std::size_t n) {
  std::size_t bytes = 0;
  sort_pairs<Key, Value, Comp>(nullptr, bytes, nullptr, nullptr, nullptr, nullptr, n, Comp{}, 0,
                               tuned_policy<Key>());
  return bytes;
}

/// d_values[i] = i for i < n (the values of an argsort). Synchronizes the stream.
template <class Value>
void fill_indices(Value* d_values, std::size_t n, cudaStream_t stream) {
  if (n > 0) thrust::sequence(thrust::cuda::par.on(stream), d_values, d_values + n, Value{0});
}

/// The first i with d_values[i] != i; nullopt if none. Synchronizes the stream.
template <class Value>
std::optional<std::size_t> first_non_index(const Value* d_values, std::size_t n, cudaStream_t stream) {
  if (n == 0) return std::nullopt;
  const auto m = thrust::mismatch(thrust::cuda::par.on(stream), d_values, d_values + n,
                                  thrust::counting_iterator<Value>(0));
  if (m.first == d_values + n) return std::nullopt;
  return static_cast<std::size_t>(m.first - d_values);
}

/// The first index where the device keys differ bit-wise from the host keys (downloaded in
/// pieces of at most 8 Mi keys, so the host needs no second full copy); nullopt if none.
template <class Key>
std::optional<std::size_t> first_changed_key(const Key* d_keys, const Key* h_keys, std::size_t n,
                                             cudaStream_t stream) {
  const std::size_t piece = std::min<std::size_t>(n, std::size_t{1} << 23);
  std::vector<Key> staging(piece);
  for (std::size_t begin = 0; begin < n; begin += piece) {
    const std::size_t count = std::min(piece, n - begin);
    download(staging.data(), d_keys + begin, count, stream);
    if (std::memcmp(staging.data(), h_keys + begin, count * sizeof(Key)) == 0) continue;
    for (std::size_t i = 0; i < count; ++i)
      if (std::memcmp(&staging[i], h_keys + begin + i, sizeof(Key)) != 0) return begin + i;
  }
  return std::nullopt;
}

/// Debug: flips the lowest bit of d_keys[index] (every key type then compares differently, or,
/// for floats the comparator cannot tell apart, differs in the bit-pattern multiset).
template <class Key>
void corrupt_key(Key* d_keys, std::size_t index, cudaStream_t stream) {
  unsigned char low = 0;  // keys are little-endian: byte 0 holds the lowest bit
  unsigned char* byte = reinterpret_cast<unsigned char*>(d_keys + index);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(&low, byte, 1, cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  low ^= 1;
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(byte, &low, 1, cudaMemcpyHostToDevice, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

/// Validates d_sorted, warpsort's output for the input h_input[0..n), after warpsort's temporary
/// storage has been freed. In place (d_input == nullptr): uploads the input into a new buffer
/// for the duration of the check. Out of place: d_input is the buffer the sort read; it must
/// still hold the input bit for bit (a sort must not write its input), and is then the
/// validator's input. Returns an empty string when valid, else what is wrong.
template <class Key, class Comp>
std::string validate_sorted(const Key* h_input, const Key* d_input, const Key* d_sorted, std::size_t n,
                            cudaStream_t stream) {
  if (d_input != nullptr) {
    if (const auto changed = first_changed_key(d_input, h_input, n, stream))
      return "the sort modified its (const) input buffer at index " + std::to_string(*changed);
    const validation_report report =
        validate_against_references<Key, Comp>(d_input, d_sorted, n, Comp{}, stream);
    return report.ok ? std::string() : report.message();
  }
  const detail::device_buffer<Key> input(n);
  upload(input.get(), h_input, n, stream);
  const validation_report report =
      validate_against_references<Key, Comp>(input.get(), d_sorted, n, Comp{}, stream);
  return report.ok ? std::string() : report.message();
}

/// The same for pairs: d_keys_out / d_values_out, warpsort's output for the input pairs
/// (h_keys[i], i), validated with validate_pairs_against_references after warpsort's temporary
/// storage has been freed. In place (d_keys_in == nullptr): the input keys are uploaded and the
/// indices generated into new buffers for the check. Out of place: d_keys_in / d_values_in are
/// the buffers the sort read; they must still hold the input (keys bit for bit, values 0..n-1).
template <class Key, class Value, class Comp>
std::string validate_sorted_pairs(const Key* h_keys, const Key* d_keys_in, const Value* d_values_in,
                                  const Key* d_keys_out, const Value* d_values_out, std::size_t n,
                                  cudaStream_t stream) {
  if (d_keys_in != nullptr) {
    if (const auto changed = first_changed_key(d_keys_in, h_keys, n, stream))
      return "the sort modified its (const) input keys at index " + std::to_string(*changed);
    if (const auto changed = first_non_index(d_values_in, n, stream))
      return "the sort modified its (const) input values at index " + std::to_string(*changed);
    const validation_report report = validate_pairs_against_references<Key, Value, Comp>(
        d_keys_in, d_values_in, d_keys_out, d_values_out, n, Comp{}, stream);
    return report.ok ? std::string() : report.message();
  }
  const detail::device_buffer<Key> keys(n);
  const detail::device_buffer<Value> values(n);
  upload(keys.get(), h_keys, n, stream);
  fill_indices(values.get(), n, stream);
  const validation_report report = validate_pairs_against_references<Key, Value, Comp>(
      keys.get(), values.get(), d_keys_out, d_values_out, n, Comp{}, stream);
  return report.ok ? std::string() : report.message();
}

}  // namespace warpsort::cli

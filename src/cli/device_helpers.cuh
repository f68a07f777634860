// The CLI's small device-memory operations (upload, download, copy, poison, the indices of an
// argsort, the checks that an input was left alone, the fault `fuzz --inject-failure` plants),
// shared by workload.cuh and the commands.
#pragma once

#include <warpsort/error.hpp>

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

template <class T>
void copy_on_device(T* d_to, const T* d_from, std::size_t n, cudaStream_t stream) {
  if (n > 0)
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(d_to, d_from, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
}

template <class Key>
void download(Key* h_keys, const Key* d_keys, std::size_t n, cudaStream_t stream) {
  if (n > 0)
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(h_keys, d_keys, n * sizeof(Key), cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
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

}  // namespace warpsort::cli

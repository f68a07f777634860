// The comparator key's sorts and checks (key128_workload.cuh): warpsort's pipeline instantiated
// for it through custom.cuh, thrust::sort with the same comparator as the keys' reference, and
// the pairs' check, which needs no reference.
#include "cli/key128_workload.cuh"

#include <warpsort/custom.cuh>

#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>

namespace warpsort::cli {

using data::key128;
using data::key128_less;

namespace {

/// The default policy for 16-byte keys with WARPSORT_POLICY applied, read once.
const policy& key128_policy() {
  static const policy p =
      tuning_from(default_policy<key128>(), sizeof(key128), std::getenv("WARPSORT_POLICY"), nullptr)
          .library;
  return p;
}

__host__ __device__ bool same_bits(const key128& a, const key128& b) {
  return a.hi == b.hi && a.lo == b.lo;
}

std::string key_text(const key128& k) { return fmt::format("(0x{:016x}, 0x{:016x})", k.hi, k.lo); }

constexpr unsigned check_threads = 256;
unsigned check_blocks(std::size_t n) {
  return static_cast<unsigned>(std::min<std::size_t>((n + check_threads - 1) / check_threads, 65535));
}

/// *first = the least i < n where a[i] and b[i] differ (left as it was where none does).
__global__ void first_difference_kernel(const key128* a, const key128* b, std::size_t n,
                                        unsigned long long* first) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    if (!same_bits(a[i], b[i])) atomicMin(first, static_cast<unsigned long long>(i));
}

/// Pair i is faulty when its value is no index, its key is not that index's input key, it
/// orders before pair i - 1, or (stable) it equals pair i - 1 with a smaller index; seen[v]
/// counts the pairs carrying index v.
template <class Value>
__global__ void pair_faults_kernel(const key128* keys_in, const key128* keys, const Value* values,
                                   std::size_t n, bool stable, unsigned* seen,
                                   unsigned long long* first) {
  const key128_less before;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const Value v = values[i];
    bool fault = static_cast<std::size_t>(v) >= n || !same_bits(keys_in[v], keys[i]);
    if (static_cast<std::size_t>(v) < n) atomicAdd(&seen[v], 1u);
    if (i > 0 && !fault) {
      if (before(keys[i], keys[i - 1])) fault = true;
      else if (stable && !before(keys[i - 1], keys[i]) && values[i - 1] >= v) fault = true;
    }
    if (fault) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

/// *first = the least index v < n that not exactly one pair carries.
__global__ void unseen_kernel(const unsigned* seen, std::size_t n, unsigned long long* first) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    if (seen[i] != 1) atomicMin(first, static_cast<unsigned long long>(i));
}

unsigned long long read_first(const unsigned long long* d_first, cudaStream_t stream) {
  unsigned long long first = 0;
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(&first, d_first, sizeof first, cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return first;
}

template <class T>
T read_at(const T* d, std::size_t i, cudaStream_t stream) {
  T x{};
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(&x, d + i, sizeof x, cudaMemcpyDeviceToHost, stream));
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return x;
}

constexpr unsigned long long none = std::numeric_limits<unsigned long long>::max();

}  // namespace

template <class Value>
void sort_key128(void* d_temp, std::size_t& temp_bytes, const key128* keys_in, key128* keys_out,
                 const Value* values_in, Value* values_out, std::size_t n, cudaStream_t stream,
                 stage_times* times) {
  if constexpr (std::is_void_v<Value>)
    sort_keys<key128, key128_less>(d_temp, temp_bytes, keys_in, keys_out, n, key128_less{}, stream,
                                   key128_policy(), times);
  else
    sort_pairs<key128, Value, key128_less>(d_temp, temp_bytes, keys_in, keys_out, values_in,
                                           values_out, n, key128_less{}, stream, key128_policy(),
                                           times);
}

template void sort_key128<void>(void*, std::size_t&, const key128*, key128*, const void*, void*,
                                std::size_t, cudaStream_t, stage_times*);
template void sort_key128<std::uint32_t>(void*, std::size_t&, const key128*, key128*,
                                         const std::uint32_t*, std::uint32_t*, std::size_t,
                                         cudaStream_t, stage_times*);
template void sort_key128<std::uint64_t>(void*, std::size_t&, const key128*, key128*,
                                         const std::uint64_t*, std::uint64_t*, std::size_t,
                                         cudaStream_t, stage_times*);

key128_reference::key128_reference(const key128* d_input, std::size_t n, cudaStream_t stream)
    : sorted_(n), n_(n), stream_(stream) {
  copy_on_device(sorted_.get(), d_input, n, stream);
  if (n > 1) thrust::sort(thrust::cuda::par.on(stream), sorted_.get(), sorted_.get() + n, key128_less{});
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

std::string key128_reference::check(const key128* d_out) const {
  if (n_ == 0) return {};
  detail::device_buffer<unsigned long long> first(1);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(first.get(), &none, sizeof none, cudaMemcpyHostToDevice, stream_));
  first_difference_kernel<<<check_blocks(n_), check_threads, 0, stream_>>>(d_out, sorted_.get(), n_,
                                                                           first.get());
  WARPSORT_CUDA_CHECK(cudaGetLastError());
  const unsigned long long i = read_first(first.get(), stream_);
  if (i == none) return {};
  return fmt::format("position {}: {} where thrust::sort has {}", i,
                     key_text(read_at(d_out, i, stream_)), key_text(read_at(sorted_.get(), i, stream_)));
}

template <class Value>
std::string check_key128_pairs(const key128* keys_in, const key128* keys_out,
                               const Value* values_out, std::size_t n, bool stable,
                               cudaStream_t stream) {
  if (n == 0) return {};
  detail::device_buffer<unsigned> seen(n);
  detail::device_buffer<unsigned long long> first(2);
  const unsigned long long nones[2] = {none, none};
  WARPSORT_CUDA_CHECK(cudaMemsetAsync(seen.get(), 0, n * sizeof(unsigned), stream));
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(first.get(), nones, sizeof nones, cudaMemcpyHostToDevice, stream));
  pair_faults_kernel<Value><<<check_blocks(n), check_threads, 0, stream>>>(
      keys_in, keys_out, values_out, n, stable, seen.get(), first.get());
  WARPSORT_CUDA_CHECK(cudaGetLastError());
  unseen_kernel<<<check_blocks(n), check_threads, 0, stream>>>(seen.get(), n, first.get() + 1);
  WARPSORT_CUDA_CHECK(cudaGetLastError());
  const unsigned long long fault = read_first(first.get(), stream);
  if (fault != none) {
    const std::size_t i = fault;
    const Value v = read_at(values_out, i, stream);
    std::string text = fmt::format("pair {}: key {}, value {}", i, key_text(read_at(keys_out, i, stream)),
                                   static_cast<unsigned long long>(v));
    if (static_cast<std::size_t>(v) >= n) return text + ": no input index";
    const key128 input = read_at(keys_in, static_cast<std::size_t>(v), stream);
    if (!same_bits(input, read_at(keys_out, i, stream)))
      return text + ": input " + std::to_string(v) + " has key " + key_text(input);
    return text + fmt::format(": after key {}, value {} ({})", key_text(read_at(keys_out, i - 1, stream)),
                              static_cast<unsigned long long>(read_at(values_out, i - 1, stream)),
                              stable ? "out of order, or equal keys out of input order" : "out of order");
  }
  const unsigned long long missing = read_first(first.get() + 1, stream);
  if (missing != none)
    return fmt::format("input index {} is carried by {} pairs, not one", missing,
                       read_at(seen.get(), static_cast<std::size_t>(missing), stream));
  return {};
}

template std::string check_key128_pairs<std::uint32_t>(const key128*, const key128*,
                                                       const std::uint32_t*, std::size_t, bool,
                                                       cudaStream_t);
template std::string check_key128_pairs<std::uint64_t>(const key128*, const key128*,
                                                       const std::uint64_t*, std::size_t, bool,
                                                       cudaStream_t);

}  // namespace warpsort::cli

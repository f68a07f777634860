// CUB's two-phase calls as the CUB baselines make them. Each baseline writes its CUB call once,
// as a function of (d_temp, bytes, operands..., n, stream) that picks the offset type with
// with_offset_type(): with d_temp == nullptr CUB only sets `bytes` (prepare() asks that, through
// cub_temp_bytes, and allocates the answer), with the storage allocated it sorts (sort(): no
// allocation, no host round trip). Host code only; includes no CUB header.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "warpsort/error.hpp"

namespace warpsort::baselines::detail {

/// Calls f(num_items) with num_items as std::uint32_t below `wide_from` keys, else as
/// std::uint64_t. CUB picks its kernels' tuning by the offset type: its merge sort runs alike
/// with either, but its radix sort is faster with 64-bit offsets from about 2^22 keys on (H100,
/// CCCL 3.0: 5.46 against 6.33 ms at 2^28) and slower below (0.090 against 0.084 ms at 2^20), so
/// the radix baselines switch there and the others at 2^32, where 32 bits no longer fit.
constexpr std::size_t offsets_32_bit_below = std::size_t{1} << 32;
constexpr std::size_t radix_offsets_32_bit_below = std::size_t{1} << 22;
template <class F>
decltype(auto) with_offset_type(std::size_t n, F&& f,
                                std::size_t wide_from = offsets_32_bit_below) {
  if (n < wide_from && n <= static_cast<std::size_t>(UINT32_MAX))
    return f(static_cast<std::uint32_t>(n));
  return f(static_cast<std::uint64_t>(n));
}

/// CUB's temporary bytes for every sort of n <= max_n items: query(n, bytes), the baseline's CUB
/// call with d_temp == nullptr, asked on both offset widths that with_offset_type() chooses
/// between (pass the same `wide_from`), the larger kept. At least 1: a null d_temp would make
/// the sorting call a size query.
template <class Query>
std::size_t cub_temp_bytes(std::size_t max_n, Query query,
                           std::size_t wide_from = offsets_32_bit_below) {
  const auto bytes_for = [&](std::size_t n) {
    std::size_t bytes = 0;
    WARPSORT_CUDA_CHECK(query(n, bytes));
    return bytes;
  };
  std::size_t narrow_n = max_n < wide_from ? max_n : wide_from - 1;
  if (narrow_n > UINT32_MAX) narrow_n = UINT32_MAX;
  std::size_t bytes = bytes_for(narrow_n);
  if (max_n > narrow_n) bytes = std::max(bytes, bytes_for(max_n));
  return std::max<std::size_t>(bytes, 1);
}

/// After a sort through a cub::DoubleBuffer: copies the result back to `in_place` when CUB left
/// it in the alternate half (`current`), device to device on the same stream, inside the timed
/// sort.
template <class T>
void copy_back(T* in_place, const T* current, std::size_t n, cudaStream_t stream) {
  if (current != in_place)
    WARPSORT_CUDA_CHECK(
        cudaMemcpyAsync(in_place, current, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
}

}  // namespace warpsort::baselines::detail

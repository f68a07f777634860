// Internal to the baselines module: one factory function per baseline, each defined (and
// explicitly instantiated) in its own translation unit, so that gpu_baselines.cu (the name list
// and make_gpu_baseline) includes no CUB/Thrust header. Also a small introspection interface
// the tests use to poison temporary storage and to check that thrust made no unplanned allocation.
#pragma once

#include <warpsort/key_types.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "baselines/gpu_baselines.cuh"

namespace warpsort::baselines::detail {

/// Implemented by every GPU baseline next to gpu_sorter<Key>.
class sorter_internals {
 public:
  virtual ~sorter_internals() = default;
  /// Device allocations the sorter holds now (pointer, bytes); empty before prepare().
  virtual std::vector<std::pair<void*, std::size_t>> device_buffers() const = 0;
  /// Device allocations made inside sort() because prepare() had not covered them (only thrust,
  /// whose temporary storage comes through an allocator, can do that; expected to stay 0).
  virtual std::size_t unplanned_allocations() const { return 0; }
  /// Kernel launches made by this sorter's sort() calls so far (bitonic_textbook only; the
  /// library baselines return 0: their launches are CUB's business).
  virtual std::size_t kernel_launches_so_far() const { return 0; }
};

// Factories: construct only, touch no device.
template <class Key> std::unique_ptr<gpu_sorter<Key>> make_cub_radix();
template <class Key> std::unique_ptr<gpu_sorter<Key>> make_cub_merge();
template <class Key> std::unique_ptr<gpu_sorter<Key>> make_thrust_sort();
template <class Key> std::unique_ptr<gpu_sorter<Key>> make_thrust_sort_comparator();
template <class Key> std::unique_ptr<gpu_sorter<Key>> make_bitonic_textbook();

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

/// CUB's temporary storage for every n <= max_n: `bytes_for(n)` queried on both offset widths
/// that with_offset_type() chooses between, the larger kept.
template <class Query>
std::size_t cub_bytes_up_to(std::size_t max_n, Query bytes_for,
                            std::size_t wide_from = offsets_32_bit_below) {
  std::size_t narrow_n = max_n < wide_from ? max_n : wide_from - 1;
  if (narrow_n > UINT32_MAX) narrow_n = UINT32_MAX;
  std::size_t bytes = bytes_for(narrow_n);
  if (max_n > narrow_n) {
    const std::size_t wide = bytes_for(max_n);
    bytes = wide > bytes ? wide : bytes;
  }
  return bytes;
}

/// Frees a device allocation without throwing (for destructors and for growing in prepare()).
void free_device_noexcept(void* p) noexcept;

/// One device allocation, freed (without throwing) on destruction or reset.
class device_buffer {
 public:
  device_buffer() = default;
  ~device_buffer() { free_device_noexcept(ptr_); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  /// Frees what is held, then cudaMallocs `bytes` (holds nothing for 0). Throws
  /// warpsort::cuda_error when the allocation fails (then holds nothing).
  void reset(std::size_t bytes);
  void* get() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }
  /// Appends (pointer, bytes) to `out` when something is held.
  void describe(std::vector<std::pair<void*, std::size_t>>& out) const {
    if (ptr_ != nullptr) out.emplace_back(ptr_, bytes_);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Throws warpsort::input_error when n exceeds what prepare() covered.
void check_prepared(const char* baseline, std::size_t n, std::size_t prepared_max_n);

}  // namespace warpsort::baselines::detail

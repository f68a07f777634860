// The keys-only baselines in descending order, for `bench --descending`: the two CUB timings the
// ratio columns need. The other keys-only baselines sort ascending only; these two sit behind
// the same gpu_sorter interface and under the same names (rows "cub_radix" and "cub_merge", so
// fill_ratios works unchanged):
//  - cub_radix: cub::DeviceRadixSort::SortKeysDescending over all key bits, in place through a
//    cub::DoubleBuffer whose alternate half is allocated in prepare() (copied back on the same
//    stream, inside the timed sort, when CUB leaves the result there), as the ascending baseline;
//  - cub_merge: cub::DeviceMergeSort::SortKeys with warpsort::greater<Key>, in place.
// CUB's temporary storage is allocated in prepare(), before timing; offsets are 32-bit below
// 2^32 keys, 64-bit above, the radix sort's from 2^22 (with_offset_type, as the baselines).
#pragma once

#include "baselines/gpu_baselines.cuh"
#include "baselines/gpu_baselines_impl.cuh"
#include "host/device_buffer.hpp"

#include <warpsort/error.hpp>
#include <warpsort/order.cuh>

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <cstddef>
#include <memory>
#include <string>

namespace warpsort::baselines {

namespace cub_descending_detail {

using detail::cub_bytes_up_to;
using detail::radix_offsets_32_bit_below;
using detail::with_offset_type;

template <class Key>
std::size_t radix_bytes(std::size_t n) {
  std::size_t bytes = 0;
  cub::DoubleBuffer<Key> keys(nullptr, nullptr);
  WARPSORT_CUDA_CHECK(with_offset_type(n, [&](auto num_items) {
    return cub::DeviceRadixSort::SortKeysDescending(nullptr, bytes, keys, num_items, 0,
                                                    static_cast<int>(sizeof(Key) * 8), cudaStream_t{});
  }, radix_offsets_32_bit_below));
  return bytes;
}

template <class Key>
std::size_t merge_bytes(std::size_t n) {
  std::size_t bytes = 0;
  WARPSORT_CUDA_CHECK(with_offset_type(n, [&](auto num_items) {
    return cub::DeviceMergeSort::SortKeys(nullptr, bytes, static_cast<Key*>(nullptr), num_items,
                                          warpsort::greater<Key>{}, cudaStream_t{});
  }));
  return bytes;
}

inline void check_prepared(const char* name, std::size_t n, std::size_t prepared_n) {
  if (n > prepared_n)
    throw input_error(std::string(name) + " (descending): sort of " + std::to_string(n) +
                      " keys but prepare() covered " + std::to_string(prepared_n));
}

}  // namespace cub_descending_detail

/// "cub_radix", descending: cub::DeviceRadixSort::SortKeysDescending.
template <class Key>
class cub_radix_descending final : public gpu_sorter<Key> {
 public:
  std::string name() const override { return "cub_radix"; }
  std::size_t temp_bytes(std::size_t max_n) const override {
    if (max_n <= 1) return 0;
    return max_n * sizeof(Key) + cub_bytes(max_n);
  }
  void prepare(std::size_t max_n) override {
    if (max_n <= prepared_n_) return;
    alternate_ = {};
    temp_ = {};
    prepared_n_ = 0;
    if (max_n > 1) {
      const std::size_t bytes = cub_bytes(max_n);
      alternate_ = ::warpsort::detail::device_buffer<Key>(max_n);
      temp_ = ::warpsort::detail::device_buffer<unsigned char>(bytes > 0 ? bytes : 1);
    }
    prepared_n_ = max_n;
  }
  void sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    cub_descending_detail::check_prepared("cub_radix", n, prepared_n_);
    if (n <= 1) return;
    cub::DoubleBuffer<Key> keys(d_keys, alternate_.get());
    std::size_t bytes = temp_.size();  // CUB checks it is enough
    WARPSORT_CUDA_CHECK(cub_descending_detail::with_offset_type(n, [&](auto num_items) {
      return cub::DeviceRadixSort::SortKeysDescending(temp_.get(), bytes, keys, num_items, 0,
                                                      static_cast<int>(sizeof(Key) * 8), stream);
    }, cub_descending_detail::radix_offsets_32_bit_below));
    if (keys.Current() != d_keys)
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(d_keys, keys.Current(), n * sizeof(Key),
                                          cudaMemcpyDeviceToDevice, stream));
  }

 private:
  static std::size_t cub_bytes(std::size_t max_n) {
    return cub_descending_detail::cub_bytes_up_to(
        max_n, [](std::size_t n) { return cub_descending_detail::radix_bytes<Key>(n); },
        cub_descending_detail::radix_offsets_32_bit_below);
  }
  ::warpsort::detail::device_buffer<Key> alternate_;  // the DoubleBuffer's second half
  ::warpsort::detail::device_buffer<unsigned char> temp_;
  std::size_t prepared_n_ = 0;
};

/// "cub_merge", descending: cub::DeviceMergeSort::SortKeys with warpsort::greater<Key>.
template <class Key>
class cub_merge_descending final : public gpu_sorter<Key> {
 public:
  std::string name() const override { return "cub_merge"; }
  std::size_t temp_bytes(std::size_t max_n) const override {
    return max_n <= 1 ? 0 : cub_bytes(max_n);
  }
  void prepare(std::size_t max_n) override {
    if (max_n <= prepared_n_) return;
    temp_ = {};
    prepared_n_ = 0;
    if (max_n > 1) {
      const std::size_t bytes = cub_bytes(max_n);
      temp_ = ::warpsort::detail::device_buffer<unsigned char>(bytes > 0 ? bytes : 1);
    }
    prepared_n_ = max_n;
  }
  void sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    cub_descending_detail::check_prepared("cub_merge", n, prepared_n_);
    if (n <= 1) return;
    std::size_t bytes = temp_.size();
    WARPSORT_CUDA_CHECK(cub_descending_detail::with_offset_type(n, [&](auto num_items) {
      return cub::DeviceMergeSort::SortKeys(temp_.get(), bytes, d_keys, num_items,
                                            warpsort::greater<Key>{}, stream);
    }));
  }

 private:
  static std::size_t cub_bytes(std::size_t max_n) {
    return cub_descending_detail::cub_bytes_up_to(
        max_n, [](std::size_t n) { return cub_descending_detail::merge_bytes<Key>(n); });
  }
  ::warpsort::detail::device_buffer<unsigned char> temp_;
  std::size_t prepared_n_ = 0;
};

/// The keys-only sorter `name` in the given order: ascending, the baseline of that name;
/// descending, cub_radix / cub_merge from above (input_error for any other name: the other
/// baselines sort ascending only, restrict_to_descending takes them out of the plan).
template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_keys_sorter(const std::string& name, bool descending) {
  if (!descending) return make_gpu_baseline<Key>(name);
  if (name == "cub_radix") return std::make_unique<cub_radix_descending<Key>>();
  if (name == "cub_merge") return std::make_unique<cub_merge_descending<Key>>();
  throw input_error("'" + name + "' sorts ascending only (no --descending)");
}

}  // namespace warpsort::baselines

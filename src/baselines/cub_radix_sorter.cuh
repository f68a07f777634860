// The keys-only radix baseline "cub_radix": cub::DeviceRadixSort::SortKeys over all key bits
// (Descending = false: cub_radix.cu) or SortKeysDescending (true: `bench --descending`,
// cub_descending.cuh).
//
// In place through a cub::DoubleBuffer whose alternate half (max_n keys) is allocated in
// prepare(); when CUB leaves the result in the alternate half, sort() copies it back with a
// device-to-device cudaMemcpyAsync on the same stream, which is part of the timed sort (for
// 4- and 8-byte keys CUB's passes are even, so the result lands in place and nothing is copied).
// 64-bit offsets from 2^22 keys on, where CUB's radix sort is faster with them (cub_two_phase.cuh).
#pragma once

#include <cub/device/device_radix_sort.cuh>

#include <array>
#include <cstddef>
#include <string>

#include "baselines/cub_two_phase.cuh"
#include "baselines/prepared_baseline.cuh"
#include "warpsort/error.hpp"

namespace warpsort::baselines::detail {

template <class Key, bool Descending>
class cub_radix_sorter final
    : public prepared_baseline<gpu_sorter<Key>, cub_radix_sorter<Key, Descending>, 2> {
 public:
  std::string name() const override { return "cub_radix"; }

  void sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    this->check(Descending ? "cub_radix (descending)" : "cub_radix", n);
    if (n <= 1) return;
    cub::DoubleBuffer<Key> keys(d_keys, this->template part<Key>(alternate));
    // CUB checks that the storage is enough (cudaErrorInvalidValue if not).
    std::size_t bytes = this->part_size(temp);
    WARPSORT_CUDA_CHECK(cub_call(this->part(temp), bytes, keys, n, stream));
    copy_back(d_keys, keys.Current(), n, stream);
  }

  /// The alternate half (max_n keys), then CUB's temporary storage.
  static std::array<std::size_t, 2> part_bytes(std::size_t max_n) {
    const std::size_t cub_bytes = cub_temp_bytes(max_n, [](std::size_t n, std::size_t& bytes) {
      cub::DoubleBuffer<Key> none(nullptr, nullptr);
      return cub_call(nullptr, bytes, none, n, cudaStream_t{});
    }, radix_offsets_32_bit_below);
    return {{max_n * sizeof(Key), cub_bytes}};
  }

 private:
  enum : std::size_t { alternate, temp };  // parts

  /// The one CUB call: a size query when d_temp is null, else the sort.
  static cudaError_t cub_call(void* d_temp, std::size_t& bytes, cub::DoubleBuffer<Key>& keys,
                              std::size_t n, cudaStream_t stream) {
    constexpr int end_bit = static_cast<int>(sizeof(Key) * 8);
    return with_offset_type(n, [&](auto num_items) {
      if constexpr (Descending)
        return cub::DeviceRadixSort::SortKeysDescending(d_temp, bytes, keys, num_items, 0, end_bit,
                                                        stream);
      else
        return cub::DeviceRadixSort::SortKeys(d_temp, bytes, keys, num_items, 0, end_bit, stream);
    }, radix_offsets_32_bit_below);
  }
};

}  // namespace warpsort::baselines::detail

// Baseline "cub_radix": cub::DeviceRadixSort::SortKeys over all key bits, ascending.
//
// In place through a cub::DoubleBuffer whose alternate half (max_n keys) is allocated in
// prepare(); when CUB leaves the result in the alternate half, sort() copies it back with a
// device-to-device cudaMemcpyAsync on the same stream, which is part of the timed sort (for
// 4- and 8-byte keys CUB's passes are even, so the result lands in place and nothing is copied).
// 64-bit offsets from 2^22 keys on, where CUB's radix sort is faster with them
// (gpu_baselines_impl.cuh).
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>

#include "baselines/gpu_baselines_impl.cuh"
#include "warpsort/error.hpp"

namespace warpsort::baselines::detail {
namespace {

/// CUB temporary bytes (besides the alternate key buffer) for n keys.
template <class Key>
std::size_t radix_cub_bytes(std::size_t n) {
  std::size_t bytes = 0;
  cub::DoubleBuffer<Key> keys(nullptr, nullptr);
  WARPSORT_CUDA_CHECK(with_offset_type(n, [&](auto num_items) {
    return cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, num_items, 0,
                                          static_cast<int>(sizeof(Key) * 8), cudaStream_t{});
  }, radix_offsets_32_bit_below));
  return bytes;
}

/// What prepare(max_n) allocates for CUB: enough for every n <= max_n, on both offset paths.
template <class Key>
std::size_t radix_cub_bytes_up_to(std::size_t max_n) {
  return cub_bytes_up_to(max_n, [](std::size_t n) { return radix_cub_bytes<Key>(n); },
                         radix_offsets_32_bit_below);
}

template <class Key>
class cub_radix_sorter final : public gpu_sorter<Key>, public sorter_internals {
 public:
  std::string name() const override { return "cub_radix"; }

  std::size_t temp_bytes(std::size_t max_n) const override {
    if (max_n <= 1) return 0;
    return max_n * sizeof(Key) + radix_cub_bytes_up_to<Key>(max_n);
  }

  void prepare(std::size_t max_n) override {
    if (max_n <= prepared_n_) return;
    prepared_n_ = 0;
    if (max_n <= 1) {
      prepared_n_ = max_n;
      return;
    }
    const std::size_t cub_bytes = radix_cub_bytes_up_to<Key>(max_n);
    alternate_.reset(0);
    temp_.reset(0);
    alternate_.reset(max_n * sizeof(Key));
    temp_.reset(cub_bytes);
    prepared_n_ = max_n;
  }

  void sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    check_prepared("cub_radix", n, prepared_n_);
    if (n <= 1) return;
    cub::DoubleBuffer<Key> keys(d_keys, static_cast<Key*>(alternate_.get()));
    std::size_t bytes = temp_.bytes();  // CUB checks it is enough (cudaErrorInvalidValue if not)
    WARPSORT_CUDA_CHECK(with_offset_type(n, [&](auto num_items) {
      return cub::DeviceRadixSort::SortKeys(temp_.get(), bytes, keys, num_items, 0,
                                            static_cast<int>(sizeof(Key) * 8), stream);
    }, radix_offsets_32_bit_below));
    if (keys.Current() != d_keys) {
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(d_keys, keys.Current(), n * sizeof(Key),
                                          cudaMemcpyDeviceToDevice, stream));
    }
  }

  std::vector<std::pair<void*, std::size_t>> device_buffers() const override {
    std::vector<std::pair<void*, std::size_t>> out;
    alternate_.describe(out);
    temp_.describe(out);
    return out;
  }

 private:
  device_buffer alternate_;  // max_n keys: the DoubleBuffer's second half
  device_buffer temp_;       // CUB's temporary storage
  std::size_t prepared_n_ = 0;
};

}  // namespace

template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_cub_radix() {
  return std::make_unique<cub_radix_sorter<Key>>();
}

#define WARPSORT_INSTANTIATE_CUB_RADIX(name, Key) \
  template std::unique_ptr<gpu_sorter<Key>> make_cub_radix<Key>();
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_INSTANTIATE_CUB_RADIX)
#undef WARPSORT_INSTANTIATE_CUB_RADIX

}  // namespace warpsort::baselines::detail

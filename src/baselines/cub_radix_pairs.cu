// Baseline "cub_radix_pairs": cub::DeviceRadixSort::SortPairs (ascending) or
// SortPairsDescending over all key bits. Stable in both directions; floats in the total order of
// order.cuh (CUB orders -0.0 and +0.0 as equal, keeping their input order, and NaNs by bits).
//
// In place through two cub::DoubleBuffers (keys, values) whose alternate halves (max_n keys,
// max_n values) are allocated in prepare(); when CUB leaves the result in an alternate half,
// sort() copies it back with a device-to-device cudaMemcpyAsync on the same stream, which is
// part of the timed sort.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>

#include "baselines/gpu_pair_baselines_impl.cuh"
#include "warpsort/error.hpp"

namespace warpsort::baselines::detail {
namespace {

/// Runs the ascending or descending CUB call (a size query when d_temp is null).
template <class Key, class Value>
cudaError_t radix_pairs_call(void* d_temp, std::size_t& bytes, cub::DoubleBuffer<Key>& keys,
                             cub::DoubleBuffer<Value>& values, std::size_t n, bool descending,
                             cudaStream_t stream) {
  constexpr int end_bit = static_cast<int>(sizeof(Key) * 8);
  return with_offset_type(n, [&](auto num_items) {
    return descending ? cub::DeviceRadixSort::SortPairsDescending(d_temp, bytes, keys, values,
                                                                  num_items, 0, end_bit, stream)
                      : cub::DeviceRadixSort::SortPairs(d_temp, bytes, keys, values, num_items,
                                                        0, end_bit, stream);
  }, radix_offsets_32_bit_below);
}

/// CUB temporary bytes (besides the alternate buffers) for n pairs, either direction.
template <class Key, class Value>
std::size_t radix_pairs_cub_bytes(std::size_t n) {
  std::size_t most = 0;
  for (bool descending : {false, true}) {
    std::size_t bytes = 0;
    cub::DoubleBuffer<Key> keys(nullptr, nullptr);
    cub::DoubleBuffer<Value> values(nullptr, nullptr);
    WARPSORT_CUDA_CHECK((radix_pairs_call<Key, Value>(nullptr, bytes, keys, values, n, descending,
                                                      cudaStream_t{})));
    most = std::max(most, bytes);
  }
  return most;
}

/// What prepare(max_n) allocates for CUB: enough for every n <= max_n, on both offset paths.
template <class Key, class Value>
std::size_t radix_pairs_cub_bytes_up_to(std::size_t max_n) {
  return cub_bytes_up_to(
      max_n, [](std::size_t n) { return radix_pairs_cub_bytes<Key, Value>(n); },
      radix_offsets_32_bit_below);
}

template <class Key, class Value>
class cub_radix_pairs_sorter final : public gpu_pair_sorter<Key, Value>, public sorter_internals {
 public:
  std::string name() const override { return "cub_radix_pairs"; }
  bool stable() const override { return true; }

  std::size_t temp_bytes(std::size_t max_n) const override {
    if (max_n <= 1) return 0;
    return max_n * sizeof(Key) + max_n * sizeof(Value) +
           radix_pairs_cub_bytes_up_to<Key, Value>(max_n);
  }

  void prepare(std::size_t max_n) override {
    if (max_n <= prepared_n_) return;
    prepared_n_ = 0;
    if (max_n <= 1) {
      prepared_n_ = max_n;
      return;
    }
    const std::size_t cub_bytes = radix_pairs_cub_bytes_up_to<Key, Value>(max_n);
    alternate_keys_.reset(0);
    alternate_values_.reset(0);
    temp_.reset(0);
    alternate_keys_.reset(max_n * sizeof(Key));
    alternate_values_.reset(max_n * sizeof(Value));
    temp_.reset(cub_bytes);
    prepared_n_ = max_n;
  }

  void sort(Key* d_keys, Value* d_values, std::size_t n, bool descending,
            cudaStream_t stream) override {
    check_prepared("cub_radix_pairs", n, prepared_n_);
    if (n <= 1) return;
    cub::DoubleBuffer<Key> keys(d_keys, static_cast<Key*>(alternate_keys_.get()));
    cub::DoubleBuffer<Value> values(d_values, static_cast<Value*>(alternate_values_.get()));
    std::size_t bytes = temp_.bytes();  // CUB checks it is enough (cudaErrorInvalidValue if not)
    WARPSORT_CUDA_CHECK((radix_pairs_call<Key, Value>(temp_.get(), bytes, keys, values, n,
                                                      descending, stream)));
    if (keys.Current() != d_keys) {
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(d_keys, keys.Current(), n * sizeof(Key),
                                          cudaMemcpyDeviceToDevice, stream));
    }
    if (values.Current() != d_values) {
      WARPSORT_CUDA_CHECK(cudaMemcpyAsync(d_values, values.Current(), n * sizeof(Value),
                                          cudaMemcpyDeviceToDevice, stream));
    }
  }

  std::vector<std::pair<void*, std::size_t>> device_buffers() const override {
    std::vector<std::pair<void*, std::size_t>> out;
    alternate_keys_.describe(out);
    alternate_values_.describe(out);
    temp_.describe(out);
    return out;
  }

 private:
  device_buffer alternate_keys_;    // max_n keys: the key DoubleBuffer's second half
  device_buffer alternate_values_;  // max_n values: the value DoubleBuffer's second half
  device_buffer temp_;              // CUB's temporary storage
  std::size_t prepared_n_ = 0;
};

}  // namespace

template <class Key, class Value>
std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_radix_pairs() {
  return std::make_unique<cub_radix_pairs_sorter<Key, Value>>();
}

#define WARPSORT_INSTANTIATE_CUB_RADIX_PAIRS(Key, Value) \
  template std::unique_ptr<gpu_pair_sorter<Key, Value>> make_cub_radix_pairs<Key, Value>();
WARPSORT_FOR_EACH_KEY_VALUE(WARPSORT_INSTANTIATE_CUB_RADIX_PAIRS)
#undef WARPSORT_INSTANTIATE_CUB_RADIX_PAIRS

}  // namespace warpsort::baselines::detail

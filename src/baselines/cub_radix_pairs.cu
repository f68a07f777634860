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
#include <array>
#include <cstddef>

#include "baselines/cub_two_phase.cuh"
#include "baselines/gpu_pair_baselines_impl.cuh"
#include "baselines/prepared_baseline.cuh"
#include "warpsort/error.hpp"

namespace warpsort::baselines::detail {
namespace {

template <class Key, class Value>
class cub_radix_pairs_sorter final
    : public prepared_baseline<gpu_pair_sorter<Key, Value>, cub_radix_pairs_sorter<Key, Value>, 3> {
 public:
  std::string name() const override { return "cub_radix_pairs"; }
  bool stable() const override { return true; }

  void sort(Key* d_keys, Value* d_values, std::size_t n, bool descending,
            cudaStream_t stream) override {
    this->check("cub_radix_pairs", n);
    if (n <= 1) return;
    cub::DoubleBuffer<Key> keys(d_keys, this->template part<Key>(alternate_keys));
    cub::DoubleBuffer<Value> values(d_values, this->template part<Value>(alternate_values));
    // CUB checks that the storage is enough (cudaErrorInvalidValue if not).
    std::size_t bytes = this->part_size(temp);
    WARPSORT_CUDA_CHECK(cub_call(this->part(temp), bytes, keys, values, n, descending, stream));
    copy_back(d_keys, keys.Current(), n, stream);
    copy_back(d_values, values.Current(), n, stream);
  }

  /// The alternate halves (max_n keys, max_n values), then CUB's temporary storage for either
  /// direction.
  static std::array<std::size_t, 3> part_bytes(std::size_t max_n) {
    std::size_t cub_bytes = 0;
    for (bool descending : {false, true}) {
      cub_bytes = std::max(cub_bytes, cub_temp_bytes(max_n, [=](std::size_t n, std::size_t& bytes) {
        cub::DoubleBuffer<Key> no_keys(nullptr, nullptr);
        cub::DoubleBuffer<Value> no_values(nullptr, nullptr);
        return cub_call(nullptr, bytes, no_keys, no_values, n, descending, cudaStream_t{});
      }, radix_offsets_32_bit_below));
    }
    return {{max_n * sizeof(Key), max_n * sizeof(Value), cub_bytes}};
  }

 private:
  enum : std::size_t { alternate_keys, alternate_values, temp };  // parts

  /// The one CUB call, either direction: a size query when d_temp is null, else the sort.
  static cudaError_t cub_call(void* d_temp, std::size_t& bytes, cub::DoubleBuffer<Key>& keys,
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
};

}  // namespace

WARPSORT_DEFINE_GPU_PAIR_BASELINE(make_cub_radix_pairs,
                                  std::make_unique<cub_radix_pairs_sorter<Key, Value>>())

}  // namespace warpsort::baselines::detail

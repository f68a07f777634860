// The keys-only merge baseline "cub_merge": cub::DeviceMergeSort::SortKeys, in place, with
// warpsort::less (Descending = false: cub_merge.cu) or warpsort::greater (true: `bench
// --descending`, cub_descending.cuh): the same orders as warpsort, for floats the total order of
// order.cuh, so NaNs and -0.0 sort as in the reference; or a comparator key's own order
// (comparator_baselines.cu). CUB's temporary storage (which includes
// its own key buffer) is allocated in prepare().
#pragma once

#include <cub/device/device_merge_sort.cuh>
#include <warpsort/order.cuh>

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>

#include "baselines/cub_two_phase.cuh"
#include "baselines/prepared_baseline.cuh"
#include "warpsort/error.hpp"

namespace warpsort::baselines::detail {

/// Order: the comparator (warpsort::less / greater by Descending; a comparator key's own).
template <class Key, bool Descending,
          class Order = std::conditional_t<Descending, ::warpsort::greater<Key>, ::warpsort::less<Key>>>
class cub_merge_sorter final
    : public prepared_baseline<gpu_sorter<Key>, cub_merge_sorter<Key, Descending, Order>, 1> {
 public:
  std::string name() const override { return "cub_merge"; }

  void sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    this->check(Descending ? "cub_merge (descending)" : "cub_merge", n);
    if (n <= 1) return;
    // CUB checks that the storage is enough (cudaErrorInvalidValue if not).
    std::size_t bytes = this->part_size(0);
    WARPSORT_CUDA_CHECK(cub_call(this->part(0), bytes, d_keys, n, stream));
  }

  /// CUB's temporary storage, the only part.
  static std::array<std::size_t, 1> part_bytes(std::size_t max_n) {
    return {{cub_temp_bytes(max_n, [](std::size_t n, std::size_t& bytes) {
      return cub_call(nullptr, bytes, static_cast<Key*>(nullptr), n, cudaStream_t{});
    })}};
  }

 private:
  /// The one CUB call: a size query when d_temp is null, else the sort.
  static cudaError_t cub_call(void* d_temp, std::size_t& bytes, Key* keys, std::size_t n,
                              cudaStream_t stream) {
    return with_offset_type(n, [&](auto num_items) {
      return cub::DeviceMergeSort::SortKeys(d_temp, bytes, keys, num_items, Order{}, stream);
    });
  }
};

}  // namespace warpsort::baselines::detail

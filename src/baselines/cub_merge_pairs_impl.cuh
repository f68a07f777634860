// The one implementation behind "cub_merge_pairs" (cub::DeviceMergeSort::SortPairs, Stable =
// false) and "cub_merge_stable_pairs" (cub::DeviceMergeSort::StableSortPairs, Stable = true):
// pairs sorted in place by warpsort::less<Key> (ascending) or warpsort::greater<Key>
// (descending), the order.cuh total order for floats; or a comparator key's own order, ascending
// (comparator_baselines.cu). CUB's temporary storage (which includes
// its own key and value buffers) is allocated in prepare(). Included by cub_merge_pairs.cu,
// cub_merge_stable_pairs.cu and comparator_baselines.cu only, each instantiating its own.
#pragma once

#include <cub/device/device_merge_sort.cuh>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>

#include "baselines/cub_two_phase.cuh"
#include "baselines/gpu_pair_baselines_impl.cuh"
#include "baselines/prepared_baseline.cuh"
#include "warpsort/error.hpp"
#include "warpsort/order.cuh"

namespace warpsort::baselines::detail {

/// Ascending, Descending: the two orders (a comparator key's: Descending void, ascending only).
template <bool Stable, class Key, class Value, class Ascending = warpsort::less<Key>,
          class Descending = warpsort::greater<Key>>
class cub_merge_pairs_sorter final
    : public prepared_baseline<gpu_pair_sorter<Key, Value>,
                               cub_merge_pairs_sorter<Stable, Key, Value, Ascending, Descending>, 1> {
  static constexpr bool both_orders = !std::is_void_v<Descending>;

 public:
  static constexpr const char* baseline_name =
      Stable ? "cub_merge_stable_pairs" : "cub_merge_pairs";

  std::string name() const override { return baseline_name; }
  bool stable() const override { return Stable; }

  void sort(Key* d_keys, Value* d_values, std::size_t n, bool descending,
            cudaStream_t stream) override {
    this->check(baseline_name, n);
    if (n <= 1) return;
    // CUB checks that the storage is enough (cudaErrorInvalidValue if not).
    std::size_t bytes = this->part_size(0);
    if constexpr (both_orders) {
      if (descending) {
        WARPSORT_CUDA_CHECK(
            cub_call(this->part(0), bytes, d_keys, d_values, n, Descending{}, stream));
        return;
      }
    } else if (descending) {
      throw input_error(std::string(baseline_name) + ": this key's order sorts ascending only");
    }
    WARPSORT_CUDA_CHECK(cub_call(this->part(0), bytes, d_keys, d_values, n, Ascending{}, stream));
  }

  /// CUB's temporary storage for either direction, the only part.
  static std::array<std::size_t, 1> part_bytes(std::size_t max_n) {
    const auto bytes_for = [max_n](auto comp) {
      return cub_temp_bytes(max_n, [&](std::size_t n, std::size_t& bytes) {
        return cub_call(nullptr, bytes, static_cast<Key*>(nullptr), static_cast<Value*>(nullptr),
                        n, comp, cudaStream_t{});
      });
    };
    if constexpr (both_orders)
      return {{std::max(bytes_for(Ascending{}), bytes_for(Descending{}))}};
    else
      return {{bytes_for(Ascending{})}};
  }

 private:
  /// The one CUB call for one comparator: a size query when d_temp is null, else the sort.
  template <class Comp>
  static cudaError_t cub_call(void* d_temp, std::size_t& bytes, Key* d_keys, Value* d_values,
                              std::size_t n, Comp comp, cudaStream_t stream) {
    return with_offset_type(n, [&](auto num_items) {
      if constexpr (Stable)
        return cub::DeviceMergeSort::StableSortPairs(d_temp, bytes, d_keys, d_values, num_items,
                                                     comp, stream);
      else
        return cub::DeviceMergeSort::SortPairs(d_temp, bytes, d_keys, d_values, num_items, comp,
                                               stream);
    });
  }
};

}  // namespace warpsort::baselines::detail

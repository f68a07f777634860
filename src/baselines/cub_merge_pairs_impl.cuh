// The one implementation behind "cub_merge_pairs" (cub::DeviceMergeSort::SortPairs, Stable =
// false) and "cub_merge_stable_pairs" (cub::DeviceMergeSort::StableSortPairs, Stable = true):
// pairs sorted in place by warpsort::less<Key> (ascending) or warpsort::greater<Key>
// (descending), the order.cuh total order for floats. CUB's temporary storage (which includes
// its own key and value buffers) is allocated in prepare(). Included by cub_merge_pairs.cu and
// cub_merge_stable_pairs.cu only, each instantiating its own flavour.
#pragma once

#include <cub/device/device_merge_sort.cuh>

#include <algorithm>
#include <cstdint>

#include "baselines/gpu_pair_baselines_impl.cuh"
#include "warpsort/error.hpp"
#include "warpsort/order.cuh"

namespace warpsort::baselines::detail {

/// Runs the CUB call for one comparator (a size query when d_temp is null).
template <bool Stable, class Key, class Value, class Comp>
cudaError_t merge_pairs_call(void* d_temp, std::size_t& bytes, Key* d_keys, Value* d_values,
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

/// CUB temporary bytes for n pairs, either direction.
template <bool Stable, class Key, class Value>
std::size_t merge_pairs_cub_bytes(std::size_t n) {
  std::size_t up = 0, down = 0;
  WARPSORT_CUDA_CHECK((merge_pairs_call<Stable>(nullptr, up, static_cast<Key*>(nullptr),
                                                static_cast<Value*>(nullptr), n,
                                                warpsort::less<Key>{}, cudaStream_t{})));
  WARPSORT_CUDA_CHECK((merge_pairs_call<Stable>(nullptr, down, static_cast<Key*>(nullptr),
                                                static_cast<Value*>(nullptr), n,
                                                warpsort::greater<Key>{}, cudaStream_t{})));
  return std::max(up, down);
}

/// Enough for every n <= max_n, on both offset paths.
template <bool Stable, class Key, class Value>
std::size_t merge_pairs_cub_bytes_up_to(std::size_t max_n) {
  return cub_bytes_up_to(max_n, [](std::size_t n) { return merge_pairs_cub_bytes<Stable, Key, Value>(n); });
}

template <bool Stable, class Key, class Value>
class cub_merge_pairs_sorter final : public gpu_pair_sorter<Key, Value>, public sorter_internals {
 public:
  static constexpr const char* baseline_name = Stable ? "cub_merge_stable_pairs" : "cub_merge_pairs";

  std::string name() const override { return baseline_name; }
  bool stable() const override { return Stable; }

  std::size_t temp_bytes(std::size_t max_n) const override {
    if (max_n <= 1) return 0;
    return merge_pairs_cub_bytes_up_to<Stable, Key, Value>(max_n);
  }

  void prepare(std::size_t max_n) override {
    if (max_n <= prepared_n_) return;
    prepared_n_ = 0;
    if (max_n <= 1) {
      prepared_n_ = max_n;
      return;
    }
    const std::size_t bytes = merge_pairs_cub_bytes_up_to<Stable, Key, Value>(max_n);
    temp_.reset(0);
    temp_.reset(bytes);
    prepared_n_ = max_n;
  }

  void sort(Key* d_keys, Value* d_values, std::size_t n, bool descending,
            cudaStream_t stream) override {
    check_prepared(baseline_name, n, prepared_n_);
    if (n <= 1) return;
    std::size_t bytes = temp_.bytes();  // CUB checks it is enough (cudaErrorInvalidValue if not)
    if (descending) {
      WARPSORT_CUDA_CHECK((merge_pairs_call<Stable>(temp_.get(), bytes, d_keys, d_values, n,
                                                    warpsort::greater<Key>{}, stream)));
    } else {
      WARPSORT_CUDA_CHECK((merge_pairs_call<Stable>(temp_.get(), bytes, d_keys, d_values, n,
                                                    warpsort::less<Key>{}, stream)));
    }
  }

  std::vector<std::pair<void*, std::size_t>> device_buffers() const override {
    std::vector<std::pair<void*, std::size_t>> out;
    temp_.describe(out);
    return out;
  }

 private:
  device_buffer temp_;
  std::size_t prepared_n_ = 0;
};

}  // namespace warpsort::baselines::detail

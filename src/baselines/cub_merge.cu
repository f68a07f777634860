// Baseline "cub_merge": cub::DeviceMergeSort::SortKeys with warpsort::less (the same order as
// warpsort: for floats the total order, so NaNs and -0.0 sort as in the reference), in place.
// CUB's temporary storage (which includes its own key buffer) is allocated in prepare().
#include <cub/device/device_merge_sort.cuh>
#include <warpsort/order.cuh>

#include <algorithm>
#include <cstdint>

#include "baselines/gpu_baselines_impl.cuh"
#include "warpsort/error.hpp"

namespace warpsort::baselines::detail {
namespace {

template <class Key>
using merge_less = ::warpsort::less<Key>;

template <class Key>
std::size_t merge_cub_bytes(std::size_t n) {
  std::size_t bytes = 0;
  WARPSORT_CUDA_CHECK(with_offset_type(n, [&](auto num_items) {
    return cub::DeviceMergeSort::SortKeys(nullptr, bytes, static_cast<Key*>(nullptr), num_items,
                                          merge_less<Key>{}, cudaStream_t{});
  }));
  return bytes;
}

/// Enough for every n <= max_n, on both offset paths.
template <class Key>
std::size_t merge_cub_bytes_up_to(std::size_t max_n) {
  return cub_bytes_up_to(max_n, [](std::size_t n) { return merge_cub_bytes<Key>(n); });
}

template <class Key>
class cub_merge_sorter final : public gpu_sorter<Key>, public sorter_internals {
 public:
  std::string name() const override { return "cub_merge"; }

  std::size_t temp_bytes(std::size_t max_n) const override {
    if (max_n <= 1) return 0;
    return merge_cub_bytes_up_to<Key>(max_n);
  }

  void prepare(std::size_t max_n) override {
    if (max_n <= prepared_n_) return;
    prepared_n_ = 0;
    if (max_n <= 1) {
      prepared_n_ = max_n;
      return;
    }
    const std::size_t bytes = merge_cub_bytes_up_to<Key>(max_n);
    temp_.reset(0);
    temp_.reset(bytes);
    prepared_n_ = max_n;
  }

  void sort(Key* d_keys, std::size_t n, cudaStream_t stream) override {
    check_prepared("cub_merge", n, prepared_n_);
    if (n <= 1) return;
    std::size_t bytes = temp_.bytes();  // CUB checks it is enough (cudaErrorInvalidValue if not)
    WARPSORT_CUDA_CHECK(with_offset_type(n, [&](auto num_items) {
      return cub::DeviceMergeSort::SortKeys(temp_.get(), bytes, d_keys, num_items,
                                            merge_less<Key>{}, stream);
    }));
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

}  // namespace

template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_cub_merge() {
  return std::make_unique<cub_merge_sorter<Key>>();
}

#define WARPSORT_INSTANTIATE_CUB_MERGE(name, Key) \
  template std::unique_ptr<gpu_sorter<Key>> make_cub_merge<Key>();
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_INSTANTIATE_CUB_MERGE)
#undef WARPSORT_INSTANTIATE_CUB_MERGE

}  // namespace warpsort::baselines::detail

// The GPU baselines' name list and factory. Includes no CUB/Thrust header: each baseline lives
// in its own translation unit (cub_radix.cu, cub_merge.cu, thrust_sort.cu,
// thrust_sort_comparator.cu, bitonic_textbook.cu). Nothing here touches the device.
#include <cstdint>

#include "baselines/gpu_baselines.cuh"
#include "baselines/gpu_baselines_impl.cuh"
#include "warpsort/error.hpp"

namespace warpsort::baselines {

std::vector<std::string> gpu_baseline_names() {
  return {"cub_radix", "cub_merge", "thrust_sort", "thrust_sort_comparator", "bitonic_textbook"};
}

template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_gpu_baseline(const std::string& name) {
  if (name == "cub_radix") return detail::make_cub_radix<Key>();
  if (name == "cub_merge") return detail::make_cub_merge<Key>();
  if (name == "thrust_sort") return detail::make_thrust_sort<Key>();
  if (name == "thrust_sort_comparator") return detail::make_thrust_sort_comparator<Key>();
  if (name == "bitonic_textbook") return detail::make_bitonic_textbook<Key>();
  std::string known;
  for (const auto& n : gpu_baseline_names()) known += (known.empty() ? "" : ", ") + n;
  throw input_error("unknown GPU baseline '" + name + "' (known: " + known + ")");
}

#define WARPSORT_INSTANTIATE_MAKE_GPU_BASELINE(name, Key) \
  template std::unique_ptr<gpu_sorter<Key>> make_gpu_baseline<Key>(const std::string&);
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_INSTANTIATE_MAKE_GPU_BASELINE)
#undef WARPSORT_INSTANTIATE_MAKE_GPU_BASELINE

namespace detail {

void check_prepared(const char* baseline, std::size_t n, std::size_t prepared_max_n) {
  if (n > 1 && n > prepared_max_n)
    throw input_error(std::string(baseline) + ": sort of " + std::to_string(n) +
                      " keys, but prepare() covered only " + std::to_string(prepared_max_n));
}

}  // namespace detail
}  // namespace warpsort::baselines

// The GPU pair baselines' name list and factory. Includes no CUB header: each baseline lives in
// its own translation unit (cub_radix_pairs.cu, cub_merge_pairs.cu, cub_merge_stable_pairs.cu).
// Nothing here touches the device.
#include <cstdint>

#include "baselines/gpu_pair_baselines.cuh"
#include "baselines/gpu_pair_baselines_impl.cuh"
#include "warpsort/error.hpp"

namespace warpsort::baselines {

std::vector<std::string> gpu_pair_baseline_names() {
  return {"cub_radix_pairs", "cub_merge_pairs", "cub_merge_stable_pairs"};
}

template <class Key, class Value>
std::unique_ptr<gpu_pair_sorter<Key, Value>> make_gpu_pair_baseline(const std::string& name) {
  if (name == "cub_radix_pairs") return detail::make_cub_radix_pairs<Key, Value>();
  if (name == "cub_merge_pairs") return detail::make_cub_merge_pairs<Key, Value>();
  if (name == "cub_merge_stable_pairs") return detail::make_cub_merge_stable_pairs<Key, Value>();
  std::string known;
  for (const auto& n : gpu_pair_baseline_names()) known += (known.empty() ? "" : ", ") + n;
  throw input_error("unknown GPU pair baseline '" + name + "' (known: " + known + ")");
}

#define WARPSORT_INSTANTIATE_MAKE_GPU_PAIR_BASELINE(Key, Value)               \
  template std::unique_ptr<gpu_pair_sorter<Key, Value>> make_gpu_pair_baseline< \
      Key, Value>(const std::string&);
WARPSORT_FOR_EACH_KEY_VALUE(WARPSORT_INSTANTIATE_MAKE_GPU_PAIR_BASELINE)
#undef WARPSORT_INSTANTIATE_MAKE_GPU_PAIR_BASELINE

}  // namespace warpsort::baselines

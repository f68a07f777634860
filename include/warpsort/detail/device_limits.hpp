#pragma once
// What launch sizes and shape checks read from the GPU they run on, instead of one GPU's
// numbers: its SM count and the shared memory a block may opt into. Read once per device and
// kept; a pure value, so the plan's checks can also be run on other GPUs' limits (tests).
#include <warpsort/detail/stages/index_math.hpp>
#include <warpsort/error.hpp>
#include <warpsort/warpsort.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace warpsort::detail {

struct device_limits {
  int sm_count = 0;
  std::size_t smem_per_block = 0;  // the opt-in limit of one block's shared memory
  int threads_per_block = 0;
};

/// The limits of `device`, read from the driver the first time and kept (any thread).
inline device_limits limits_of_device(int device) {
  static std::mutex guard;
  static std::vector<device_limits> known;  // by device ordinal; sm_count 0: not read yet
  const std::lock_guard<std::mutex> lock(guard);
  if (device < 0) throw input_error("warpsort: no CUDA device is current");
  if (known.size() <= static_cast<std::size_t>(device)) known.resize(static_cast<std::size_t>(device) + 1);
  device_limits& d = known[static_cast<std::size_t>(device)];
  if (d.sm_count == 0) {
    int sms = 0, smem = 0, threads = 0;
    WARPSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    WARPSORT_CUDA_CHECK(
        cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    WARPSORT_CUDA_CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerBlock, device));
    d = {sms, static_cast<std::size_t>(smem), threads};
  }
  return d;
}

/// The limits of the calling thread's current device.
inline device_limits current_device_limits() {
  int device = -1;
  WARPSORT_CUDA_CHECK(cudaGetDevice(&device));
  return limits_of_device(device);
}

/// Version 5's blocks must be launchable on the device: at most the threads and the shared
/// memory one of its blocks may have (block_sort_keys and group_capacity set both).
template <class Key>
void check_block_shapes(const sort_plan& plan, const policy& p,
                        const device_limits& limits = current_device_limits()) {
  const std::size_t most_threads = static_cast<std::size_t>(limits.threads_per_block);
  const std::size_t most_smem = limits.smem_per_block;
  const auto check = [&](const stages::thread_block_shape& shape, const char* field, int keys) {
    if (static_cast<std::size_t>(shape.threads) > most_threads || shape.smem_bytes > most_smem)
      throw input_error("warpsort policy: " + std::string(field) + " = " + std::to_string(keys) +
                        " needs blocks of " + std::to_string(shape.threads) + " threads and " +
                        std::to_string(shape.smem_bytes) + " bytes of shared memory for " +
                        std::to_string(sizeof(Key)) + "-byte keys (a block of this GPU may have " +
                        std::to_string(most_threads) + " and " + std::to_string(most_smem) + ")");
  };
  if (plan.n == 0) return;
  check(stages::sort_blocks_shape<Key>(p.block_sort_keys), "block_sort_keys", p.block_sort_keys);
  for (int r = 0; r < plan.round_count; ++r)
    check(stages::merge_sets_shape<Key>(p.group_capacity,
                                        static_cast<int>(plan.rounds[r].set_sequences)),
          "group_capacity", p.group_capacity);
}

}  // namespace warpsort::detail

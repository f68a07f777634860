// Launch helpers shared by the step kernels.
#pragma once

#include <warpsort/error.hpp>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <mutex>
#include <set>
#include <utility>

namespace warpsort::stages {

/// The most shared memory one block of the current device may opt in to (read from the driver
/// once a device).
inline std::size_t smem_opt_in_bytes() {
  constexpr int most_devices = 64;
  static std::atomic<int> known[most_devices];  // 0: not read yet
  int device = 0;
  WARPSORT_CUDA_CHECK(cudaGetDevice(&device));
  const bool kept = device >= 0 && device < most_devices;
  if (kept) {
    const int most = known[device].load(std::memory_order_relaxed);
    if (most > 0) return static_cast<std::size_t>(most);
  }
  int most = 0;
  WARPSORT_CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (kept) known[device].store(most, std::memory_order_relaxed);
  return static_cast<std::size_t>(most);
}

/// Kernels asking for more than the default 48 KiB of dynamic shared memory must opt in. The
/// attribute belongs to the kernel, not to the call, so it is set to the device's whole opt-in
/// limit, once a kernel and device: a call setting it to its own size could lower it under
/// another thread's launch of the same kernel with more (sorts of different sizes on several
/// host threads), and setting it at every launch costs the small sorts' host path. Over the
/// limit the launch fails with CUDA's error, through the usual check.
template <class Kernel>
void allow_dynamic_smem(Kernel kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;
  int device = 0;
  WARPSORT_CUDA_CHECK(cudaGetDevice(&device));
  static std::mutex guard;
  static std::set<std::pair<const void*, int>> opted_in;
  const std::pair<const void*, int> which{reinterpret_cast<const void*>(kernel), device};
  {
    const std::lock_guard<std::mutex> lock(guard);
    if (opted_in.count(which) > 0) return;
  }
  WARPSORT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem_opt_in_bytes())));
  const std::lock_guard<std::mutex> lock(guard);
  opted_in.insert(which);
}

/// The threads a block of `kernel` is launched with: `wanted` (whole warps), or fewer whole
/// warps where the kernel's registers let a block have fewer (a design's thread counts are for
/// the built-in keys; a custom key's wide items take more registers a thread, and a launch of
/// more threads would fail). Read from the runtime once a kernel.
template <class Kernel>
int launchable_threads(Kernel kernel, int wanted) {
  static std::mutex guard;
  static std::map<const void*, int> most_of;
  const void* const which = reinterpret_cast<const void*>(kernel);
  int most = 0;
  {
    const std::lock_guard<std::mutex> lock(guard);
    const auto known = most_of.find(which);
    if (known != most_of.end()) most = known->second;
  }
  if (most == 0) {
    cudaFuncAttributes attributes{};
    WARPSORT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    most = attributes.maxThreadsPerBlock / 32 * 32;
    const std::lock_guard<std::mutex> lock(guard);
    most_of[which] = most;
  }
  return wanted < most ? wanted : most;
}

}  // namespace warpsort::stages

// Launch helpers shared by the step kernels.
#pragma once

#include <warpsort/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace warpsort::stages {

/// Kernels asking for more than the default 48 KiB of dynamic shared memory must opt in. The
/// attribute belongs to the kernel, not to the call, so it is set to the device's whole opt-in
/// limit: a call setting it to its own size could lower it under another thread's launch of
/// the same kernel with more (sorts of different sizes on several host threads). Over the
/// limit the launch fails with CUDA's error, through the usual check.
/// The most shared memory one block of the current device may opt in to.
inline std::size_t smem_opt_in_bytes() {
  int device = 0, most = 0;
  WARPSORT_CUDA_CHECK(cudaGetDevice(&device));
  WARPSORT_CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(most);
}

template <class Kernel>
void allow_dynamic_smem(Kernel kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;
  WARPSORT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem_opt_in_bytes())));
}

}  // namespace warpsort::stages

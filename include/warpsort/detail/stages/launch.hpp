// Launch helpers shared by the step kernels.
#pragma once

#include <warpsort/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace warpsort::stages {

/// Kernels asking for more than the default 48 KiB of dynamic shared memory must opt in;
/// over the device's limit this fails with CUDA's error, through the usual check.
template <class Kernel>
void allow_dynamic_smem(Kernel kernel, std::size_t bytes) {
  if (bytes > 48 * 1024)
    WARPSORT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(bytes)));
}

}  // namespace warpsort::stages

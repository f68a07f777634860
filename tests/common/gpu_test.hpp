// GPU tests skip, with the reason, where no usable CUDA device is present (CI has none).
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace warpsort::testing {

/// Empty when a CUDA device can be used; otherwise why not.
inline std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later checks are not confused
    return std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorName(status) +
           ")";
  }
  if (count == 0) return "no CUDA device present";
  return {};
}

}  // namespace warpsort::testing

/// First statement of every GPU test.
#define WARPSORT_REQUIRE_GPU()                                                      \
  do {                                                                              \
    const std::string warpsort_reason_ = ::warpsort::testing::gpu_unavailable_reason(); \
    if (!warpsort_reason_.empty()) GTEST_SKIP() << "GPU test skipped: " << warpsort_reason_; \
  } while (0)

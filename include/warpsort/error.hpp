// Errors: every CUDA call and kernel launch in warpsort goes through WARPSORT_CUDA_CHECK,
// which turns a failure into a warpsort::cuda_error naming the call, the file and the line.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace warpsort {

/// Thrown for any failed CUDA runtime call or kernel launch.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const std::string& what)
      : std::runtime_error(what), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// Thrown for invalid arguments and inputs (sizes, files, types) before any device work starts.
class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* expr, const char* file,
                                          int line) {
  throw cuda_error(code, std::string(file) + ":" + std::to_string(line) + ": " + expr +
                             " failed: " + cudaGetErrorName(code) + " (" +
                             cudaGetErrorString(code) + ")");
}
}  // namespace detail

}  // namespace warpsort

#define WARPSORT_CUDA_CHECK(expr)                                                      \
  do {                                                                                 \
    const cudaError_t warpsort_status_ = (expr);                                       \
    if (warpsort_status_ != cudaSuccess)                                               \
      ::warpsort::detail::throw_cuda_error(warpsort_status_, #expr, __FILE__, __LINE__); \
  } while (0)

/// After a <<<...>>> launch: reports launch-configuration errors at the launch site.
#define WARPSORT_CHECK_LAUNCH() WARPSORT_CUDA_CHECK(cudaGetLastError())

// An owning device allocation (RAII) that reports failure with the size asked for.
#pragma once

#include <warpsort/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

namespace warpsort::detail {

template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : count_(count) {
    if (count == 0) return;
    const cudaError_t status = cudaMalloc(&ptr_, count * sizeof(T));
    if (status != cudaSuccess) {
      cudaGetLastError();
      std::size_t free_bytes = 0, total_bytes = 0;
      cudaMemGetInfo(&free_bytes, &total_bytes);
      throw cuda_error(status, "cudaMalloc of " + std::to_string(count * sizeof(T)) +
                                   " bytes failed (" + cudaGetErrorString(status) + "); " +
                                   std::to_string(free_bytes) + " bytes free of " +
                                   std::to_string(total_bytes));
    }
  }
  ~device_buffer() {
    if (ptr_) cudaFree(ptr_);
  }
  device_buffer(device_buffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      if (ptr_) cudaFree(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* get() const { return ptr_; }
  /// Gives up ownership.
  T* release() { count_ = 0; return std::exchange(ptr_, nullptr); }
  std::size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace warpsort::detail

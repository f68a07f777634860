// A stream held busy on the device for a while, then made to write a buffer: work enqueued after
// it on the same stream sees the written buffer; work that ignores the stream runs at once and
// sees what was there before. Also keeps the device busy so that a sort's whole queue of
// kernels and events is enqueued before the device reaches it.
#pragma once

#include <warpsort/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>

namespace warpsort::testing {

/// The device's nanosecond timer (%globaltimer: wall-clock time, whatever the SM clock).
__device__ inline unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// One thread spins, sleeping a microsecond at a time, until `ns` nanoseconds have passed.
__global__ inline void spin_for_ns(unsigned long long ns) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < ns) __nanosleep(1000);
}

/// dst[i] = src[i] for every i < bytes (grid-stride).
__global__ inline void copy_bytes_after_spin(unsigned char* dst, const unsigned char* src,
                                            std::size_t bytes) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < bytes;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

/// Enqueues on `stream` `ms` milliseconds of spinning on the device (one thread).
inline void spin_on_stream(cudaStream_t stream, float ms) {
  spin_for_ns<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(ms * 1e6f));
  WARPSORT_CUDA_CHECK(cudaGetLastError());
}

/// Enqueues on `stream`: spin about `ms` milliseconds, then copy `bytes` bytes src -> dst by a
/// kernel. Returns at once; dst holds src's bytes only once the stream gets there.
inline void spin_then_copy(cudaStream_t stream, float ms, void* dst, const void* src,
                           std::size_t bytes) {
  spin_on_stream(stream, ms);
  if (bytes == 0) return;
  copy_bytes_after_spin<<<256, 256, 0, stream>>>(static_cast<unsigned char*>(dst),
                                                 static_cast<const unsigned char*>(src), bytes);
  WARPSORT_CUDA_CHECK(cudaGetLastError());
}

/// A non-blocking stream (no implicit synchronization with the legacy default stream),
/// destroyed at scope exit.
class owned_stream {
 public:
  owned_stream() { WARPSORT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~owned_stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace warpsort::testing

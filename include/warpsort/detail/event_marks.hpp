#pragma once
// CUDA events marked between the parts of a call on its stream, only when timings are asked
// for: the single-GPU sort's four steps and the distributed sort's five phases.
#include <warpsort/error.hpp>

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>

namespace warpsort::detail {

template <std::size_t Marks>
class event_marks {
 public:
  event_marks(bool enabled, cudaStream_t stream) : stream_(stream), enabled_(enabled) {
    if (!enabled_) return;
    for (auto& e : events_) WARPSORT_CUDA_CHECK(cudaEventCreate(&e));
  }
  ~event_marks() {
    for (auto e : events_)
      if (e) cudaEventDestroy(e);
  }
  event_marks(const event_marks&) = delete;
  event_marks& operator=(const event_marks&) = delete;
  void mark(std::size_t i) { mark_on(i, stream_); }
  /// Mark i on another stream (the call's work on it ends there).
  void mark_on(std::size_t i, cudaStream_t stream) {
    if (enabled_) WARPSORT_CUDA_CHECK(cudaEventRecord(events_[i], stream));
  }
  /// Waits for the last mark; *parts[i] = milliseconds between marks i and i + 1.
  void read(const std::array<float*, Marks - 1>& parts) {
    if (!enabled_) return;
    WARPSORT_CUDA_CHECK(cudaEventSynchronize(events_[Marks - 1]));
    for (std::size_t i = 0; i + 1 < Marks; ++i)
      WARPSORT_CUDA_CHECK(cudaEventElapsedTime(parts[i], events_[i], events_[i + 1]));
  }

 private:
  cudaStream_t stream_;
  bool enabled_;
  std::array<cudaEvent_t, Marks> events_{};
};

}  // namespace warpsort::detail

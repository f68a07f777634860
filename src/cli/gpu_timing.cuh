// Device-side measurement shared by `bench` and `sort`: RAII stream, events and pinned memory,
// and the timed-run loops (restore input, events around the sort only, validate every run).
#pragma once

#include <warpsort/error.hpp>

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace warpsort::cli {

class cuda_stream {
 public:
  cuda_stream() { WARPSORT_CUDA_CHECK(cudaStreamCreate(&stream_)); }
  ~cuda_stream() { cudaStreamDestroy(stream_); }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// A pair of events bracketing work on a stream.
class event_timer {
 public:
  event_timer() {
    WARPSORT_CUDA_CHECK(cudaEventCreate(&start_));
    WARPSORT_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~event_timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;
  void start(cudaStream_t s) { WARPSORT_CUDA_CHECK(cudaEventRecord(start_, s)); }
  /// Records the stop event, waits for it, returns the elapsed device time in ms.
  float stop(cudaStream_t s) {
    WARPSORT_CUDA_CHECK(cudaEventRecord(stop_, s));
    WARPSORT_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    WARPSORT_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

/// Page-locked host memory (cudaMallocHost), for the pinned end-to-end measurement.
template <class T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t count) : count_(count) {
    if (count) WARPSORT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  ~pinned_buffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  pinned_buffer(pinned_buffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// Timed runs of one algorithm on one input. `failures` holds one message per run whose output
/// did not match the references.
struct device_runs {
  std::vector<double> times_ms;  // timed runs only
  std::vector<std::string> failures;
  bool validated() const { return failures.empty(); }
};

/// "timed run 3: ..." or "warm-up run 1: ..." (`prefix` names the protocol).
inline std::string run_failure(const std::string& prefix, int run, int warmup,
                               const std::string& problem) {
  return prefix + (run >= warmup ? "timed run " + std::to_string(run - warmup + 1)
                                 : "warm-up run " + std::to_string(run + 1)) +
         ": " + problem;
}

/// The device-time protocol: for each of `warmup` + `reps` runs, restore() (enqueues a fresh
/// copy of the input, not timed), record an event, sort() (enqueues the sort, everything it
/// needs allocated beforehand), record an event, then check() (empty when the output is
/// correct, else what is wrong). Only the timed runs' times are kept.
template <class Restore, class Sort, class Check>
device_runs time_device_runs(Restore&& restore, Sort&& sort, Check&& check, int warmup, int reps,
                             cudaStream_t stream) {
  device_runs runs;
  event_timer timer;
  for (int run = 0; run < warmup + reps; ++run) {
    restore();
    timer.start(stream);
    sort();
    const float ms = timer.stop(stream);
    if (run >= warmup) runs.times_ms.push_back(ms);
    if (const std::string problem = check(); !problem.empty())
      runs.failures.push_back(run_failure("", run, warmup, problem));
  }
  return runs;
}

/// End-to-end protocol: host -> device, sort, device -> host, timed on the host's steady clock
/// (stream synchronized before the clock stops); every downloaded result is checked by
/// `check_host_result`, which returns an empty string when it is correct.
/// sort() sorts d_work[0..n) in place on the stream.
template <class Key, class Sort>
device_runs time_end_to_end(Sort&& sort, const Key* h_in, Key* h_out, Key* d_work, std::size_t n,
                            int warmup, int reps,
                            const std::function<std::string(const Key*)>& check_host_result,
                            cudaStream_t stream) {
  device_runs runs;
  const std::size_t bytes = n * sizeof(Key);
  for (int run = 0; run < warmup + reps; ++run) {
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    const auto start = std::chrono::steady_clock::now();
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(d_work, h_in, bytes, cudaMemcpyHostToDevice, stream));
    sort();
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(h_out, d_work, bytes, cudaMemcpyDeviceToHost, stream));
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
    const auto stop = std::chrono::steady_clock::now();
    if (run >= warmup)
      runs.times_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    if (const std::string problem = check_host_result(h_out); !problem.empty())
      runs.failures.push_back(run_failure("end-to-end ", run, warmup, problem));
  }
  return runs;
}

}  // namespace warpsort::cli

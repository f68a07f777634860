// The module's CUDA side, behind a plain C++ interface: module.cpp (nanobind, compiled by the
// host compiler) calls these; sorts.cu (nvcc) holds the dispatch over key_types.hpp, the
// temporary storage and the small kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpsort_py {

/// No usable CUDA device (none present, or the driver cannot serve the runtime): RuntimeError.
struct no_device_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// A dtype the library is not built for: TypeError.
struct dtype_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Step times in ms: sort_chunks, merge_sequences, split, merge_groups.
using step_times = std::vector<float>;

std::vector<std::string> key_type_names();
std::vector<std::string> value_type_names();
int device_count();  // throws no_device_error when there is none
/// The device a pointer lives on (-1: host memory the device cannot use).
int pointer_device(std::uintptr_t ptr);

/// Sorts n keys of `dtype` from in to out (may be equal) on `stream` of `device`. Temporary
/// storage is taken with cudaMallocAsync on the stream and given back on it. With want_times the
/// library synchronizes the stream to read the step times.
step_times sort_keys(std::uintptr_t in, std::uintptr_t out, std::size_t n, const std::string& dtype,
                     bool descending, std::uintptr_t stream, int device, bool want_times);
step_times sort_pairs(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in,
                      std::uintptr_t values_out, std::size_t n, const std::string& key_dtype,
                      const std::string& value_dtype, bool descending, std::uintptr_t stream,
                      int device, bool want_times);
/// Stable argsort (warpsort::argsort): the indices that sort the keys (which stay unchanged),
/// written into `indices` of index_dtype (uint32 or int64) by the sort itself.
step_times argsort(std::uintptr_t keys_in, std::uintptr_t indices, std::size_t n,
                   const std::string& dtype, const std::string& index_dtype, bool descending,
                   std::uintptr_t stream, int device, bool want_times);

// Plain buffers for NumPy inputs (synchronous: the host waits anyway).
std::uintptr_t device_alloc(std::size_t bytes, int device);
void device_free(std::uintptr_t ptr, int device);
void copy(std::uintptr_t dst, std::uintptr_t src, std::size_t bytes, std::uintptr_t stream,
          int device);
void synchronize(std::uintptr_t stream, int device);
/// Orders `consumer` after the work queued so far on `producer` (an event, no host wait).
void stream_wait(std::uintptr_t consumer, std::uintptr_t producer, int device);

}  // namespace warpsort_py

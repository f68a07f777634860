#include "cli/memory_check.hpp"

#include <warpsort/error.hpp>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace warpsort::cli {

std::size_t device_bytes_needed(std::size_t n, std::size_t key_bytes, std::size_t largest_temp_bytes,
                                bool floating_keys) {
  const std::size_t keys = n * key_bytes;
  const std::size_t checker_construction = 5 * keys;  // input + 3 checker buffers + thrust's copy
  // input + work + 2 references (+ floats: the input's bit patterns and check()'s 2 buffers)
  const std::size_t checker_keys = floating_keys ? 5 : 2;
  const std::size_t sorting = (2 + checker_keys) * keys + largest_temp_bytes;
  const std::size_t slack = (std::size_t{64} << 20) + keys / 8;
  return std::max(checker_construction, sorting) + slack;
}

std::size_t sort_device_bytes_needed(std::size_t n, std::size_t key_bytes, std::size_t temp_bytes,
                                     bool floating_keys, bool out_of_place) {
  const std::size_t keys = n * key_bytes;
  const std::size_t sorting = (out_of_place ? 2 : 1) * keys + temp_bytes;
  const std::size_t validating = (floating_keys ? 5 : 4) * keys;
  const std::size_t slack = (std::size_t{64} << 20) + keys / 8;
  return std::max(sorting, validating) + slack;
}

std::size_t pairs_device_bytes_needed(std::size_t n, std::size_t key_bytes, std::size_t value_bytes,
                                      std::size_t largest_temp_bytes) {
  const std::size_t pairs = n * (key_bytes + value_bytes);
  const std::size_t reference = 4 * pairs;
  const std::size_t sorting = 3 * pairs + std::max(largest_temp_bytes, 2 * n * value_bytes);
  const std::size_t slack = (std::size_t{64} << 20) + pairs / 8;
  return std::max(reference, sorting) + slack;
}

std::size_t sort_pairs_device_bytes_needed(std::size_t n, std::size_t key_bytes, std::size_t value_bytes,
                                           std::size_t temp_bytes, bool out_of_place) {
  const std::size_t pairs = n * (key_bytes + value_bytes);
  const std::size_t sorting = (out_of_place ? 2 : 1) * pairs + temp_bytes;
  const std::size_t validating = 4 * pairs;
  const std::size_t slack = (std::size_t{64} << 20) + pairs / 8;
  return std::max(sorting, validating) + slack;
}

std::size_t host_bytes_needed(std::size_t n, std::size_t key_bytes, bool end_to_end, bool cpu_baselines) {
  std::size_t copies = 2;                // keys + reference
  if (end_to_end) copies += 3;           // pageable result, pinned input, pinned result
  if (cpu_baselines) copies += 3;        // working copy + the bitonic sorts' power-of-two padding
  return copies * n * key_bytes + (std::size_t{256} << 20);
}

std::string format_gib(std::size_t bytes) {
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
}

std::size_t device_bytes_free() {
  std::size_t free_bytes = 0, total_bytes = 0;
  WARPSORT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

std::optional<std::size_t> host_bytes_available() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream fields(line.substr(13));
      std::size_t kib = 0;
      if (fields >> kib) return kib * 1024;
    }
  }
  return std::nullopt;
}

void require_device_memory(std::size_t n, std::size_t needed_bytes) {
  const std::size_t free_bytes = device_bytes_free();
  if (needed_bytes > free_bytes)
    throw input_error(fmt::format("n={} needs {} of device memory, {} free", n,
                                  format_gib(needed_bytes), format_gib(free_bytes)));
}

void require_host_memory(std::size_t n, std::size_t needed_bytes) {
  const auto available = host_bytes_available();
  if (available && needed_bytes > *available)
    throw input_error(fmt::format("n={} needs {} of host memory, {} available", n,
                                  format_gib(needed_bytes), format_gib(*available)));
}

}  // namespace warpsort::cli

// The single-purpose subcommands: sort a file, generate a file, describe the build and devices.
// Each returns the process exit code and throws input_error / cuda_error for errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace warpsort::cli {

struct sort_options {
  std::string input;
  std::string output;               // empty: do not write
  std::optional<std::string> type;  // required for raw files; must match a .npy's dtype
  bool descending = false;
  int reps = 5;
  int warmup = 1;
};
/// Reads the file (before touching the device), checks device memory, sorts with warpsort,
/// validates every run against thrust::sort and cub::DeviceRadixSort, prints the timing, writes
/// the sorted keys. Returns 1 if validation failed.
int run_sort(const sort_options& options);

struct generate_options {
  std::string distribution;
  std::string n;  // a size expression: "1000", "2^20"
  std::uint64_t seed = 1;
  std::string output;
  std::string type = "uint32";
};
/// Writes a dataset file (.npy or raw by extension). CPU only.
int run_generate(const generate_options& options);

/// Prints the build (always) and the devices; throws cuda_error when no device is available.
int run_info();

}  // namespace warpsort::cli

// The single-purpose subcommands: sort a file, generate a file, describe the build and devices.
// Each returns the process exit code and throws input_error / cuda_error for errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace warpsort::cli {

struct sort_options {
  // The input: a file, or keys generated on the host (exactly one of the two).
  std::string input;                 // --input FILE
  std::string distribution;          // --dist D (with --n; the same data::generate call as fuzz)
  std::optional<std::string> n;      // --n N, a size expression: "1000", "2^20", "2^32+12345"
  std::optional<std::uint64_t> seed; // --seed S (generated input only; default 1)
  std::string output;                // empty: do not write
  std::optional<std::string> type;   // file: required for raw files, must match a .npy's dtype;
                                     // generated: the key type (default uint32)
  bool descending = false;
  bool out_of_place = false;         // sort into a second buffer (poisoned 0xA5) as fuzz does
  std::string values = "none";       // --values: none, or uint32 / uint64 (argsort with sort_pairs;
                                     // the values are the input indices 0..n-1; n < 2^32)
  int reps = 1;
  int warmup = 1;
};
/// Reads the file, or checks the generator's arguments, before touching the device; checks
/// device memory (sort_device_bytes_needed) before allocating anything; then uploads the keys
/// into one device buffer and sorts them in place with warpsort (warm-ups, one run with
/// stage_times, then the timed runs, each on a fresh upload), frees warpsort's temporary
/// storage, uploads the input again and validates the last run's output with
/// validate_against_references. Prints the plan, the timing, the steps, the validation and the
/// footprint (n sizeof(Key) + temp bytes) / n; writes the sorted keys if asked. Returns 1 if
/// validation failed. With values (uint32 / uint64): the same for (key, index) pairs sorted by
/// sort_pairs and validated with validate_pairs_against_references; the footprint is per pair,
/// (n (sizeof(Key) + sizeof(Value)) + temp bytes) / n; --output also writes the sorted values
/// (FILE with ".values" before the extension).
int run_sort(const sort_options& options);

struct fuzz_options {
  double seconds = 0;                 // run for this long (required)
  std::optional<std::uint64_t> seed;  // the case generator's seed; default: from the clock
  std::string max_n = "2^22";         // largest n drawn
  bool inject_failure = false;        // debug: corrupt one output key before validating
};
/// Differential fuzzing of warpsort against thrust::sort and cub::DeviceRadixSort on random
/// (key type, n, distribution, order, seed) cases. On the first failure prints the case and a
/// `warpsort sort` command that reproduces it and returns 1; otherwise returns 0.
int run_fuzz(const fuzz_options& options);

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

struct components_options {
  std::size_t n = std::size_t{1} << 28;
  int reps = 7;
  std::string out;  // a JSON file, if given
};
/// Times the sort's parts on their own (cmd_components.cu): a copy pass, step 1, one round of
/// steps 3 and 4 with sets of 2..64 sequences (and the cost of one on-chip merge level fitted
/// from them), the whole sort of versions 5 and 4. uint32 keys, uniform.
int run_components(const components_options& options);

}  // namespace warpsort::cli

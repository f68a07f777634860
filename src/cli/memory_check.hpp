// Memory checks before allocating for an n: estimates of the bytes a run needs and the
// comparison with what the device (cudaMemGetInfo) and the host (MemAvailable) have free.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace warpsort::cli {

/// Peak device bytes of sorting n keys of key_bytes with validation, the way bench and sort do:
/// the pristine input, the work buffer, what reference_checker keeps (two references; floats
/// also the input's sorted bit patterns, and each float check() radix-sorts a copy: 2 n more),
/// and the largest temporary storage of one algorithm (algorithms run one at a time and free
/// theirs); or, if larger, the checker's construction (a third buffer plus thrust::sort's own
/// copy); plus slack for radix-sort temporaries and allocation granularity.
std::size_t device_bytes_needed(std::size_t n, std::size_t key_bytes, std::size_t largest_temp_bytes,
                                bool floating_keys);

/// Peak device bytes of `warpsort sort` (and `warpsort fuzz`), which never hold a reference
/// while sorting: phase 1 sorts with the keys on the device (one buffer sorted in place, or an
/// input and an output buffer with out_of_place) plus warpsort's temporary storage; the
/// temporary storage is freed, and phase 2 holds the input and the sorted keys (2 n keys) while
/// validate_against_references adds, one reference at a time, 2 n keys (thrust::sort's copy and
/// its merge buffer; cub::DeviceRadixSort's double buffer) or, for floats, 3 n keys (the input's
/// sorted bit patterns, then the result's, sorted through a double buffer). Plus slack for the
/// radix sorts' temporaries and allocation granularity (64 MiB + n key_bytes / 8):
///   max(keys * (out_of_place ? 2 : 1) + temp, keys * (floating ? 5 : 4)) + slack, keys = n key_bytes.
std::size_t sort_device_bytes_needed(std::size_t n, std::size_t key_bytes, std::size_t temp_bytes,
                                     bool floating_keys, bool out_of_place);

/// Peak device bytes of a pairs benchmark input (bench --values), P = n (key_bytes +
/// value_bytes): while the reference is built and checked, the pristine pairs and the reference
/// (2 P) plus validate_pairs_against_references' copies, one reference at a time (2 P: radix
/// double buffers, or the merge sort's copy and its storage); while the algorithms run, the
/// pristine pairs, the work pairs and the reference (3 P) plus the largest temporary storage of
/// one algorithm or, if larger, the unstable algorithm's permutation check (a copy of the values
/// and thrust::sort's buffer, 2 n value_bytes); plus slack (64 MiB + P / 8).
std::size_t pairs_device_bytes_needed(std::size_t n, std::size_t key_bytes, std::size_t value_bytes,
                                      std::size_t largest_temp_bytes);

/// Peak device bytes of `warpsort sort --values` (and pair cases of `warpsort fuzz`),
/// P = n (key_bytes + value_bytes): sorting holds the pairs (in place; out of place, input and
/// output pairs) plus warpsort's temporary storage; validating holds the input and the sorted
/// pairs (2 P) plus validate_pairs_against_references' copies (2 P); plus slack:
///   max(P * (out_of_place ? 2 : 1) + temp, 4 P) + 64 MiB + P / 8.
std::size_t sort_pairs_device_bytes_needed(std::size_t n, std::size_t key_bytes, std::size_t value_bytes,
                                           std::size_t temp_bytes, bool out_of_place);

/// Host bytes of a benchmark input: the keys and the reference copy, plus the end-to-end
/// buffers (pageable result, pinned input and result) and the CPU baselines' working copy and
/// padding when those run.
std::size_t host_bytes_needed(std::size_t n, std::size_t key_bytes, bool end_to_end, bool cpu_baselines);

/// "1.50 GiB".
std::string format_gib(std::size_t bytes);

/// Free device bytes of the current device (cudaMemGetInfo); throws warpsort::cuda_error.
std::size_t device_bytes_free();
/// MemAvailable from /proc/meminfo; nullopt where unknown.
std::optional<std::size_t> host_bytes_available();

/// Throws warpsort::input_error "n=N needs X GiB of device memory, Y GiB free" if it does not fit.
void require_device_memory(std::size_t n, std::size_t needed_bytes);
/// The same for host memory (nothing is checked where MemAvailable is unknown).
void require_host_memory(std::size_t n, std::size_t needed_bytes);

}  // namespace warpsort::cli

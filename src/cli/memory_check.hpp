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

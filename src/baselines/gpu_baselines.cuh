// GPU baselines timed beside warpsort through the same code: each sorts keys in device memory,
// in place, on a stream, with its temporary storage allocated beforehand by prepare(), so a
// timed sort() makes no allocation and no host round trip.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace warpsort::baselines {

template <class Key>
class gpu_sorter {
 public:
  virtual ~gpu_sorter() = default;
  /// Short stable identifier used in CSV/JSON and on the command line, e.g. "cub_radix".
  virtual std::string name() const = 0;
  /// Allocates (or grows) temporary device storage for sorts of up to max_n keys.
  /// Throws warpsort::cuda_error if the device cannot hold it.
  virtual void prepare(std::size_t max_n) = 0;
  /// Device bytes prepare(max_n) would hold (for memory checks before allocating).
  virtual std::size_t temp_bytes(std::size_t max_n) const = 0;
  /// Sorts d_keys[0..n) ascending in place, asynchronously on `stream`. n <= prepared max_n.
  virtual void sort(Key* d_keys, std::size_t n, cudaStream_t stream) = 0;
};

/// Names, in report order: "cub_radix" (cub::DeviceRadixSort::SortKeys), "cub_merge"
/// (cub::DeviceMergeSort::SortKeys with less), "thrust_sort" (thrust::sort, std::less: the radix
/// path), "thrust_sort_comparator" (thrust::sort with a user comparator: the merge path),
/// "bitonic_textbook" (the textbook global + shared-memory bitonic sort; docs/references.bib).
std::vector<std::string> gpu_baseline_names();

/// Throws warpsort::input_error for an unknown name.
template <class Key>
std::unique_ptr<gpu_sorter<Key>> make_gpu_baseline(const std::string& name);

}  // namespace warpsort::baselines

// GPU key-value pair baselines timed beside warpsort::sort_pairs, in the style of gpu_sorter<Key>
// (gpu_baselines.cuh): each sorts (key, value) pairs by key in device memory, in place, on a
// stream, with its temporary storage allocated beforehand by prepare(), so a timed sort() makes no
// allocation and no host round trip.
//
// Orders: ascending is warpsort::less<Key>, descending warpsort::greater<Key>; for floating-point
// keys that is the total order of order.cuh (-0.0 and +0.0 equal, NaNs ordered by their bits),
// which is also the order cub::DeviceRadixSort sorts floats by.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace warpsort::baselines {

/// Key, Value: every combination of include/warpsort/key_types.hpp.
template <class Key, class Value>
class gpu_pair_sorter {
 public:
  virtual ~gpu_pair_sorter() = default;
  /// Short stable identifier used in CSV/JSON and on the command line, e.g. "cub_radix_pairs".
  virtual std::string name() const = 0;
  /// Allocates (or grows) temporary device storage for sorts of up to max_n pairs.
  /// Throws warpsort::cuda_error if the device cannot hold it.
  virtual void prepare(std::size_t max_n) = 0;
  /// Device bytes prepare(max_n) would hold (for memory checks before allocating).
  virtual std::size_t temp_bytes(std::size_t max_n) const = 0;
  /// Sorts the pairs (d_keys[i], d_values[i]), i < n, by key in place, asynchronously on
  /// `stream`: ascending (warpsort::less<Key>) or descending (warpsort::greater<Key>).
  /// n <= prepared max_n (warpsort::input_error otherwise, before any device work).
  virtual void sort(Key* d_keys, Value* d_values, std::size_t n, bool descending,
                    cudaStream_t stream) = 0;
  /// True when equal keys are guaranteed to keep their input order (in both directions).
  virtual bool stable() const = 0;
};

/// Names, in report order: "cub_radix_pairs" (cub::DeviceRadixSort::SortPairs /
/// SortPairsDescending; stable), "cub_merge_pairs" (cub::DeviceMergeSort::SortPairs with
/// warpsort::less / greater; not guaranteed stable), "cub_merge_stable_pairs"
/// (cub::DeviceMergeSort::StableSortPairs; stable).
std::vector<std::string> gpu_pair_baseline_names();

/// Constructs only (touches no device). Throws warpsort::input_error for an unknown name.
template <class Key, class Value>
std::unique_ptr<gpu_pair_sorter<Key, Value>> make_gpu_pair_baseline(const std::string& name);

}  // namespace warpsort::baselines

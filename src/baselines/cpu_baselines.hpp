// CPU baselines (loni2024bitonic's CPU bitonic sorts, std::sort, and TBB's parallel sort).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace warpsort::baselines {

/// Names, in report order: "cpu_bitonic_seq", "cpu_bitonic_par", "std_sort", "tbb_parallel_sort".
std::vector<std::string> cpu_baseline_names();

/// Sorts keys[0..n) ascending in place with the named CPU baseline. `threads` is used by the
/// parallel ones (0 = all hardware threads). Any n, not only powers of two.
/// Throws warpsort::input_error for an unknown name.
/// Explicitly instantiated for every key type of include/warpsort/key_types.hpp.
template <class Key>
void cpu_sort(const std::string& name, Key* keys, std::size_t n, unsigned threads = 0);

/// loni2024bitonic's sequential bitonic sort: recursive bitonic sort on a power-of-two
/// padded copy; the padding is removed before returning.
template <class Key>
void cpu_bitonic_sort_sequential(Key* keys, std::size_t n);

/// loni2024bitonic's threaded bitonic sort with a parallel merge.
template <class Key>
void cpu_bitonic_sort_parallel(Key* keys, std::size_t n, unsigned threads);

namespace detail {
/// cpu_bitonic_sort_parallel with an explicit grain: subsequences shorter than `grain` keys are
/// sorted/merged sequentially (the public function uses 2^14). threads == 0: all hardware
/// threads. Exposed so the tests can force the threaded paths on small inputs.
template <class Key>
void cpu_bitonic_sort_parallel_grain(Key* keys, std::size_t n, unsigned threads,
                                     std::size_t grain);
}  // namespace detail

}  // namespace warpsort::baselines

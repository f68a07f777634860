// The distributed fuzz's reference sort (src/cli/dist_reference.cpp): a plain C++ file, so that
// TBB's headers stay out of the CUDA translation units.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace warpsort::cli {

/// Sorts (word, index) pairs ascending, in parallel: with unique indices, a stable sort by word.
void sort_reference(std::vector<std::pair<std::uint64_t, std::uint64_t>>& items);

}  // namespace warpsort::cli

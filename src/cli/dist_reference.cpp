// The distributed fuzz's reference: a host sort of every rank's input (order words with their
// global input index), on every core, so that a 2^24-key case checks in well under a second.
#include "cli/dist_reference.hpp"

#include <tbb/parallel_sort.h>

namespace warpsort::cli {

void sort_reference(std::vector<std::pair<std::uint64_t, std::uint64_t>>& items) {
  tbb::parallel_sort(items.begin(), items.end());
}

}  // namespace warpsort::cli

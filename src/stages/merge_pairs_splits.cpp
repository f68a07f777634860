// Size of step 2's merge-path table (host only).
#include "index_math.hpp"
#include "stages.hpp"

namespace warpsort::stages {

std::size_t merge_pairs_splits(std::size_t n, std::size_t seq_len, const policy& p) {
  const std::size_t tasks = tasks_per_pair(seq_len, p.merge_task_keys);
  if (tasks == 1) return 0;
  return ceil_div(n, 2 * seq_len) * (tasks + 1);
}

}  // namespace warpsort::stages

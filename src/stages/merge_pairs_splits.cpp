// Size of step 2's merge-path table (host only).
#include "index_math.hpp"
#include "stages.hpp"

namespace warpsort::stages {

std::size_t merge_pairs_splits(std::size_t n, std::size_t, const policy& p) {
  return merge_blocks(n, static_cast<std::size_t>(p.merge_block_keys));
}

}  // namespace warpsort::stages

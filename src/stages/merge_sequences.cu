// Step 2 of Warp Sort (Ye et al., IPDPS 2010): merge the sorted sequences pairwise, round after
// round, by warps running the bitonic merge network on tiles (the paper's reversed loads make
// each tile a bitonic sequence), until L sequences are left. Each pair's output is cut into
// blocks by merge path; a block stages its shares of the two sequences in shared memory and
// its warps merge them tile by tile. Version 4 and the paper's preset run it; version 5 makes
// its sequences by rounds of steps 3 and 4 instead (merge_groups.cu). docs/algorithm.md,
// "Step 2".
//
// The kernels (find_block_starts_kernel and its warp form, merge_blocks_kernel, and the paper's
// buffer merge, merge_pairs_by_buffer_kernel) and their launcher stages::merge_sequences_round
// are templates in include/warpsort/detail/stages/merge_sequences_impl.cuh, built on
// warp_merge.cuh and block_merge.cuh: a custom key type instantiates them in its own
// translation unit (warpsort/custom.cuh). This unit compiles them for one key type of the
// library's list (built_types.hpp).
#include "built_types.hpp"

#include <warpsort/detail/stages/merge_sequences_impl.cuh>

WARPSORT_STEP_INSTANTIATE(WARPSORT_INSTANTIATE_MERGE_SEQUENCES)

// Step 4 of Warp Sort (Ye et al., IPDPS 2010): merge every group's pieces, one from each
// sequence, independently, and write the group at its offset in the output. Version 5 gives a
// group to a block: its pieces are copied into shared memory and thread merge levels merge
// them in place, a round's sets at once. The paper's form (warps merge a group's pieces
// pairwise through memory, buffer merge) and version 4's (warp tile merges on chip) remain for
// the ablation. docs/algorithm.md, "Step 4" and "Version 5, rounds of steps 3 and 4".
//
// For small inputs of a few sequences, steps 3 and 4 run as one launch by ranks instead
// (merge_by_rank.cuh). The kernels and launchers (stages::merge_sets for version 5,
// stages::merge_groups, merge_by_rank, group_piece_offsets and merge_groups_round_by_buffer for
// the others) are templates in include/warpsort/detail/stages/merge_groups_impl.cuh, built on
// thread_merge.cuh, block_merge.cuh, buffer_merge.cuh and merge_by_rank.cuh: a custom key type instantiates them in its own
// translation unit (warpsort/custom.cuh). This unit compiles them for one key type of the
// library's list (built_types.hpp).
#include "built_types.hpp"

#include <warpsort/detail/stages/merge_groups_impl.cuh>

WARPSORT_STEP_INSTANTIATE(WARPSORT_INSTANTIATE_MERGE_GROUPS)
WARPSORT_STEP_INSTANTIATE_FLOAT_MAPS(WARPSORT_INSTANTIATE_MERGE_SETS_MAPPED, writes_ascending,
                                     writes_descending)

// Step 1 of Warp Sort (Ye et al., IPDPS 2010): sort the input in chunks, a warp's bitonic sort
// network per chunk. Version 5 (the library's sort) gives a block 8192 keys: each warp sorts
// 1024 of them in registers, then thread merge levels merge the warps' runs on chip, so the
// step writes sorted blocks in one pass over memory. The paper's form (a warp per 128-key chunk,
// nothing merged) and version 4's (warp tile merges on chip) remain for the ablation.
// docs/algorithm.md, "Step 1".
//
// The kernels (sort_blocks_by_threads_kernel, sort_blocks_kernel, sort_chunks_by_warps_kernel)
// and their launcher stages::sort_chunks are templates in
// include/warpsort/detail/stages/sort_chunks_impl.cuh, built on the warp networks of
// warp_network.cuh and the thread merge of thread_merge.cuh: a custom key type instantiates them
// in its own translation unit (warpsort/custom.cuh). This unit compiles them for one key type
// of the library's list (built_types.hpp).
#include "built_types.hpp"

#include <warpsort/detail/stages/sort_chunks_impl.cuh>

WARPSORT_STEP_INSTANTIATE(WARPSORT_INSTANTIATE_SORT_CHUNKS)
WARPSORT_STEP_INSTANTIATE_FLOAT_MAPS(WARPSORT_INSTANTIATE_SORT_CHUNKS_MAPPED, reads_ascending,
                                     reads_descending)

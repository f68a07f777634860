// Step 3 of Warp Sort (Ye et al., IPDPS 2010): split the L sorted sequences into groups that
// can be merged independently. Every s-th key of each sequence is sampled, the samples are
// ordered by (key, position), every K-th is a splitter, and every sequence is cut at every
// splitter by a search; no group then holds more than (K + L) s keys, whatever the keys
// (duplicates are split by position). Version 5 does this for every set of a round's sequences
// at once, ranking small sets' samples on chip and sorting larger ones with CUB.
// docs/algorithm.md, "Step 3" and "Version 5, rounds of steps 3 and 4".
//
// The kernels and launchers (stages::split for one set of sequences, stages::split_sets for a
// round's sets, and their temporary-storage queries) are templates in
// include/warpsort/detail/stages/splitters.cuh and split_sets_impl.cuh: a custom key type
// instantiates them in its own translation unit (warpsort/custom.cuh). This unit compiles them
// for one key type of the library's list (built_types.hpp).
#include "built_types.hpp"

#include <warpsort/detail/stages/split_sets_impl.cuh>

WARPSORT_STEP_INSTANTIATE(WARPSORT_INSTANTIATE_SPLIT)

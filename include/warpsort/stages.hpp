// Each of Warp Sort's four steps alone, as host launchers: what the pipeline
// (detail/pipeline_impl.cuh) chains, and what a study of one step calls. The kernels and
// launchers are templates in include/warpsort/detail/stages/<step>_impl.cuh; the library
// compiles them for its key types, both orders, in src/stages/<step>.cu (a custom key type
// includes warpsort/custom.cuh instead). All are asynchronous on `stream`; every launch is
// checked.
#pragma once

#include <warpsort/detail/stages/index_math.hpp>

#include <warpsort/ablation.cuh>
#include <warpsort/policy.hpp>
#include <warpsort/warpsort.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>

namespace warpsort::stages {

struct same_words;  // the keys as they are (detail/stages/word_map.cuh: maps where keys enter
                    // and leave the steps)

/// Step 1: sorts every block of p.block_sort_keys keys of in[0..n) on chip into out (in may
/// equal out): warps sort runs in registers, threads merge them with in-register networks.
/// Each key read is mapped by LoadMap (floats' bits to their order words).
template <class Key, class Comp, class LoadMap = same_words>
void sort_chunks(const Key* in, Key* out, std::size_t n, Comp comp, const policy& p,
                 cudaStream_t stream);
/// Version 4's step 1: blocks of p.block_sort_keys sorted by warps' 128-key chunks merged
/// in shared memory, or, with block_sort_keys = 128, the paper's: every 128-key chunk sorted
/// by a warp. A partial last chunk is padded in registers with the order's sentinel, which is
/// never stored.
template <class Key, class Comp>
void sort_chunks(const Key* in, Key* out, std::size_t n, Comp comp, const ablation::design& p,
                 cudaStream_t stream);

/// Step 2, one round: merges the sorted sequences of `seq_len` keys from in two by two into
/// out (sequences of 2 seq_len). `block_starts` holds block_start_entries(n, p) entries.
template <class Key, class Comp>
void merge_sequences_round(const Key* in, Key* out, std::size_t n, std::size_t seq_len,
                           std::size_t* block_starts, Comp comp, const ablation::design& p,
                           cudaStream_t stream);

/// Entries of step 2's table of where each output block starts (one a block of a round).
inline std::size_t block_start_entries(std::size_t n, const ablation::design& p) {
  return merge_blocks(n, static_cast<std::size_t>(p.merge_block_keys));
}

/// Step 3's output, in device memory: cuts[j * L + i] is where group j ends in sequence i
/// (j < groups - 1); group_offsets[j] is where group j starts in the output (groups + 1
/// entries, the last equal to n).
struct split_layout {
  std::size_t* cuts = nullptr;
  std::size_t* group_offsets = nullptr;
};

/// Step 3's device scratch: sample keys and positions, CUB's sort storage, cuts and offsets.
template <class Key, class Comp>
std::size_t split_temp_bytes(std::size_t samples, std::size_t sequences, std::size_t groups);

/// Step 3: samples every `stride`-th key of the L sorted sequences in src, sorts the sample
/// by (key, position), takes every K-th as a splitter and cuts every sequence at every
/// splitter. Returns where cuts and group offsets were written inside `temp`.
template <class Key, class Comp>
split_layout split(const Key* src, std::size_t n, std::size_t seq_len, std::size_t sequences,
                   std::size_t stride, std::size_t samples, std::size_t groups, void* temp,
                   std::size_t temp_bytes, Comp comp, const ablation::design& p,
                   cudaStream_t stream);

/// A round of version 5 as its kernels see it.
inline round_shape shape_of(std::size_t n, const merge_round& m, const policy& p) {
  return {n,      m.sequence_keys, m.sequences,   m.set_sequences,   m.sets,
          m.sample_stride, m.set_samples, m.set_groups, m.last_set_groups, m.groups,
          static_cast<std::size_t>(oversampling_of(p))};
}

/// Version 5, step 3 of one round: for every set of the round's sequences, the splitters and
/// the cut of each of its sequences at each of them (temporary storage as split_sets_temp_bytes
/// says). cuts[g * k + i] is where group g ends in the set's sequence i, for every group but a
/// set's last; group_offsets[g] where group g starts in the output (groups + 1 entries).
template <class Key, class Comp>
std::size_t split_sets_temp_bytes(const merge_round& m);
template <class Key, class Comp>
split_layout split_sets(const Key* src, std::size_t n, const merge_round& m, void* temp,
                        std::size_t temp_bytes, Comp comp, const policy& p, cudaStream_t stream);

/// Version 5, step 4 of one round: one block per group merges the group's pieces (one from
/// each sequence of its set) in shared memory with thread networks and writes the result at
/// the group's offset in out, each key mapped by StoreMap (the last round: order words back
/// to floats' bits).
template <class Key, class Comp, class StoreMap = same_words>
void merge_sets(const Key* src, Key* out, std::size_t n, const merge_round& m,
                const split_layout& layout, Comp comp, const policy& p, cudaStream_t stream);

/// Step 4: one block per group merges the group's L pieces in shared memory and writes the
/// result at the group's offset in out.
template <class Key, class Comp>
void merge_groups(const Key* src, Key* out, std::size_t n, std::size_t seq_len,
                  std::size_t sequences, std::size_t groups, const split_layout& layout,
                  Comp comp, const ablation::design& p, cudaStream_t stream);

/// Steps 3 and 4 for small inputs (design::rank_merge_keys): one block per sequence stages all
/// n keys in shared memory and writes each key of its sequence at its rank among all of them.
template <class Key, class Comp>
void merge_by_rank(const Key* src, Key* out, std::size_t n, std::size_t seq_len, Comp comp,
                   cudaStream_t stream);

/// The paper's step 4 (policy::groups_on_chip = 0), first: pieces[g (L + 1) + i] = keys of
/// group g in sequences before i, counted from the group's start ((L + 1) groups entries).
template <class Key, class Comp>
void group_piece_offsets(std::size_t n, std::size_t seq_len, std::size_t sequences,
                         std::size_t groups, const split_layout& layout, std::size_t* pieces,
                         cudaStream_t stream);

/// The paper's step 4, round `round` of ceil(log2 L): in every group, warps merge the runs of
/// 2^round pieces pairwise with the buffer merge, from src into dst. Round 0 reads step 2's
/// sequences; every round writes each run at its final place, so the last writes the output.
template <class Key, class Comp>
void merge_groups_round_by_buffer(const Key* src, Key* dst, std::size_t seq_len,
                                  std::size_t sequences, std::size_t groups, int round,
                                  const split_layout& layout, const std::size_t* pieces,
                                  Comp comp, const ablation::design& p, cudaStream_t stream);

}  // namespace warpsort::stages

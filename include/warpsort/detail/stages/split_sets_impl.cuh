#pragma once
// Step 3's two entries, both the one sample / sort / cut of splitters.cuh over sequences of one
// length: the library's round (split_sets: every set of k sequences at once) and the ablation's
// designs (split: the L sequences as one set, key-only splitters for the paper's).
#include "index_math.hpp"
#include "splitters.cuh"
#include <warpsort/ablation.cuh>
#include <warpsort/stages.hpp>

namespace warpsort::stages {

/// Whether step 3 ranks this round's samples on chip: the plan says so (a small round) and a
/// set's samples fit a block's shared memory for this key type (on the current device, or on
/// one with `most_bytes`).
template <class Key>
bool ranks_set_samples_on_chip(const merge_round& m, std::size_t most_bytes) {
  return m.ranks_on_chip && m.set_samples * sizeof(Key) <= most_bytes;
}
template <class Key>
bool ranks_set_samples_on_chip(const merge_round& m) {
  return ranks_set_samples_on_chip<Key>(m, on_chip_sample_bytes(device_limits_of()));
}

/// The library's rounds rank small rounds' samples staged in shared memory, merge the sample
/// lists of small sets of 4-byte keys on chip, sort the others.
template <class Key, class Comp>
sample_order set_sample_order(const merge_round& m) {
  if (ranks_set_samples_on_chip<Key>(m)) return sample_order::ranked_staged;
  return merges_set_samples<Key, Comp>(m.set_samples) ? sample_order::merged_sets
                                                      : sample_order::sorted;
}

template <class Key, class Comp>
std::size_t split_sets_temp_bytes(const merge_round& m) {
  const equal_sequences<Key> l =
      equal_sequences_of<Key>(nullptr, shape_of(0, m, policy{}), m.samples);
  return split_sequences_temp_bytes<equal_sequences<Key>, Comp>(l, set_sample_order<Key, Comp>(m));
}

template <class Key, class Comp>
split_layout split_sets(const Key* src, std::size_t n, const merge_round& m, void* temp,
                        std::size_t temp_bytes, Comp comp, const policy& p,
                        cudaStream_t stream) {
  const equal_sequences<Key> l = equal_sequences_of(src, shape_of(n, m, p), m.samples);
  return split_sequences(l, set_sample_order<Key, Comp>(m), true, temp, temp_bytes, comp, stream);
}

/// The ablation's L sequences as one set of a round.
inline round_shape one_set_shape(std::size_t n, std::size_t seq_len, std::size_t sequences,
                                 std::size_t stride, std::size_t samples, std::size_t groups,
                                 std::size_t oversampling) {
  return {n, seq_len, sequences, sequences, 1, stride, samples, groups, groups, groups,
          oversampling};
}

template <class Key, class Comp>
std::size_t split_temp_bytes(std::size_t samples, std::size_t sequences, std::size_t groups) {
  const equal_sequences<Key> l = equal_sequences_of<Key>(
      nullptr, one_set_shape(0, 0, sequences, 1, samples, groups, 1), samples);
  return split_sequences_temp_bytes<equal_sequences<Key>, Comp>(l, sample_order::sorted);
}

template <class Key, class Comp>
split_layout split(const Key* src, std::size_t n, std::size_t seq_len, std::size_t sequences,
                   std::size_t stride, std::size_t samples, std::size_t groups, void* temp,
                   std::size_t temp_bytes, Comp comp, const ablation::design& p,
                   cudaStream_t stream) {
  const equal_sequences<Key> l = equal_sequences_of(
      src,
      one_set_shape(n, seq_len, sequences, stride, samples, groups,
                    static_cast<std::size_t>(p.oversampling)),
      samples);
  // one set: ranked in place (a warp a sample); ranking orders samples by (key, position), so
  // key-only splitters sort them by key
  const bool ranked = p.splitter_positions != 0 && samples > 0 &&
                      samples <= static_cast<std::size_t>(p.max_ranked_samples);
  return split_sequences(l, ranked ? sample_order::ranked_in_place : sample_order::sorted,
                         p.splitter_positions != 0, temp, temp_bytes, comp, stream);
}

}  // namespace warpsort::stages

// Explicit instantiation for one (key type, order), both versions' step 3; src/stages/<step>.cu
// expands it for the built-in key types.
#define WARPSORT_INSTANTIATE_SPLIT(Key, Comp)                                                       \
  template std::size_t warpsort::stages::split_temp_bytes<Key, Comp>(std::size_t, std::size_t,      \
                                                                     std::size_t);                  \
  template warpsort::stages::split_layout warpsort::stages::split<Key, Comp>(                      \
      const Key*, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t,    \
      void*, std::size_t, Comp, const warpsort::ablation::design&, cudaStream_t);                  \
  template std::size_t warpsort::stages::split_sets_temp_bytes<Key, Comp>(                          \
      const warpsort::merge_round&);                                                                \
  template warpsort::stages::split_layout warpsort::stages::split_sets<Key, Comp>(                 \
      const Key*, std::size_t, const warpsort::merge_round&, void*, std::size_t, Comp,             \
      const warpsort::policy&, cudaStream_t);

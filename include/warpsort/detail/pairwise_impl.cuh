#pragma once
// Version 4's pipeline: step 1, step 2's pairwise merge rounds until at most L sequences
// remain, then steps 3 and 4 once; each of the ablation's designs (warpsort/ablation.cuh) is a
// set of switches over it, and the library's sort takes it for small inputs.
#include <warpsort/ablation.cuh>
#include <warpsort/detail/event_marks.hpp>
#include <warpsort/detail/stages/launch.hpp>
#include <warpsort/detail/stages/temp_storage.hpp>
#include <warpsort/stages.hpp>

#include <cstddef>

namespace warpsort::detail {

/// Its temporary storage (host side).
struct pairwise_storage {
  void* keys;                 // the ping-pong partner of d_out
  std::size_t* block_starts;  // step 2: where each output block starts
  void* split_temp;           // step 3
  std::size_t split_bytes;
  std::size_t* pieces;        // the paper's step 4: where each group's pieces start in it
};

template <class Key, class Comp>
pairwise_storage carve_pairwise(stages::temp_carver& c, const ablation::pairwise_plan& plan,
                                const ablation::design& d) {
  pairwise_storage s{};
  s.keys = c.take<Key>(plan.n);
  s.block_starts = c.take<std::size_t>(plan.pairwise_rounds > 0 && !d.buffer_merge_pairs
                                           ? stages::block_start_entries(plan.n, d)
                                           : 0);
  s.split_bytes = plan.has_groups()
                      ? stages::split_temp_bytes<Key, Comp>(plan.samples, plan.sequences, plan.groups)
                      : 0;
  s.split_temp = c.take_bytes(s.split_bytes);
  s.pieces = c.take<std::size_t>(plan.has_groups() && !d.groups_on_chip
                                     ? plan.groups * (plan.sequences + 1)
                                     : 0);
  return s;
}

/// Sorts n keys of d_in into d_out with the design `sized` (already sized for n).
template <class Key, class Comp>
void sort_pairwise(void* d_temp, std::size_t& temp_bytes, const Key* d_in, Key* d_out,
                   std::size_t n, Comp comp, cudaStream_t stream, const ablation::design& sized,
                   stage_times* times) {
  const ablation::design& d = sized;
  const ablation::pairwise_plan plan = ablation::make_plan(n, d);
  stages::temp_carver carver(d_temp);
  const pairwise_storage s = carve_pairwise<Key, Comp>(carver, plan, d);
  if (!stages::storage_ready(carver, d_temp, temp_bytes, "warpsort::sort_keys")) return;
  if (n > 0 && (d_in == nullptr || d_out == nullptr))
    throw input_error("warpsort::sort_keys: null key pointer");

  event_marks<5> events(times != nullptr, stream);
  // Each pass writes to the other buffer; the last one must write d_out.
  const int passes = plan.passes();
  Key* temp_keys = static_cast<Key*>(s.keys);
  auto target = [&](int pass) { return (passes - 1 - pass) % 2 == 0 ? d_out : temp_keys; };

  events.mark(0);
  stages::sort_chunks(d_in, target(0), n, comp, d, stream);
  events.mark(1);
  std::size_t seq = static_cast<std::size_t>(d.block_sort_keys);
  for (int r = 0; r < plan.pairwise_rounds; ++r, seq *= 2)
    stages::merge_sequences_round<Key, Comp>(target(r), target(r + 1), n, seq, s.block_starts,
                                             comp, d, stream);
  events.mark(2);
  // few sequences that one block holds: every key written at its rank, one launch for both steps
  const bool by_rank = plan.has_groups() && d.groups_on_chip &&
                       n <= static_cast<std::size_t>(d.rank_merge_keys) &&
                       n * sizeof(Key) <= stages::smem_opt_in_bytes();
  stages::split_layout layout;
  if (plan.has_groups() && !by_rank)
    layout = stages::split<Key, Comp>(target(plan.pairwise_rounds), n, plan.sequence_keys,
                                      plan.sequences, plan.sample_stride, plan.samples,
                                      plan.groups, s.split_temp, s.split_bytes, comp, d, stream);
  events.mark(3);
  if (by_rank) {
    stages::merge_by_rank<Key, Comp>(target(plan.pairwise_rounds), d_out, n, plan.sequence_keys,
                                     comp, stream);
  } else if (plan.has_groups() && d.groups_on_chip) {
    stages::merge_groups<Key, Comp>(target(plan.pairwise_rounds), d_out, n, plan.sequence_keys,
                                    plan.sequences, plan.groups, layout, comp, d, stream);
  } else if (plan.has_groups()) {  // the paper's: rounds through memory, the last into d_out
    stages::group_piece_offsets<Key, Comp>(n, plan.sequence_keys, plan.sequences, plan.groups,
                                           layout, s.pieces, stream);
    for (int r = 0; r < plan.group_rounds; ++r)
      stages::merge_groups_round_by_buffer<Key, Comp>(
          target(plan.pairwise_rounds + r), target(plan.pairwise_rounds + r + 1),
          plan.sequence_keys, plan.sequences, plan.groups, r, layout, s.pieces, comp, d, stream);
  }
  events.mark(4);
  if (times) {
    *times = stage_times{};
    events.read({&times->sort_chunks_ms, &times->merge_sequences_ms, &times->split_ms,
                 &times->merge_groups_ms});
  }
}

}  // namespace warpsort::detail

#pragma once
// The four steps chained on one stream. The plan (every size and count) follows from n and the
// policy alone, so nothing is read back from the device until the sort is done.
#include <warpsort/detail/aliasing.hpp>
#include <warpsort/detail/device_limits.hpp>
#include <warpsort/detail/event_marks.hpp>
#include <warpsort/detail/stages/index_math.hpp>
#include <warpsort/stages.hpp>
#include <warpsort/detail/stages/temp_storage.hpp>

#include <warpsort/warpsort.cuh>

#include <cuda/std/bit>
#include <cuda/std/type_traits>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace warpsort {

/// The pipeline's temporary storage (host side).
namespace pipeline_detail {

struct pipeline_storage {
  void* keys;            // the ping-pong partner of d_out
  std::size_t* block_starts;  // step 2: where each output block starts
  void* split_temp;      // step 3
  std::size_t split_bytes;
  std::size_t* pieces;   // the paper's step 4: where each group's pieces start in it
};

template <class Key, class Comp>
pipeline_storage carve(stages::temp_carver& c, const sort_plan& plan, const policy& p) {
  pipeline_storage s{};
  s.keys = c.take<Key>(plan.n);
  s.block_starts = c.take<std::size_t>(plan.pairwise_rounds > 0 && !p.buffer_merge_pairs
                                          ? stages::block_start_entries(plan.n, p)
                                          : 0);
  s.split_bytes = plan.has_groups()
                      ? stages::split_temp_bytes<Key, Comp>(plan.samples, plan.sequences, plan.groups)
                      : 0;
  for (int r = 0; r < plan.round_count; ++r)  // version 5: the rounds reuse one split storage
    s.split_bytes = std::max(s.split_bytes,
                             stages::split_sets_temp_bytes<Key, Comp>(plan.rounds[r]));
  s.split_temp = c.take_bytes(s.split_bytes);
  s.pieces = c.take<std::size_t>(plan.has_groups() && !p.groups_on_chip
                                     ? plan.groups * (plan.sequences + 1)
                                     : 0);
  return s;
}

}  // namespace pipeline_detail

// Floats in warpsort's orders sort as unsigned integers (below); those sorts are instantiated
// once, in the uint32_t and uint64_t translation units.
extern template void sort_keys<std::uint32_t, less<std::uint32_t>>(
    void*, std::size_t&, const std::uint32_t*, std::uint32_t*, std::size_t, less<std::uint32_t>,
    cudaStream_t, const policy&, stage_times*);
extern template void sort_keys<std::uint64_t, less<std::uint64_t>>(
    void*, std::size_t&, const std::uint64_t*, std::uint64_t*, std::size_t, less<std::uint64_t>,
    cudaStream_t, const policy&, stage_times*);

namespace detail {

template <class Map>
__global__ void floats_to_bits_kernel(const typename Map::key_type* in,
                                      typename Map::bits* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = Map::to(in[i]);
}

template <class Map>
__global__ void bits_to_floats_kernel(typename Map::bits* inout, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) reinterpret_cast<typename Map::key_type*>(inout)[i] = Map::from(inout[i]);
}

/// Floats: map into d_out as words, sort the words in place, map back. Two element-wise passes
/// more than an integer sort, outside the four steps' times.
template <class Float, class Comp>
void sort_floats_as_bits(void* d_temp, std::size_t& temp_bytes, const Float* d_in, Float* d_out,
                         std::size_t n, cudaStream_t stream, const policy& tuning,
                         stage_times* times) {
  using map = order_words_for<Float, Comp>;
  using bits = typename map::bits;
  bits* words = reinterpret_cast<bits*>(d_out);
  // every check before the first map: a throw must leave the caller's keys as they were
  std::size_t inner_bytes = 0;
  sort_keys<bits, less<bits>>(nullptr, inner_bytes, nullptr, nullptr, n, {}, stream, tuning);
  stages::temp_carver carver(d_temp);
  void* inner = carver.take_bytes(inner_bytes);
  if (!stages::storage_ready(carver, d_temp, temp_bytes, "warpsort::sort_keys")) return;
  if (n > 0 && (d_in == nullptr || d_out == nullptr))
    throw input_error("warpsort::sort_keys: null key pointer");
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>(stages::ceil_div(n, threads));
  if (n > 0) {
    floats_to_bits_kernel<map><<<blocks, threads, 0, stream>>>(d_in, words, n);
    WARPSORT_CHECK_LAUNCH();
  }
  sort_keys<bits, less<bits>>(inner, inner_bytes, words, words, n, {}, stream, tuning, times);
  if (n > 0) {
    bits_to_floats_kernel<map><<<blocks, threads, 0, stream>>>(words, n);
    WARPSORT_CHECK_LAUNCH();
  }
}

/// The four steps on one stream.
template <class Key, class Comp>
void sort_by_four_steps(void* d_temp, std::size_t& temp_bytes, const Key* d_in, Key* d_out,
                        std::size_t n, Comp comp, cudaStream_t stream, const policy& given,
                        stage_times* times) {
  const policy tuning = sized_for(given, n, sizeof(Key));
  const sort_plan plan = make_plan(n, tuning);
  if (tuning.variant >= 5) check_block_shapes<Key>(plan, tuning);
  stages::temp_carver carver(d_temp);
  const pipeline_detail::pipeline_storage s =
      pipeline_detail::carve<Key, Comp>(carver, plan, tuning);
  if (!stages::storage_ready(carver, d_temp, temp_bytes, "warpsort::sort_keys")) return;
  if (n > 0 && (d_in == nullptr || d_out == nullptr))
    throw input_error("warpsort::sort_keys: null key pointer");

  detail::event_marks<5> events(times != nullptr, stream);
  const auto read_times = [&] {
    if (!times) return;
    *times = stage_times{};
    events.read({&times->sort_chunks_ms, &times->merge_sequences_ms, &times->split_ms,
                 &times->merge_groups_ms});
  };
  // Each pass writes to the other buffer; the last one must write d_out.
  const int passes = 1 + (tuning.variant >= 5 ? plan.round_count
                                               : plan.pairwise_rounds +
                                                     (plan.has_groups() ? plan.group_rounds : 0));
  Key* temp_keys = static_cast<Key*>(s.keys);
  auto target = [&](int pass) { return (passes - 1 - pass) % 2 == 0 ? d_out : temp_keys; };

  events.mark(0);
  stages::sort_chunks(d_in, target(0), n, comp, tuning, stream);
  events.mark(1);
  if (tuning.variant >= 5) {
    // version 5: rounds of steps 3 and 4 over sets of sequences; all but the last are step 2
    const auto round = [&](int r, int mark_between) {
      const stages::split_layout layout = stages::split_sets<Key, Comp>(
          target(r), n, plan.rounds[r], s.split_temp, s.split_bytes, comp, tuning, stream);
      if (mark_between >= 0) events.mark(mark_between);
      stages::merge_sets<Key, Comp>(target(r), target(r + 1), n, plan.rounds[r], layout, comp,
                                    tuning, stream);
    };
    for (int r = 0; r + 1 < plan.round_count; ++r) round(r, -1);
    events.mark(2);
    if (plan.round_count > 0) round(plan.round_count - 1, 3);
    else events.mark(3);
    events.mark(4);
    read_times();
    return;
  }
  std::size_t seq = static_cast<std::size_t>(tuning.block_sort_keys);
  for (int r = 0; r < plan.pairwise_rounds; ++r, seq *= 2)
    stages::merge_sequences_round<Key, Comp>(target(r), target(r + 1), n, seq, s.block_starts, comp, tuning,
                                         stream);
  events.mark(2);
  stages::split_layout layout;
  if (plan.has_groups())
    layout = stages::split<Key, Comp>(target(plan.pairwise_rounds), n, plan.sequence_keys,
                                      plan.sequences, plan.sample_stride, plan.samples,
                                      plan.groups, s.split_temp, s.split_bytes, comp, tuning,
                                      stream);
  events.mark(3);
  if (plan.has_groups() && tuning.groups_on_chip) {
    stages::merge_groups<Key, Comp>(target(plan.pairwise_rounds), d_out, n, plan.sequence_keys,
                                    plan.sequences, plan.groups, layout, comp, tuning, stream);
  } else if (plan.has_groups()) {  // the paper's: rounds through memory, the last into d_out
    stages::group_piece_offsets<Key, Comp>(n, plan.sequence_keys, plan.sequences, plan.groups,
                                           layout, s.pieces, stream);
    for (int r = 0; r < plan.group_rounds; ++r)
      stages::merge_groups_round_by_buffer<Key, Comp>(
          target(plan.pairwise_rounds + r), target(plan.pairwise_rounds + r + 1), plan.sequence_keys,
          plan.sequences, plan.groups, r, layout, s.pieces, comp, tuning, stream);
  }
  events.mark(4);
  read_times();
}

}  // namespace detail

template <class Key, class Comp>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_in, Key* d_out, std::size_t n,
               Comp comp, cudaStream_t stream, const policy& tuning, stage_times* times) {
  if (d_temp != nullptr)
    detail::refuse_overlaps("warpsort::sort_keys",
                            {{"keys_in", d_in, n * sizeof(Key)},
                             {"keys_out", d_out, n * sizeof(Key)},
                             {"the temporary storage", d_temp, temp_bytes}},
                            {{0, 1}});
  if constexpr (order_traits<Key, Comp>::sorts_as_bits)
    detail::sort_floats_as_bits<Key, Comp>(d_temp, temp_bytes, d_in, d_out, n, stream, tuning,
                                           times);
  else
    detail::sort_by_four_steps(d_temp, temp_bytes, d_in, d_out, n, comp, stream, tuning, times);
}

}  // namespace warpsort

// Explicit instantiation for one (key type, order); see cmake/warpsort_instantiate.cmake.
#define WARPSORT_INSTANTIATE_PIPELINE(Key, Comp)                                                          \
  template void warpsort::sort_keys<Key, Comp>(void*, std::size_t&, const Key*, Key*, std::size_t, Comp,  \
                                     cudaStream_t, const warpsort::policy&, warpsort::stage_times*);

#pragma once
// The library's sort: the four steps chained on one stream (and the ablation's designs beside
// it, ablation::sort_keys). The plan (every size and count) follows from n and the policy
// alone, so nothing is read back from the device until the sort is done.
#include <warpsort/detail/aliasing.hpp>
#include <warpsort/detail/pairwise_impl.cuh>
#include <warpsort/detail/event_marks.hpp>
#include <warpsort/detail/stages/index_math.hpp>
#include <warpsort/stages.hpp>
#include <warpsort/detail/stages/temp_storage.hpp>
#include <warpsort/detail/stages/word_map.cuh>

#include <warpsort/warpsort.cuh>

#include <cuda/std/bit>
#include <cuda/std/type_traits>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

namespace warpsort {

/// The pipeline's temporary storage (host side).
namespace pipeline_detail {

struct pipeline_storage {
  void* keys;            // the ping-pong partner of d_out
  void* split_temp;      // step 3, reused by every round
  std::size_t split_bytes;
};

template <class Key, class Comp>
pipeline_storage carve(stages::temp_carver& c, const sort_plan& plan) {
  pipeline_storage s{};
  s.keys = c.take<Key>(plan.n);
  s.split_bytes = 0;
  for (int r = 0; r < plan.round_count; ++r)
    s.split_bytes = std::max(s.split_bytes,
                             stages::split_sets_temp_bytes<Key, Comp>(plan.rounds[r]));
  s.split_temp = c.take_bytes(s.split_bytes);
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
namespace ablation {
extern template void sort_keys<std::uint32_t, less<std::uint32_t>>(
    void*, std::size_t&, const std::uint32_t*, std::uint32_t*, std::size_t, less<std::uint32_t>,
    cudaStream_t, const design&, stage_times*);
extern template void sort_keys<std::uint64_t, less<std::uint64_t>>(
    void*, std::size_t&, const std::uint64_t*, std::uint64_t*, std::size_t, less<std::uint64_t>,
    cudaStream_t, const design&, stage_times*);
}  // namespace ablation

namespace detail {

/// Floats in passes of their own (the ablation's designs, and the library's small inputs): map
/// into d_out as words, sort the words in place with sort_words(temp, bytes, words, times)
/// (first called with null pointers: only the bytes it needs), map back. Two element-wise
/// passes more than an integer sort, outside the four steps' times.
template <class Float, class Comp, class SortWords>
void sort_floats_as_bits(void* d_temp, std::size_t& temp_bytes, const Float* d_in, Float* d_out,
                         std::size_t n, cudaStream_t stream, stage_times* times,
                         SortWords sort_words) {
  using map = order_words_for<Float, Comp>;
  using bits = typename map::bits;
  bits* words = reinterpret_cast<bits*>(d_out);
  // every check before the first map: a throw must leave the caller's keys as they were
  std::size_t inner_bytes = 0;
  sort_words(nullptr, inner_bytes, static_cast<bits*>(nullptr), nullptr);
  stages::temp_carver carver(d_temp);
  void* inner = carver.take_bytes(inner_bytes);
  if (!stages::storage_ready(carver, d_temp, temp_bytes, "warpsort::sort_keys")) return;
  if (n > 0 && (d_in == nullptr || d_out == nullptr))
    throw input_error("warpsort::sort_keys: null key pointer");
  stages::map_words<stages::key_to_order_word<Float, Comp>>(reinterpret_cast<const bits*>(d_in),
                                                            words, n, stream);
  sort_words(inner, inner_bytes, words, times);
  stages::map_words<stages::order_word_to_key<Float, Comp>>(words, words, n, stream);
}

/// The four steps on one stream: plan_for fits the policy to n and the device; then step 1 and the plan's
/// rounds of steps 3 and 4 (all but the last are step 2), or, for small inputs, version 4's
/// pairwise path. Step 1 maps what it reads by LoadMap, the last round what it writes by
/// StoreMap (word_map.cuh: floats as their order words; with no round, a pass of its own maps
/// the output). Mapped sorts never take the small-input path: their callers map around it.
template <class Key, class Comp, class LoadMap = stages::same_words,
          class StoreMap = stages::same_words>
void sort_by_four_steps(void* d_temp, std::size_t& temp_bytes, const Key* d_in, Key* d_out,
                        std::size_t n, Comp comp, cudaStream_t stream, const policy& given,
                        stage_times* times) {
  const sized_plan sized = plan_for(n, sizeof(Key), given, device_limits_of());
  if (sized.pairwise) {
    if constexpr (LoadMap::identity && StoreMap::identity)
      sort_pairwise(d_temp, temp_bytes, d_in, d_out, n, comp, stream,
                    ablation::small_input_design(n, sizeof(Key)), times);
    else
      throw input_error("warpsort::sort_keys: a mapped sort took the small-input path (a bug)");
    return;
  }
  const policy& tuning = sized.tuning;
  const sort_plan& plan = sized.plan;
  stages::temp_carver carver(d_temp);
  const pipeline_detail::pipeline_storage s = pipeline_detail::carve<Key, Comp>(carver, plan);
  if (!stages::storage_ready(carver, d_temp, temp_bytes, "warpsort::sort_keys")) return;
  if (n > 0 && (d_in == nullptr || d_out == nullptr))
    throw input_error("warpsort::sort_keys: null key pointer");

  detail::event_marks<5> events(times != nullptr, stream);
  // Each pass writes to the other buffer; the last one must write d_out.
  const int passes = 1 + plan.round_count;
  Key* temp_keys = static_cast<Key*>(s.keys);
  auto target = [&](int pass) { return (passes - 1 - pass) % 2 == 0 ? d_out : temp_keys; };
  const auto round = [&](int r, int mark_between) {
    const stages::split_layout layout = stages::split_sets<Key, Comp>(
        target(r), n, plan.rounds[r], s.split_temp, s.split_bytes, comp, tuning, stream);
    if (mark_between >= 0) events.mark(mark_between);
    if (r + 1 == plan.round_count)
      stages::merge_sets<Key, Comp, StoreMap>(target(r), target(r + 1), n, plan.rounds[r], layout,
                                              comp, tuning, stream);
    else
      stages::merge_sets<Key, Comp>(target(r), target(r + 1), n, plan.rounds[r], layout, comp,
                                    tuning, stream);
  };

  events.mark(0);
  stages::sort_chunks<Key, Comp, LoadMap>(d_in, target(0), n, comp, tuning, stream);
  events.mark(1);
  for (int r = 0; r + 1 < plan.round_count; ++r) round(r, -1);
  events.mark(2);
  if (plan.round_count > 0) round(plan.round_count - 1, 3);
  else events.mark(3);
  events.mark(4);
  if (plan.round_count == 0) stages::map_words<StoreMap>(d_out, d_out, n, stream);
  if (times) {
    *times = stage_times{};
    events.read({&times->sort_chunks_ms, &times->merge_sequences_ms, &times->split_ms,
                 &times->merge_groups_ms});
  }
}

/// The entry both sorts of keys share (the library's and the ablation's, `who`): overlapping
/// arrays refused before any work, then sort().
template <class Key, class Sort>
void enter_sort_keys(const char* who, void* d_temp, std::size_t temp_bytes, const Key* d_in,
                     Key* d_out, std::size_t n, Sort sort) {
  if (d_temp != nullptr)
    refuse_overlaps(who,
                    {{"keys_in", d_in, n * sizeof(Key)},
                     {"keys_out", d_out, n * sizeof(Key)},
                     {"the temporary storage", d_temp, temp_bytes}},
                    {{0, 1}});
  sort();
}

/// The library's sort of floats: their order words through the four steps, step 1 reading the
/// floats and the last round writing them (no passes of their own); small inputs, whose path
/// has no such places, map in passes around the word sort (sort_floats_as_bits).
template <class Float, class Comp, class SortWords>
void sort_floats_in_steps(void* d_temp, std::size_t& temp_bytes, const Float* d_in,
                          Float* d_out, std::size_t n, cudaStream_t stream, const policy& tuning,
                          stage_times* times, SortWords sort_words) {
  using bits = typename order_words_for<Float, Comp>::bits;
  if (plan_for(n, sizeof(bits), tuning, device_limits_of()).pairwise) {
    sort_floats_as_bits<Float, Comp>(d_temp, temp_bytes, d_in, d_out, n, stream, times,
                                     sort_words);
    return;
  }
  sort_by_four_steps<bits, less<bits>, stages::key_to_order_word<Float, Comp>,
                     stages::order_word_to_key<Float, Comp>>(
      d_temp, temp_bytes, reinterpret_cast<const bits*>(d_in), reinterpret_cast<bits*>(d_out), n,
      {}, stream, tuning, times);
}

}  // namespace detail

template <class Key, class Comp>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_in, Key* d_out, std::size_t n,
               Comp comp, cudaStream_t stream, const policy& tuning, stage_times* times) {
  detail::enter_sort_keys("warpsort::sort_keys", d_temp, temp_bytes, d_in, d_out, n, [&] {
    if constexpr (order_traits<Key, Comp>::sorts_as_bits) {
      detail::sort_floats_in_steps<Key, Comp>(
          d_temp, temp_bytes, d_in, d_out, n, stream, tuning, times,
          [&](void* temp, std::size_t& bytes, auto* words, stage_times* t) {
            using bits = std::remove_pointer_t<decltype(words)>;
            sort_keys<bits, less<bits>>(temp, bytes, words, words, n, {}, stream, tuning, t);
          });
    } else {
      detail::sort_by_four_steps(d_temp, temp_bytes, d_in, d_out, n, comp, stream, tuning,
                                 times);
    }
  });
}

namespace ablation {

template <class Key, class Comp>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_in, Key* d_out, std::size_t n,
               Comp comp, cudaStream_t stream, const design& d, stage_times* times) {
  warpsort::detail::enter_sort_keys("warpsort::ablation::sort_keys", d_temp, temp_bytes, d_in,
                                    d_out, n, [&] {
    if constexpr (order_traits<Key, Comp>::sorts_as_bits) {
      warpsort::detail::sort_floats_as_bits<Key, Comp>(
          d_temp, temp_bytes, d_in, d_out, n, stream, times,
          [&](void* temp, std::size_t& bytes, auto* words, stage_times* t) {
            using bits = std::remove_pointer_t<decltype(words)>;
            sort_keys<bits, less<bits>>(temp, bytes, words, words, n, {}, stream, d, t);
          });
    } else {
      warpsort::detail::sort_pairwise(d_temp, temp_bytes, d_in, d_out, n, comp, stream,
                                      sized_for(d, n), times);
    }
  });
}

}  // namespace ablation

}  // namespace warpsort

// Explicit instantiation for one (key type, order); see cmake/warpsort_instantiate.cmake.
#define WARPSORT_INSTANTIATE_PIPELINE(Key, Comp)                                                          \
  template void warpsort::sort_keys<Key, Comp>(void*, std::size_t&, const Key*, Key*, std::size_t, Comp,  \
                                     cudaStream_t, const warpsort::policy&, warpsort::stage_times*);

// The same with the ablation's sort beside it (keys; pairs' items need only the above).
#define WARPSORT_INSTANTIATE_KEY_SORTS(Key, Comp)                                                \
  WARPSORT_INSTANTIATE_PIPELINE(Key, Comp)                                                       \
  template void warpsort::ablation::sort_keys<Key, Comp>(void*, std::size_t&, const Key*, Key*,  \
                                                         std::size_t, Comp, cudaStream_t,        \
                                                         const warpsort::ablation::design&,      \
                                                         warpsort::stage_times*);

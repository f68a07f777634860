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

/// Floats: map into d_out as words, sort the words in place with sort_words(temp, bytes,
/// words, times) (first called with null pointers: only the bytes it needs), map back. Two element-wise passes more than
/// an integer sort, outside the four steps' times.
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
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>(stages::ceil_div(n, threads));
  if (n > 0) {
    floats_to_bits_kernel<map><<<blocks, threads, 0, stream>>>(d_in, words, n);
    WARPSORT_CHECK_LAUNCH();
  }
  sort_words(inner, inner_bytes, words, times);
  if (n > 0) {
    bits_to_floats_kernel<map><<<blocks, threads, 0, stream>>>(words, n);
    WARPSORT_CHECK_LAUNCH();
  }
}

/// The four steps on one stream: plan_for fits the policy to n and the device; then step 1 and the plan's
/// rounds of steps 3 and 4 (all but the last are step 2), or, for small inputs, version 4's
/// pairwise path.
template <class Key, class Comp>
void sort_by_four_steps(void* d_temp, std::size_t& temp_bytes, const Key* d_in, Key* d_out,
                        std::size_t n, Comp comp, cudaStream_t stream, const policy& given,
                        stage_times* times) {
  const sized_plan sized = plan_for(n, sizeof(Key), given, device_limits_of());
  if (sized.pairwise) {
    sort_pairwise(d_temp, temp_bytes, d_in, d_out, n, comp, stream,
                  ablation::small_input_design(n, sizeof(Key)), times);
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
    stages::merge_sets<Key, Comp>(target(r), target(r + 1), n, plan.rounds[r], layout, comp,
                                  tuning, stream);
  };

  events.mark(0);
  stages::sort_chunks(d_in, target(0), n, comp, tuning, stream);
  events.mark(1);
  for (int r = 0; r + 1 < plan.round_count; ++r) round(r, -1);
  events.mark(2);
  if (plan.round_count > 0) round(plan.round_count - 1, 3);
  else events.mark(3);
  events.mark(4);
  if (times) {
    *times = stage_times{};
    events.read({&times->sort_chunks_ms, &times->merge_sequences_ms, &times->split_ms,
                 &times->merge_groups_ms});
  }
}

/// The entry both sorts of keys share (the library's and the ablation's, `who`): overlapping
/// arrays refused before any work, then float keys sorted as their words by
/// sort_words(temp, bytes, words, times), any other key by sort_keys().
template <class Key, class Comp, class SortWords, class SortKeys>
void enter_sort_keys(const char* who, void* d_temp, std::size_t& temp_bytes, const Key* d_in,
                     Key* d_out, std::size_t n, cudaStream_t stream, stage_times* times,
                     SortWords sort_words, SortKeys sort_keys) {
  if (d_temp != nullptr)
    refuse_overlaps(who,
                    {{"keys_in", d_in, n * sizeof(Key)},
                     {"keys_out", d_out, n * sizeof(Key)},
                     {"the temporary storage", d_temp, temp_bytes}},
                    {{0, 1}});
  if constexpr (order_traits<Key, Comp>::sorts_as_bits)
    sort_floats_as_bits<Key, Comp>(d_temp, temp_bytes, d_in, d_out, n, stream, times, sort_words);
  else
    sort_keys();
}

}  // namespace detail

template <class Key, class Comp>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_in, Key* d_out, std::size_t n,
               Comp comp, cudaStream_t stream, const policy& tuning, stage_times* times) {
  detail::enter_sort_keys<Key, Comp>(
      "warpsort::sort_keys", d_temp, temp_bytes, d_in, d_out, n, stream, times,
      [&](void* temp, std::size_t& bytes, auto* words, stage_times* t) {
        using bits = std::remove_pointer_t<decltype(words)>;
        sort_keys<bits, less<bits>>(temp, bytes, words, words, n, {}, stream, tuning, t);
      },
      [&] {
        detail::sort_by_four_steps(d_temp, temp_bytes, d_in, d_out, n, comp, stream, tuning,
                                   times);
      });
}

namespace ablation {

template <class Key, class Comp>
void sort_keys(void* d_temp, std::size_t& temp_bytes, const Key* d_in, Key* d_out, std::size_t n,
               Comp comp, cudaStream_t stream, const design& d, stage_times* times) {
  warpsort::detail::enter_sort_keys<Key, Comp>(
      "warpsort::ablation::sort_keys", d_temp, temp_bytes, d_in, d_out, n, stream, times,
      [&](void* temp, std::size_t& bytes, auto* words, stage_times* t) {
        using bits = std::remove_pointer_t<decltype(words)>;
        sort_keys<bits, less<bits>>(temp, bytes, words, words, n, {}, stream, d, t);
      },
      [&] {
        warpsort::detail::sort_pairwise(d_temp, temp_bytes, d_in, d_out, n, comp, stream,
                                        sized_for(d, n), times);
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

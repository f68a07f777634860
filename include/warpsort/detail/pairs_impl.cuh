#pragma once
// Key-value pairs and argsort, stable by construction: each pair sorts as an item ordered by
// (key, input index).
//  - The library's keys (4- and 8-byte arithmetic, less or greater): the item is an index word,
//    a 64-bit word holding a 32-bit digit of the key's order word (warpsort::order_words: an
//    unsigned image whose integer order is the sort order, -0.0 and +0.0 one word) above a
//    32-bit position. Index words sort as uint64 keys (min/max networks, 8 bytes a pass);
//    afterwards the positions gather each value (and, for floats, each key: floats' pairs are
//    first copied side by side, so that one random read brings both).
//    4-byte keys take one pass: the digit is the whole order word, the position the input
//    index. 8-byte keys take two, least significant digit first: the low digit with the input
//    index, then the high digit with the position in the first pass's order. Ties in the second
//    pass keep that order, so the result is ordered by (high, low, input index): by (key, index).
//  - Other orders (custom.cuh): (key, value, index) items, unpacked at the end; where the value
//    would widen an item past 16 bytes, (key, index) items and the values gathered by the index
//    at the end (pair_item.cuh's value_rides).
#include <warpsort/detail/aliasing.hpp>
#include <warpsort/detail/pair_item.cuh>
#include <warpsort/detail/stages/index_math.hpp>
#include <warpsort/detail/stages/temp_storage.hpp>

#include <warpsort/warpsort.cuh>

#include <cuda/std/bit>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include <string>

namespace warpsort {

namespace detail {

/// Item i of pair i: its key, its value where it rides (pair_item.cuh), its index. A value
/// left in place is copied when the sort writes over it (value_copy: sorting in place).
template <class Key, class Value, class Carried>
__global__ void pack_pairs_kernel(const Key* keys, const Value* values,
                                  pair_item<Key, Carried>* items, Value* value_copy,
                                  std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if constexpr (cuda::std::is_same_v<Carried, no_carried_value>) {
    items[i] = {keys[i], static_cast<std::uint32_t>(i)};
    if (value_copy) value_copy[i] = values[i];
  } else if constexpr (cuda::std::is_same_v<Carried, zero_word>) {
    items[i] = {keys[i], zero_word{0}, static_cast<std::uint32_t>(i)};
    if (value_copy) value_copy[i] = values[i];
  } else {
    items[i] = {keys[i], values[i], static_cast<std::uint32_t>(i)};
  }
}

/// Output i from sorted item i: its key, and its value from the item or gathered by its index.
template <class Key, class Value, class Carried>
__global__ void unpack_pairs_kernel(const pair_item<Key, Carried>* items, const Value* values_in,
                                    Key* keys, Value* values, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const pair_item<Key, Carried> item = items[i];
  keys[i] = item.key;
  if constexpr (is_gathered<Carried>) values[i] = values_in[item.index];
  else values[i] = item.value;
}

/// The policy for items: the on-chip buffers of steps 1 and 4 hold items, so the key counts
/// shrink with the item's width (block_sort_keys stays a power of two), and a group scales as
/// the defaults for the two widths do (group_capacity_for: the key's default becomes the
/// item's). The small-input path takes version 4's design for the item's width itself.
template <class Item>
policy item_policy(const policy& p, std::size_t key_bytes) {
  const auto scale = [&](int keys) {
    return static_cast<int>(static_cast<std::size_t>(keys) * key_bytes / sizeof(Item));
  };
  const int block = floor_pow2(scale(p.block_sort_keys) > 1 ? scale(p.block_sort_keys) : 1);
  policy q = p;
  q.block_sort_keys = block > policy::merge_tile_keys ? block : policy::merge_tile_keys;
  q.group_capacity = static_cast<int>(static_cast<std::int64_t>(p.group_capacity) *
                                      group_capacity_for(sizeof(Item)) /
                                      group_capacity_for(key_bytes));
  return q;
}

using index_word = std::uint64_t;

/// A pair kept for the end's gather where its key cannot be rebuilt from its word (floats,
/// whose -0.0 and +0.0 share one): key and value side by side, one random read for both.
template <class Key, class Value>
struct kept_pair {
  Key key;
  Value value;
};

/// The index words of the keys' (only or low) digit: word i = (digit << 32) | i. What the end
/// gathers is kept on the way: the values (value_copy: sorting integer keys' pairs in place) or
/// the pairs (kept: floats').
template <class Key, class Value, class Comp>
__global__ void low_digit_words_kernel(const Key* keys, const Value* values, index_word* words,
                                       Value* value_copy, kept_pair<Key, Value>* kept,
                                       std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Key k = keys[i];
  const auto digit = static_cast<std::uint32_t>(order_words_for<Key, Comp>::to_merged_zeros(k));
  words[i] = (static_cast<index_word>(digit) << 32) | i;
  if (value_copy) value_copy[i] = values[i];
  if (kept) kept[i] = {k, values[i]};
}

/// 8-byte keys' second pass: word j = (high digit of the key at position j of the first pass's
/// order) << 32 | j.
template <class Key, class Comp>
__global__ void high_digit_words_kernel(const Key* keys, const index_word* low_sorted,
                                        index_word* words, std::size_t n) {
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const auto from = static_cast<std::uint32_t>(low_sorted[j]);
  const auto digit =
      static_cast<std::uint32_t>(order_words_for<Key, Comp>::to_merged_zeros(keys[from]) >> 32);
  words[j] = (static_cast<index_word>(digit) << 32) | j;
}

/// Output i of the sorted index words: the input position of its pair and its key's order word
/// (whole for integer keys; floats, whose -0.0 and +0.0 share a word, gather their keys).
template <class Key>
struct sorted_pair {
  std::uint32_t from;
  typename order_words<Key, false>::bits word;
};
template <class Key>
__device__ sorted_pair<Key> sorted_pair_at(const index_word* sorted, const index_word* low_sorted,
                                           std::size_t i) {
  const index_word w = sorted[i];
  if constexpr (sizeof(Key) == 4) {
    return {static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(w >> 32)};
  } else {
    const index_word low = low_sorted[static_cast<std::uint32_t>(w)];
    return {static_cast<std::uint32_t>(low), (w >> 32 << 32) | (low >> 32)};
  }
}

/// Output i: integer keys from their words with the value at their position, floats' pairs
/// from `kept`.
template <class Key, class Value, class Comp>
__global__ void gather_pairs_kernel(const index_word* sorted, const index_word* low_sorted,
                                    const Value* values, const kept_pair<Key, Value>* kept,
                                    Key* keys_out, Value* values_out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const sorted_pair<Key> p = sorted_pair_at<Key>(sorted, low_sorted, i);
  if constexpr (cuda::std::is_floating_point_v<Key>) {
    const kept_pair<Key, Value> pair = kept[p.from];
    keys_out[i] = pair.key;
    values_out[i] = pair.value;
  } else {
    keys_out[i] = order_words_for<Key, Comp>::from(p.word);
    values_out[i] = values[p.from];
  }
}

template <class Key, class Index>
__global__ void write_positions_kernel(const index_word* sorted, const index_word* low_sorted,
                                       Index* indices, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) indices[i] = static_cast<Index>(sorted_pair_at<Key>(sorted, low_sorted, i).from);
}

/// The index-word sort of n keys (one pass for 4-byte keys, two for 8-byte ones), its storage
/// carved from d_temp (null: sizing). `sorted` and `low_sorted` are what sorted_pair_at reads.
template <class Key, class Comp>
struct index_word_sort {
  static constexpr bool two_passes = sizeof(Key) == 8;
  index_word* sorted = nullptr;
  index_word* low_sorted = nullptr;
  void* inner = nullptr;
  std::size_t inner_bytes = 0;
  policy words_policy;

  index_word_sort(stages::temp_carver& carver, std::size_t n, cudaStream_t stream,
                  const policy& tuning)
      : words_policy(item_policy<index_word>(tuning, sizeof(Key))) {
    sort_keys<index_word, less<index_word>>(nullptr, inner_bytes, nullptr, nullptr, n, {}, stream,
                                            words_policy);
    sorted = carver.take<index_word>(n);
    low_sorted = carver.take<index_word>(two_passes ? n : 0);
    inner = carver.take_bytes(inner_bytes);
  }

  /// Sorts the keys' index words (value_copy, kept: see low_digit_words_kernel).
  template <class Value>
  void run(const Key* keys, const Value* values, Value* value_copy, kept_pair<Key, Value>* kept,
           std::size_t n, cudaStream_t stream, stage_times* times) {
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>(stages::ceil_div(n, threads));
    index_word* const low = two_passes ? low_sorted : sorted;
    low_digit_words_kernel<Key, Value, Comp>
        <<<blocks, threads, 0, stream>>>(keys, values, low, value_copy, kept, n);
    WARPSORT_CHECK_LAUNCH();
    stage_times low_times;
    sort_keys<index_word, less<index_word>>(inner, inner_bytes, low, low, n, {}, stream,
                                            words_policy, times ? &low_times : nullptr);
    if constexpr (two_passes) {
      high_digit_words_kernel<Key, Comp><<<blocks, threads, 0, stream>>>(keys, low, sorted, n);
      WARPSORT_CHECK_LAUNCH();
      stage_times high_times;
      sort_keys<index_word, less<index_word>>(inner, inner_bytes, sorted, sorted, n, {}, stream,
                                              words_policy, times ? &high_times : nullptr);
      if (times) {  // the two passes' steps together
        low_times.sort_chunks_ms += high_times.sort_chunks_ms;
        low_times.merge_sequences_ms += high_times.merge_sequences_ms;
        low_times.split_ms += high_times.split_ms;
        low_times.merge_groups_ms += high_times.merge_groups_ms;
      }
    }
    if (times) *times = low_times;
  }
};

template <class Key, class Value, class Comp>
void sort_pairs_by_index_words(void* d_temp, std::size_t& temp_bytes, const Key* keys_in,
                               Key* keys_out, const Value* values_in, Value* values_out,
                               std::size_t n, cudaStream_t stream, const policy& tuning,
                               stage_times* times) {
  // floats' pairs are kept side by side for the end (their keys cannot be rebuilt); integer
  // keys come back from their words, and their values are copied only to sort in place
  constexpr bool keeps_pairs = cuda::std::is_floating_point_v<Key>;
  const bool copy_values = !keeps_pairs && values_out == values_in;
  stages::temp_carver carver(d_temp);
  index_word_sort<Key, Comp> words(carver, n, stream, tuning);
  Value* value_copy = carver.take<Value>(keeps_pairs ? 0 : n);
  kept_pair<Key, Value>* kept = carver.take<kept_pair<Key, Value>>(keeps_pairs ? n : 0);
  if (!stages::storage_ready(carver, d_temp, temp_bytes, "warpsort::sort_pairs") || n == 0) return;
  words.run(keys_in, values_in, copy_values ? value_copy : nullptr, keeps_pairs ? kept : nullptr,
            n, stream, times);
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>(stages::ceil_div(n, threads));
  gather_pairs_kernel<Key, Value, Comp><<<blocks, threads, 0, stream>>>(
      words.sorted, words.low_sorted, copy_values ? value_copy : values_in, kept, keys_out,
      values_out, n);
  WARPSORT_CHECK_LAUNCH();
}

}  // namespace detail

template <class Key, class Value, class Comp>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
                const Value* values_in, Value* values_out, std::size_t n, Comp comp,
                cudaStream_t stream, const policy& tuning, stage_times* times) {
  if (n > cuda::std::numeric_limits<std::uint32_t>::max())
    throw input_error("warpsort::sort_pairs: at most 2^32 - 1 pairs (got " + std::to_string(n) + ")");
  if (d_temp != nullptr)
    detail::refuse_overlaps("warpsort::sort_pairs",
                            {{"keys_in", keys_in, n * sizeof(Key)},
                             {"keys_out", keys_out, n * sizeof(Key)},
                             {"values_in", values_in, n * sizeof(Value)},
                             {"values_out", values_out, n * sizeof(Value)},
                             {"the temporary storage", d_temp, temp_bytes}},
                            {{0, 1}, {2, 3}});
  if constexpr (order_traits<Key, Comp>::builtin) {
    detail::sort_pairs_by_index_words<Key, Value, Comp>(d_temp, temp_bytes, keys_in, keys_out,
                                                        values_in, values_out, n, stream, tuning,
                                                        times);
  } else {
    using carried = detail::carried_value<Key, Value>;
    constexpr bool gathers = detail::is_gathered<carried>;
    using order = detail::pair_order<Key, carried, Comp>;
    using item = typename order::item;
    const policy p = detail::item_policy<item>(tuning, sizeof(Key));
    const order item_comp{{comp}};

    std::size_t inner_bytes = 0;
    sort_keys<item, order>(nullptr, inner_bytes, nullptr, nullptr, n, item_comp, stream, p);
    stages::temp_carver carver(d_temp);
    item* items = carver.take<item>(n);
    Value* value_copy = carver.take<Value>(gathers ? n : 0);  // sorting in place
    void* inner = carver.take_bytes(inner_bytes);
    if (!stages::storage_ready(carver, d_temp, temp_bytes, "warpsort::sort_pairs") || n == 0)
      return;
    const bool copy_values = gathers && values_out == values_in;
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>(stages::ceil_div(n, threads));
    detail::pack_pairs_kernel<<<blocks, threads, 0, stream>>>(
        keys_in, values_in, items, copy_values ? value_copy : nullptr, n);
    WARPSORT_CHECK_LAUNCH();
    sort_keys<item, order>(inner, inner_bytes, items, items, n, item_comp, stream, p, times);
    detail::unpack_pairs_kernel<<<blocks, threads, 0, stream>>>(
        items, copy_values ? static_cast<const Value*>(value_copy) : values_in, keys_out,
        values_out, n);
    WARPSORT_CHECK_LAUNCH();
  }
}

template <class Key, class Index, class Comp>
void argsort(void* d_temp, std::size_t& temp_bytes, const Key* keys, Index* indices,
             std::size_t n, Comp, cudaStream_t stream, const policy& tuning, stage_times* times) {
  static_assert(order_traits<Key, Comp>::builtin,
                "warpsort::argsort: the library's keys and orders (for a custom order, sort_pairs "
                "with the indices 0..n-1 as values)");
  if (n > cuda::std::numeric_limits<std::uint32_t>::max())
    throw input_error("warpsort::argsort: at most 2^32 - 1 keys (got " + std::to_string(n) + ")");
  if (d_temp != nullptr)
    detail::refuse_overlaps("warpsort::argsort",
                            {{"keys", keys, n * sizeof(Key)},
                             {"indices", indices, n * sizeof(Index)},
                             {"the temporary storage", d_temp, temp_bytes}},
                            {{0, 1}});
  stages::temp_carver carver(d_temp);
  detail::index_word_sort<Key, Comp> words(carver, n, stream, tuning);
  if (!stages::storage_ready(carver, d_temp, temp_bytes, "warpsort::argsort") || n == 0) return;
  // every key is read (by the last pass's words) before the first index is written, so the
  // indices may be written over the keys
  words.run(keys, static_cast<const Index*>(nullptr), static_cast<Index*>(nullptr),
            static_cast<detail::kept_pair<Key, Index>*>(nullptr), n, stream, times);
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>(stages::ceil_div(n, threads));
  detail::write_positions_kernel<Key, Index>
      <<<blocks, threads, 0, stream>>>(words.sorted, words.low_sorted, indices, n);
  WARPSORT_CHECK_LAUNCH();
}

}  // namespace warpsort

// Explicit instantiation for one (key, value, order); see cmake/warpsort_instantiate.cmake.
// WARPSORT_INSTANTIATE_PAIRS serves any order (custom.cuh's too); argsort takes the library's
// orders only, its indices of the value's type.
#define WARPSORT_INSTANTIATE_PAIRS(Key, Value, Comp)                                          \
  template void warpsort::sort_pairs<Key, Value, Comp>(                                       \
      void*, std::size_t&, const Key*, Key*, const Value*, Value*, std::size_t, Comp,        \
      cudaStream_t, const warpsort::policy&, warpsort::stage_times*);
#define WARPSORT_INSTANTIATE_ARGSORT(Key, Index, Comp)                                        \
  template void warpsort::argsort<Key, Index, Comp>(void*, std::size_t&, const Key*, Index*,  \
                                                    std::size_t, Comp, cudaStream_t,          \
                                                    const warpsort::policy&,                  \
                                                    warpsort::stage_times*);
#define WARPSORT_INSTANTIATE_PAIRS_AND_ARGSORT(Key, Value, Comp) \
  WARPSORT_INSTANTIATE_PAIRS(Key, Value, Comp)                   \
  WARPSORT_INSTANTIATE_ARGSORT(Key, Value, Comp)

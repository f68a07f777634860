#pragma once
// Key-value pairs, stable by construction: each pair is sorted as an item ordered by (key,
// input index).
//  - 4-byte keys in warpsort's own orders: the item is one 64-bit word, the key's order bits
//    (an unsigned image of the key whose integer order is the sort order) above the index. It
//    sorts as a uint64 key (min/max networks, 8 bytes a pass); afterwards the index gathers
//    each value (and, for floats, whose -0.0 and +0.0 share order bits, each key).
//  - other keys: (key, value, index) items under (key, index) order, unpacked at the end.
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

template <class Key, class Value>
__global__ void pack_pairs_kernel(const Key* keys, const Value* values,
                                  pair_item<Key, Value>* items, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) items[i] = {keys[i], values[i], static_cast<std::uint32_t>(i)};
}

template <class Key, class Value>
__global__ void unpack_pairs_kernel(const pair_item<Key, Value>* items, Key* keys, Value* values,
                                    std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const pair_item<Key, Value> item = items[i];
    keys[i] = item.key;
    values[i] = item.value;
  }
}

/// The policy for items: the on-chip buffers of steps 1 and 4 hold items, so the key counts
/// shrink with the item's width (block_sort_keys stays a power of two). The small-input path
/// takes version 4's design for the item's width itself.
template <class Item>
policy item_policy(const policy& p, std::size_t key_bytes) {
  const auto scale = [&](int keys) {
    return static_cast<int>(static_cast<std::size_t>(keys) * key_bytes / sizeof(Item));
  };
  const int block = floor_pow2(scale(p.block_sort_keys) > 1 ? scale(p.block_sort_keys) : 1);
  policy q = p;
  q.block_sort_keys = block > policy::merge_tile_keys ? block : policy::merge_tile_keys;
  q.group_capacity = scale(p.group_capacity);
  return q;
}

template <class Key, class Value, class Comp>
__global__ void pack_words_kernel(const Key* keys, const Value* values, std::uint64_t* words,
                                  Key* key_copy, Value* value_copy, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Key k = keys[i];
  words[i] = (static_cast<std::uint64_t>(order_words_for<Key, Comp>::to_merged_zeros(k)) << 32) | i;
  if (key_copy) key_copy[i] = k;  // sorting in place: the gathers read the copies
  if (value_copy) value_copy[i] = values[i];
}

template <class Key, class Value, class Comp>
__global__ void unpack_words_kernel(const std::uint64_t* words, const Key* keys,
                                    const Value* values, Key* keys_out, Value* values_out,
                                    std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t w = words[i];
  const std::uint32_t from = static_cast<std::uint32_t>(w);
  if constexpr (cuda::std::is_floating_point_v<Key>)
    keys_out[i] = keys[from];
  else
    keys_out[i] = order_words_for<Key, Comp>::from(static_cast<std::uint32_t>(w >> 32));
  values_out[i] = values[from];
}

template <class Key, class Value, class Comp>
void sort_pairs_packed(void* d_temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
                       const Value* values_in, Value* values_out, std::size_t n,
                       cudaStream_t stream, const policy& tuning, stage_times* times) {
  using word = std::uint64_t;
  const policy p = item_policy<word>(tuning, sizeof(Key));
  std::size_t inner_bytes = 0;
  sort_keys<word, less<word>>(nullptr, inner_bytes, nullptr, nullptr, n, {}, stream, p);
  stages::temp_carver carver(d_temp);
  word* words = carver.take<word>(n);
  Value* value_copy = carver.take<Value>(n);
  Key* key_copy = carver.take<Key>(cuda::std::is_floating_point_v<Key> ? n : 0);
  void* inner = carver.take_bytes(inner_bytes);
  if (!stages::storage_ready(carver, d_temp, temp_bytes, "warpsort::sort_pairs") || n == 0) return;
  const bool copy_values = values_out == values_in;
  const bool copy_keys = cuda::std::is_floating_point_v<Key> && keys_out == keys_in;
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>(stages::ceil_div(n, threads));
  pack_words_kernel<Key, Value, Comp><<<blocks, threads, 0, stream>>>(
      keys_in, values_in, words, copy_keys ? key_copy : nullptr,
      copy_values ? value_copy : nullptr, n);
  WARPSORT_CHECK_LAUNCH();
  sort_keys<word, less<word>>(inner, inner_bytes, words, words, n, {}, stream, p, times);
  unpack_words_kernel<Key, Value, Comp><<<blocks, threads, 0, stream>>>(
      words, copy_keys ? key_copy : keys_in, copy_values ? value_copy : values_in, keys_out,
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
  if constexpr (order_traits<Key, Comp>::packs_into_u64) {
    detail::sort_pairs_packed<Key, Value, Comp>(d_temp, temp_bytes, keys_in, keys_out, values_in,
                                                values_out, n, stream, tuning, times);
  } else {
    using order = detail::pair_order<Key, Value, Comp>;
    using item = typename order::item;
    const policy p = detail::item_policy<item>(tuning, sizeof(Key));
    const order item_comp{{comp}};

    std::size_t inner_bytes = 0;
    sort_keys<item, order>(nullptr, inner_bytes, nullptr, nullptr, n, item_comp, stream, p);
    stages::temp_carver carver(d_temp);
    item* items = carver.take<item>(n);
    void* inner = carver.take_bytes(inner_bytes);
    if (!stages::storage_ready(carver, d_temp, temp_bytes, "warpsort::sort_pairs") || n == 0)
      return;
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>(stages::ceil_div(n, threads));
    detail::pack_pairs_kernel<<<blocks, threads, 0, stream>>>(keys_in, values_in, items, n);
    WARPSORT_CHECK_LAUNCH();
    sort_keys<item, order>(inner, inner_bytes, items, items, n, item_comp, stream, p, times);
    detail::unpack_pairs_kernel<<<blocks, threads, 0, stream>>>(items, keys_out, values_out, n);
    WARPSORT_CHECK_LAUNCH();
  }
}

}  // namespace warpsort

// Explicit instantiation for one (key, value, order); see cmake/warpsort_instantiate.cmake.
#define WARPSORT_INSTANTIATE_PAIRS(Key, Value, Comp)                                          \
  template void warpsort::sort_pairs<Key, Value, Comp>(                                       \
      void*, std::size_t&, const Key*, Key*, const Value*, Value*, std::size_t, Comp,        \
      cudaStream_t, const warpsort::policy&, warpsort::stage_times*);

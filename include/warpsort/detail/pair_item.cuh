// Key-value pairs as items of the four steps: (key, value, input index), or (key, input index)
// with the value left in place and gathered by the index after the sort, ordered by the key's
// order and then by the index. The index makes the order total, so the sort is stable and the
// padding item (sentinel key, largest index) orders after every real item, even a real key
// equal to the sentinel: no value is ever lost to padding.
#pragma once

#include <warpsort/order.cuh>

#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include <cstdint>

namespace warpsort::detail {

template <class Key, class Value>
struct pair_item {
  Key key;
  Value value;
  std::uint32_t index;  // position in the input (pairs are limited to n < 2^32)
};

/// What a (key, index) item carries where the value stays in place (gathered by the index
/// after the sort): nothing, or a zero word where the item would end in padding anyway. As a
/// member the word is copied like the rest; left as padding it cost the 24-byte item of a
/// 16-byte key more spills (443 spilled loads in step 1 against 280) and 16% more time at 2^26.
struct no_carried_value {};
struct zero_word {
  std::uint32_t zero;
};
template <class Key>
struct pair_item<Key, no_carried_value> {
  Key key;
  std::uint32_t index;
};
template <class Key>
using gathered_value =
    cuda::std::conditional_t<sizeof(pair_item<Key, zero_word>) ==
                                 sizeof(pair_item<Key, no_carried_value>),
                             zero_word, no_carried_value>;
template <class Carried>
inline constexpr bool is_gathered =
    cuda::std::is_same_v<Carried, no_carried_value> || cuda::std::is_same_v<Carried, zero_word>;

/// Whether a pair's value rides in its item through the sort or is gathered after it: it
/// rides in items of up to 16 bytes, and in wider ones only where it costs no width (it fits
/// the padding the index leaves). A wider item takes registers on every compare-exchange and
/// spills (step 1's 32-byte item: 3536 bytes a thread), which costs more than the gather's one
/// random read of the value (docs/performance.md, "Comparator pairs").
template <class Key, class Value>
inline constexpr bool value_rides =
    sizeof(pair_item<Key, Value>) <= 16 ||
    sizeof(pair_item<Key, Value>) <= sizeof(pair_item<Key, gathered_value<Key>>);

/// What the item of a (Key, Value) pair carries: the value, or gathered_value<Key>.
template <class Key, class Value>
using carried_value =
    cuda::std::conditional_t<value_rides<Key, Value>, Value, gathered_value<Key>>;

/// The key order, ties broken by input position.
template <class Comp>
struct by_key_then_index {
  Comp comp;
  template <class Item>
  __host__ __device__ bool operator()(const Item& a, const Item& b) const {
    if (comp(a.key, b.key)) return true;
    if (comp(b.key, a.key)) return false;
    return a.index < b.index;
  }
};

/// The item type, order and sentinel the four steps sort pairs with.
template <class Key, class Value, class Comp>
struct pair_order : by_key_then_index<Comp> {
  using item = pair_item<Key, Value>;
  __host__ __device__ static item sentinel() {
    constexpr std::uint32_t last = cuda::std::numeric_limits<std::uint32_t>::max();
    if constexpr (cuda::std::is_same_v<Value, no_carried_value>) return {Comp::sentinel(), last};
    else return {Comp::sentinel(), Value{}, last};
  }
};

}  // namespace warpsort::detail

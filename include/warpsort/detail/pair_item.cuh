// Key-value pairs as items of the four steps: (key, value, input index), ordered by the key's
// order and then by the index. The index makes the order total, so the sort is stable and the
// padding item (sentinel key, largest index) orders after every real item, even a real key
// equal to the sentinel: no value is ever lost to padding.
#pragma once

#include <warpsort/order.cuh>

#include <cuda/std/limits>

#include <cstdint>

namespace warpsort::detail {

template <class Key, class Value>
struct pair_item {
  Key key;
  Value value;
  std::uint32_t index;  // position in the input (pairs are limited to n < 2^32)
};

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
    return {Comp::sentinel(), Value{}, cuda::std::numeric_limits<std::uint32_t>::max()};
  }
};

}  // namespace warpsort::detail

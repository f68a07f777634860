// What a step's translation unit is compiled for: one key type of the library's list
// (include/warpsort/key_types.hpp), named by src/stages/CMakeLists.txt, which builds every step
// once per key type so that they compile in parallel:
//  - WARPSORT_STEP_KEY: the key type;
//  - WARPSORT_STEP_KEYS: 1 where its keys go through the steps as they are, in both orders
//    (0 for floats, which the library sorts as their order_words);
//  - WARPSORT_STEP_ITEMS: 1 where its pairs go through the steps as (key, value, index) items,
//    for every value type, in both orders (0 for 4-byte keys, whose pairs sort as packed 64-bit
//    words).
// WARPSORT_STEP_INSTANTIATE(F) expands F(Item, Comp) for each of them.
#pragma once

#include <warpsort/detail/pair_item.cuh>
#include <warpsort/key_types.hpp>
#include <warpsort/order.cuh>

#include <cstdint>

#if !defined(WARPSORT_STEP_KEY) || !defined(WARPSORT_STEP_KEYS) || !defined(WARPSORT_STEP_ITEMS)
#error "a step is compiled once per key type by src/stages/CMakeLists.txt, which names it"
#endif

namespace warpsort::stages::built {
using key = WARPSORT_STEP_KEY;
static_assert(WARPSORT_STEP_KEYS == !order_traits<key, less<key>>::sorts_as_bits,
              "src/stages/CMakeLists.txt and order_traits disagree on whose keys sort as words");
static_assert(WARPSORT_STEP_ITEMS == !order_traits<key, less<key>>::packs_into_u64,
              "src/stages/CMakeLists.txt and order_traits disagree on whose pairs sort packed");
#define WARPSORT_STEP_ITEM_TYPES_(name, Value, Key, A)                      \
  using item_##name = ::warpsort::detail::pair_item<Key, Value>;            \
  using less_##name = ::warpsort::detail::pair_order<Key, Value, less<Key>>; \
  using greater_##name = ::warpsort::detail::pair_order<Key, Value, greater<Key>>;
WARPSORT_VALUE_TYPES_(WARPSORT_STEP_ITEM_TYPES_, key, )
#undef WARPSORT_STEP_ITEM_TYPES_
}  // namespace warpsort::stages::built

#if WARPSORT_STEP_KEYS
#define WARPSORT_STEP_INSTANTIATE_KEYS_(F)                                     \
  F(::warpsort::stages::built::key, ::warpsort::less<::warpsort::stages::built::key>) \
  F(::warpsort::stages::built::key, ::warpsort::greater<::warpsort::stages::built::key>)
#else
#define WARPSORT_STEP_INSTANTIATE_KEYS_(F)
#endif

#if WARPSORT_STEP_ITEMS
#define WARPSORT_STEP_INSTANTIATE_ITEM_(name, Value, Key, F)                                 \
  F(::warpsort::stages::built::item_##name, ::warpsort::stages::built::less_##name)          \
  F(::warpsort::stages::built::item_##name, ::warpsort::stages::built::greater_##name)
#define WARPSORT_STEP_INSTANTIATE_ITEMS_(F) \
  WARPSORT_VALUE_TYPES_(WARPSORT_STEP_INSTANTIATE_ITEM_, ::warpsort::stages::built::key, F)
#else
#define WARPSORT_STEP_INSTANTIATE_ITEMS_(F)
#endif

#define WARPSORT_STEP_INSTANTIATE(F) \
  WARPSORT_STEP_INSTANTIATE_KEYS_(F) WARPSORT_STEP_INSTANTIATE_ITEMS_(F)

// What a step's translation unit is compiled for: one key type of the library's list
// (include/warpsort/key_types.hpp), named by src/stages/CMakeLists.txt as WARPSORT_STEP_KEY,
// which builds every step once per key type so that they compile in parallel. Its keys go
// through the steps as they are, in both orders; floats sort as their order_words and pairs as
// 64-bit index words (warpsort/detail/pairs_impl.cuh), so no float type and no pair item is
// built here. WARPSORT_STEP_INSTANTIATE(F) expands F(Key, Comp) for the key's two orders.
#pragma once

#include <warpsort/key_types.hpp>
#include <warpsort/order.cuh>

#include <cstdint>

#if !defined(WARPSORT_STEP_KEY)
#error "a step is compiled once per key type by src/stages/CMakeLists.txt, which names it"
#endif

namespace warpsort::stages::built {
using key = WARPSORT_STEP_KEY;
static_assert(!order_traits<key, less<key>>::sorts_as_bits,
              "src/stages/CMakeLists.txt builds no step for keys that sort as words");
}  // namespace warpsort::stages::built

#define WARPSORT_STEP_INSTANTIATE(F)                                                   \
  F(::warpsort::stages::built::key, ::warpsort::less<::warpsort::stages::built::key>) \
  F(::warpsort::stages::built::key, ::warpsort::greater<::warpsort::stages::built::key>)

// The words of a float type's width (WARPSORT_STEP_FLOAT, named by src/stages/CMakeLists.txt)
// also build what a sort of that float's order words adds: step 1 reading the floats and the
// last round writing them (detail/stages/word_map.cuh), in both of the float's orders (the
// words themselves always ascending).
#if defined(WARPSORT_STEP_FLOAT)
#include <warpsort/detail/stages/word_map.cuh>
namespace warpsort::stages::built {
using float_key = WARPSORT_STEP_FLOAT;
using reads_ascending = key_to_order_word<float_key, less<float_key>>;
using reads_descending = key_to_order_word<float_key, greater<float_key>>;
using writes_ascending = order_word_to_key<float_key, less<float_key>>;
using writes_descending = order_word_to_key<float_key, greater<float_key>>;
static_assert(sizeof(float_key) == sizeof(key), "a float's order words are its width");
}  // namespace warpsort::stages::built
#define WARPSORT_STEP_INSTANTIATE_FLOAT_MAPS(F, ascending, descending)                        \
  F(::warpsort::stages::built::key, ::warpsort::less<::warpsort::stages::built::key>,         \
    ::warpsort::stages::built::ascending)                                                     \
  F(::warpsort::stages::built::key, ::warpsort::less<::warpsort::stages::built::key>,         \
    ::warpsort::stages::built::descending)
#else
#define WARPSORT_STEP_INSTANTIATE_FLOAT_MAPS(F, ascending, descending)
#endif

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

// The (key type, order) pairs compiled into the library. Each step's .cu expands this list
// once, so adding a type here adds it to all four steps and the pipeline.
#pragma once

#include <warpsort/order.cuh>

#include <cstdint>

// X(Key, Comp)
#define WARPSORT_FOR_EACH_KEY_ORDER(X)            \
  X(std::uint32_t, ::warpsort::less<std::uint32_t>) \
  X(std::uint32_t, ::warpsort::greater<std::uint32_t>)

// Where keys enter and leave the steps: step 1 reads the input, the last round writes the
// output. A map of the words there lets a sort of words read and write keys of the same bits
// (floats, sorted as their order words) without a pass over memory on either side.
#pragma once

#include "index_math.hpp"

#include <warpsort/order.cuh>

#include <cuda/std/bit>

namespace warpsort::stages {

/// The keys as they are (where a map is applied, `identity` selects the unmapped code).
struct same_words {
  static constexpr bool identity = true;
  template <class Word>
  WARPSORT_HD static const Word& apply(const Word& w) {
    return w;
  }
};

/// A float's bits to its order word (order_words: the word's integer order is the float's).
template <class Float, class Comp>
struct float_to_order_word {
  static constexpr bool identity = false;
  using map = order_words_for<Float, Comp>;
  using word = typename map::bits;
  WARPSORT_HD static word apply(word bits) { return map::to(cuda::std::bit_cast<Float>(bits)); }
};

/// An order word back to its float's bits.
template <class Float, class Comp>
struct order_word_to_float {
  static constexpr bool identity = false;
  using map = order_words_for<Float, Comp>;
  using word = typename map::bits;
  WARPSORT_HD static word apply(word w) { return cuda::std::bit_cast<word>(map::from(w)); }
};

}  // namespace warpsort::stages

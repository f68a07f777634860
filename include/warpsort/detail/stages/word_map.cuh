// Where keys enter and leave the steps: step 1 reads the input, the last round writes the
// output. A map of the words there lets a sort of words read and write keys of the same bits
// (floats, sorted as their order words) without a pass over memory on either side; where a
// sort must map its keys in passes of their own (small inputs, the distributed sort's ranks),
// map_words runs the same maps over memory.
#pragma once

#include "index_math.hpp"

#include <warpsort/error.hpp>
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

/// A key's bits to its order word (order_words: the words' integer order is the keys' order
/// under Comp).
template <class Key, class Comp>
struct key_to_order_word {
  static constexpr bool identity = order_words_for<Key, Comp>::identity;
  using map = order_words_for<Key, Comp>;
  using word = typename map::bits;
  WARPSORT_HD static word apply(word bits) { return map::to(cuda::std::bit_cast<Key>(bits)); }
};

/// An order word back to its key's bits.
template <class Key, class Comp>
struct order_word_to_key {
  static constexpr bool identity = order_words_for<Key, Comp>::identity;
  using map = order_words_for<Key, Comp>;
  using word = typename map::bits;
  WARPSORT_HD static word apply(word w) { return cuda::std::bit_cast<word>(map::from(w)); }
};

/// out[i] = Map::apply(in[i]) (in may equal out).
template <class Map, class Word>
__global__ void map_words_kernel(const Word* in, Word* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = Map::apply(in[i]);
}

/// One element-wise pass of Map over n words (none for an identity map, or none to map).
template <class Map, class Word>
void map_words(const Word* in, Word* out, std::size_t n, cudaStream_t stream) {
  if constexpr (!Map::identity) {
    if (n == 0) return;
    const unsigned threads = 256;
    map_words_kernel<Map><<<static_cast<unsigned>(ceil_div(n, threads)), threads, 0, stream>>>(
        in, out, n);
    WARPSORT_CHECK_LAUNCH();
  }
}

}  // namespace warpsort::stages

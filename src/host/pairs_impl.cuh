#pragma once
// Key-value pairs: packed into (key, value, index) items, sorted by the four steps under
// (key, index) order, unpacked. Stable by construction.
#include "host/pair_item.cuh"
#include "stages/index_math.hpp"
#include "stages/temp_storage.hpp"

#include <warpsort/warpsort.cuh>

#include <cuda/std/limits>

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

/// The policy for items: the step 4 buffers hold items, so the group capacity shrinks with them.
template <class Item>
policy item_policy(const policy& p, std::size_t key_bytes) {
  policy q = p;
  q.group_capacity = static_cast<int>(static_cast<std::size_t>(p.group_capacity) * key_bytes / sizeof(Item));
  return q;
}

}  // namespace detail

template <class Key, class Value, class Comp>
void sort_pairs(void* d_temp, std::size_t& temp_bytes, const Key* keys_in, Key* keys_out,
                const Value* values_in, Value* values_out, std::size_t n, Comp comp,
                cudaStream_t stream, const policy& tuning, stage_times* times) {
  using order = detail::pair_order<Key, Value, Comp>;
  using item = typename order::item;
  if (n > cuda::std::numeric_limits<std::uint32_t>::max())
    throw input_error("warpsort::sort_pairs: at most 2^32 - 1 pairs (got " + std::to_string(n) + ")");
  const policy p = detail::item_policy<item>(tuning, sizeof(Key));
  const order item_comp{{comp}};

  std::size_t inner_bytes = 0;
  sort_keys<item, order>(nullptr, inner_bytes, nullptr, nullptr, n, item_comp, stream, p);
  stages::temp_carver carver(d_temp);
  item* items = carver.take<item>(n);
  void* inner = carver.take_bytes(inner_bytes);
  if (d_temp == nullptr) {
    temp_bytes = carver.used();
    return;
  }
  if (temp_bytes < carver.used())
    throw input_error("warpsort::sort_pairs: temporary storage of " + std::to_string(temp_bytes) +
                      " bytes is smaller than the " + std::to_string(carver.used()) + " needed");
  if (n == 0) return;
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>(stages::ceil_div(n, threads));
  detail::pack_pairs_kernel<<<blocks, threads, 0, stream>>>(keys_in, values_in, items, n);
  WARPSORT_CHECK_LAUNCH();
  sort_keys<item, order>(inner, inner_bytes, items, items, n, item_comp, stream, p, times);
  detail::unpack_pairs_kernel<<<blocks, threads, 0, stream>>>(items, keys_out, values_out, n);
  WARPSORT_CHECK_LAUNCH();
}

}  // namespace warpsort

// Explicit instantiation for one (key, value, order); see src/stages/CMakeLists.txt.
#define WARPSORT_INSTANTIATE_PAIRS(Key, Value, Comp)                                          \
  template void warpsort::sort_pairs<Key, Value, Comp>(                                       \
      void*, std::size_t&, const Key*, Key*, const Value*, Value*, std::size_t, Comp,        \
      cudaStream_t, const warpsort::policy&, warpsort::stage_times*);

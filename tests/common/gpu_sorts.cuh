// warpsort run on a test input the way every GPU test runs it: out of place, into poisoned
// output buffers, with poisoned temporary storage. The buffers are returned, still on the
// device, for the caller's checks (against the references, the input left alone, ...).
#pragma once

#include "common/test_inputs.hpp"

#include <warpsort/warpsort.cuh>

#include <cstddef>
#include <vector>

namespace warpsort::testing {

template <class Key>
struct keys_on_gpu {
  detail::device_buffer<Key> in, out;
};

template <class Key, class Value>
struct pairs_on_gpu {
  detail::device_buffer<Key> keys_in, keys_out;
  detail::device_buffer<Value> values_in, values_out;
};

/// sort_keys<Key, Comp> of `input`; synchronizes the device.
template <class Key, class Comp>
keys_on_gpu<Key> sort_keys_on_gpu(const std::vector<Key>& input) {
  const std::size_t n = input.size();
  keys_on_gpu<Key> b{to_device(input), poisoned<Key>(n)};
  std::size_t temp_bytes = 0;
  warpsort::sort_keys<Key, Comp>(nullptr, temp_bytes, b.in.get(), b.out.get(), n);
  auto temp = poisoned<unsigned char>(temp_bytes);
  warpsort::sort_keys<Key, Comp>(temp.get(), temp_bytes, b.in.get(), b.out.get(), n);
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  return b;
}

/// sort_pairs<Key, Value, Comp> of (keys, values); synchronizes the device.
template <class Key, class Value, class Comp>
pairs_on_gpu<Key, Value> sort_pairs_on_gpu(const std::vector<Key>& keys,
                                           const std::vector<Value>& values) {
  const std::size_t n = keys.size();
  pairs_on_gpu<Key, Value> b{to_device(keys), poisoned<Key>(n), to_device(values), poisoned<Value>(n)};
  std::size_t temp_bytes = 0;
  warpsort::sort_pairs<Key, Value, Comp>(nullptr, temp_bytes, b.keys_in.get(), b.keys_out.get(),
                                         b.values_in.get(), b.values_out.get(), n);
  auto temp = poisoned<unsigned char>(temp_bytes);
  warpsort::sort_pairs<Key, Value, Comp>(temp.get(), temp_bytes, b.keys_in.get(), b.keys_out.get(),
                                         b.values_in.get(), b.values_out.get(), n);
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  return b;
}

}  // namespace warpsort::testing

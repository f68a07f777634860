// Sorting keys of your own type, in your own order.
//
// The library is compiled for uint32_t, int32_t, float, uint64_t, int64_t and double in
// warpsort::less / warpsort::greater order. For anything else, include this header in a .cu file
// (compiled by nvcc, linked to the `warpsort` target): it brings the definitions of the four
// steps and the pipeline, so warpsort::sort_keys<MyKey, MyOrder> and
// warpsort::sort_pairs<MyKey, Value, MyOrder> are instantiated in your translation unit.
//
// Requirements:
//  - MyKey is trivially copyable (it travels through registers, shuffles and shared memory).
//  - MyOrder is default-constructible, with
//      __host__ __device__ bool operator()(const MyKey& a, const MyKey& b) const;  // a before b
//    a strict weak order, and
//      __host__ __device__ static MyKey sentinel();
//    a key that no key orders after (it pads partial chunks and is never stored).
//  - Validation against cub::DeviceRadixSort is only for the built-in orders; check a custom order
//    against thrust::sort with the same comparator (see examples/custom_key.cu).
//
// Example: examples/particle.cuh (a key type and its order) and examples/custom_key.cu.
#pragma once

#include <warpsort/warpsort.cuh>

#include <warpsort/detail/pairs_impl.cuh>
#include <warpsort/detail/pipeline_impl.cuh>
#include <warpsort/detail/stages/merge_groups_impl.cuh>
#include <warpsort/detail/stages/merge_sequences_impl.cuh>
#include <warpsort/detail/stages/sort_chunks_impl.cuh>
#include <warpsort/detail/stages/split_sets_impl.cuh>

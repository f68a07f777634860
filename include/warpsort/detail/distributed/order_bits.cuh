#pragma once
// The distributed sort works on unsigned words whose ascending order is the key order: every
// builtin (key type, order) maps to one, so its kernels exist for two word types only.
#include <warpsort/order.cuh>

#include <cuda/std/bit>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace warpsort::distributed::detail {

template <class Key, class Comp>
struct order_bits {
  static_assert(order_traits<Key, Comp>::builtin && cuda::std::is_arithmetic_v<Key> &&
                    (sizeof(Key) == 4 || sizeof(Key) == 8),
                "the distributed sort takes 4- and 8-byte keys in warpsort::less or greater");
  static constexpr bool descending = order_traits<Key, Comp>::descending;
  using bits = cuda::std::conditional_t<sizeof(Key) == 4, cuda::std::uint32_t, cuda::std::uint64_t>;
  static constexpr bits sign = bits{1} << (sizeof(bits) * 8 - 1);
  /// The words are the keys themselves (no map pass): unsigned keys, ascending.
  static constexpr bool identity = cuda::std::is_unsigned_v<Key> && !descending;

  __host__ __device__ static bits to(Key k) {
    if constexpr (cuda::std::is_floating_point_v<Key>) {
      return warpsort::detail::float_order_bits<Key, descending>::to(k);
    } else {
      bits b = cuda::std::bit_cast<bits>(k);
      if constexpr (cuda::std::is_signed_v<Key>) b ^= sign;
      return descending ? static_cast<bits>(~b) : b;
    }
  }
  __host__ __device__ static Key from(bits w) {
    if constexpr (cuda::std::is_floating_point_v<Key>) {
      return warpsort::detail::float_order_bits<Key, descending>::from(w);
    } else {
      bits b = descending ? static_cast<bits>(~w) : w;
      if constexpr (cuda::std::is_signed_v<Key>) b ^= sign;
      return cuda::std::bit_cast<Key>(b);
    }
  }
};

}  // namespace warpsort::distributed::detail

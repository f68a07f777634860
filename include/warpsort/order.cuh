// Orders: the comparators warpsort sorts by.
//
// A comparator is a strict weak order `bool operator()(const Key& a, const Key& b)` ("a before b")
// plus `static Key sentinel()`: a key that no key orders after. The warp networks pad partial
// chunks and merge buffers with it; padding never reaches the output because only the N real
// positions are stored, and a real key equal to the sentinel is bit-for-bit the same key.
//
// Floating-point keys use a total order, the one cub::DeviceRadixSort sorts by, so the two can
// be cross-checked: -NaN first, then -inf .. +inf with -0.0 and +0.0 equal, then +NaN last;
// NaNs of one sign order by their bits.
#pragma once

#include <cuda/std/bit>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

namespace warpsort {

namespace detail {

template <class Float> struct float_bits;
template <> struct float_bits<float> { using type = cuda::std::uint32_t; };
template <> struct float_bits<double> { using type = cuda::std::uint64_t; };

/// Maps a float to unsigned bits whose integer order is the total order above: -0.0 is first
/// made +0.0; then negative numbers have every bit flipped and the rest only the sign bit.
template <class Float>
__host__ __device__ __forceinline__ typename float_bits<Float>::type total_order_bits(Float x) {
  using Bits = typename float_bits<Float>::type;
  constexpr Bits sign = Bits{1} << (sizeof(Bits) * 8 - 1);
  Bits b = cuda::std::bit_cast<Bits>(x);
  b = b == sign ? Bits{0} : b;
  return b ^ ((b & sign) ? ~Bits{0} : sign);
}

template <class Float>
__host__ __device__ __forceinline__ Float float_from_bits(typename float_bits<Float>::type b) {
  return cuda::std::bit_cast<Float>(b);
}

}  // namespace detail

/// Ascending order.
template <class Key>
struct less {
  __host__ __device__ bool operator()(const Key& a, const Key& b) const {
    if constexpr (cuda::std::is_floating_point_v<Key>)
      return detail::total_order_bits(a) < detail::total_order_bits(b);
    else
      return a < b;
  }
  __host__ __device__ static Key sentinel() {
    if constexpr (cuda::std::is_floating_point_v<Key>)  // +NaN with every payload bit set
      return detail::float_from_bits<Key>(~typename detail::float_bits<Key>::type{0} >> 1);
    else
      return cuda::std::numeric_limits<Key>::max();
  }
};

/// Descending order.
template <class Key>
struct greater {
  __host__ __device__ bool operator()(const Key& a, const Key& b) const { return less<Key>{}(b, a); }
  __host__ __device__ static Key sentinel() {
    if constexpr (cuda::std::is_floating_point_v<Key>)  // -NaN with every payload bit set
      return detail::float_from_bits<Key>(~typename detail::float_bits<Key>::type{0});
    else
      return cuda::std::numeric_limits<Key>::lowest();
  }
};

/// What the library knows of an order: its own two orders over arithmetic keys (any other
/// comparator, a custom one, gets the general path: compare and select, no packing).
///  - builtin: less<Key> or greater<Key>; descending: greater<Key> (the radix direction that
///    reproduces the order, for validation and the baselines);
///  - minmax: compare-exchange with integer min/max instructions (integers; floats keep the
///    compare, whose total order treats -0.0 and +0.0 as equal but must not swap one for the
///    other);
///  - sorts_as_bits: sorted as unsigned words through order_words (floats).
/// Every builtin order's pairs sort as 64-bit index words (warpsort/detail/pairs_impl.cuh).
template <class Key, class Comp>
struct order_traits {
  static constexpr bool builtin = false, descending = false, minmax = false,
                        sorts_as_bits = false;
};
template <class Key, bool Descending>
struct builtin_order_traits {
  static constexpr bool builtin = true, descending = Descending,
                        minmax = cuda::std::is_integral_v<Key>,
                        sorts_as_bits = cuda::std::is_floating_point_v<Key>;
};
template <class Key>
struct order_traits<Key, less<Key>> : builtin_order_traits<Key, false> {};
template <class Key>
struct order_traits<Key, greater<Key>> : builtin_order_traits<Key, true> {};

/// The one map from keys to unsigned words whose integer order is an order of the library's:
/// less (or greater when Descending) over 4- and 8-byte arithmetic keys.
///  - to: a bijection (every key comes back with its bits through `from`). Its integer order
///    refines the order in one place only: a float's -0.0 comes just before +0.0 (just after,
///    descending), which the order holds equal. Keys sort as these words (floats: one integer
///    compare replaces a float compare of a dozen instructions; the distributed sort moves words).
///  - to_merged_zeros: the order itself (-0.0 and +0.0 one word; not invertible for floats), for
///    sorts that take the keys back by position (pairs, sorted as index words).
template <class Key, bool Descending>
struct order_words {
  static_assert(cuda::std::is_arithmetic_v<Key> && (sizeof(Key) == 4 || sizeof(Key) == 8),
                "order_words maps 4- and 8-byte arithmetic keys");
  using key_type = Key;
  using bits = cuda::std::conditional_t<sizeof(Key) == 4, cuda::std::uint32_t, cuda::std::uint64_t>;
  static constexpr bits sign = bits{1} << (sizeof(bits) * 8 - 1);
  /// The words are the keys themselves (no map pass): unsigned keys, ascending.
  static constexpr bool identity = cuda::std::is_unsigned_v<Key> && !Descending;

  __host__ __device__ static bits to(Key k) {
    bits b = cuda::std::bit_cast<bits>(k);
    if constexpr (cuda::std::is_floating_point_v<Key>)
      b = b ^ ((b & sign) ? ~bits{0} : sign);
    else if constexpr (cuda::std::is_signed_v<Key>)
      b ^= sign;
    return Descending ? static_cast<bits>(~b) : b;
  }
  __host__ __device__ static Key from(bits w) {
    const bits b = Descending ? static_cast<bits>(~w) : w;
    if constexpr (cuda::std::is_floating_point_v<Key>)
      return cuda::std::bit_cast<Key>(b ^ ((b & sign) ? sign : ~bits{0}));
    else if constexpr (cuda::std::is_signed_v<Key>)
      return cuda::std::bit_cast<Key>(static_cast<bits>(b ^ sign));
    else
      return cuda::std::bit_cast<Key>(b);
  }
  __host__ __device__ static bits to_merged_zeros(Key k) {
    if constexpr (cuda::std::is_floating_point_v<Key>) {
      const bits b = detail::total_order_bits(k);
      return Descending ? static_cast<bits>(~b) : b;
    } else {
      return to(k);
    }
  }
};

/// The words of one of the library's two orders (Comp: less<Key> or greater<Key>).
template <class Key, class Comp>
struct order_words_of {
  static_assert(order_traits<Key, Comp>::builtin, "order_words_of: warpsort::less or greater");
  using type = order_words<Key, order_traits<Key, Comp>::descending>;
};
template <class Key, class Comp>
using order_words_for = typename order_words_of<Key, Comp>::type;

/// a and b equivalent under the order: neither before the other (for floats -0.0 and +0.0).
template <class Key, class Comp>
struct equivalent {
  Comp comp;
  __host__ __device__ bool operator()(const Key& a, const Key& b) const {
    return !comp(a, b) && !comp(b, a);
  }
};

}  // namespace warpsort

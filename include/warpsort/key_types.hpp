// The key types warpsort is built for, and the value types of its key-value pairs: the one list.
// Everything else is generated from it or dispatches over it: cmake/warpsort_instantiate.cmake
// reads the lines below to generate the pipeline's and validation's instantiations and to tell
// src/stages which key types to build its steps for; the data layer's key_type, the CLI's
// dispatch, the baselines' instantiations and the tests' type lists expand the macros. Adding a
// key type is one line in WARPSORT_KEY_TYPES_.
#pragma once

#include <cstdint>

// One entry a line, `X(name, C++ type, A)` (CMake parses these lines): `name` is the type's
// name on the command line, in result files and in data::key_type.
#define WARPSORT_KEY_TYPES_(X, A) \
  X(uint32, std::uint32_t, A)     \
  X(int32, std::int32_t, A)       \
  X(float32, float, A)            \
  X(uint64, std::uint64_t, A)     \
  X(int64, std::int64_t, A)       \
  X(float64, double, A)

// The values a pair carries (4- and 8-byte words): `X(name, C++ type, Key, A)`.
#define WARPSORT_VALUE_TYPES_(X, Key, A) \
  X(uint32, std::uint32_t, Key, A)       \
  X(uint64, std::uint64_t, Key, A)

/// F(name, Key) for every key type.
#define WARPSORT_FOR_EACH_KEY_TYPE(F) WARPSORT_KEY_TYPES_(WARPSORT_CALL_NAME_TYPE_, F)
/// F(Key, Value) for every key type and every value type.
#define WARPSORT_FOR_EACH_KEY_VALUE(F) WARPSORT_KEY_TYPES_(WARPSORT_KEY_WITH_VALUES_, F)

#define WARPSORT_CALL_NAME_TYPE_(name, T, F) F(name, T)
#define WARPSORT_KEY_WITH_VALUES_(name, Key, F) \
  WARPSORT_VALUE_TYPES_(WARPSORT_CALL_KEY_VALUE_, Key, F)
#define WARPSORT_CALL_KEY_VALUE_(name, Value, Key, F) F(Key, Value)

namespace warpsort {

template <class... Ts>
struct type_list {};

namespace detail {
/// The number a name ends in ("uint32" -> 32): a key type's width in bits, which its name
/// states on the command line and in result files.
constexpr int trailing_number(const char* s) {
  int v = 0;
  for (; *s != '\0'; ++s) v = *s >= '0' && *s <= '9' ? v * 10 + (*s - '0') : 0;
  return v;
}
#define WARPSORT_CHECK_KEY_NAME_(name, Key)                          \
  static_assert(trailing_number(#name) == 8 * static_cast<int>(sizeof(Key)), \
                "key_types.hpp: a key type's name must end in its width in bits");
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_CHECK_KEY_NAME_)
#undef WARPSORT_CHECK_KEY_NAME_

template <class Void, class... Ts>
struct listed_types {
  using type = type_list<Ts...>;
};
template <class Key, class Value>
struct key_value {
  using key = Key;
  using value = Value;
};
}  // namespace detail

#define WARPSORT_LIST_TYPE_(name, T) , T
#define WARPSORT_LIST_KEY_VALUE_(Key, Value) , detail::key_value<Key, Value>
/// Every key type, in the list's order.
using key_types = detail::listed_types<void WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_LIST_TYPE_)>::type;
/// Every (key, value) combination of pairs, as detail::key_value<Key, Value>.
using key_value_types =
    detail::listed_types<void WARPSORT_FOR_EACH_KEY_VALUE(WARPSORT_LIST_KEY_VALUE_)>::type;
#undef WARPSORT_LIST_TYPE_
#undef WARPSORT_LIST_KEY_VALUE_

}  // namespace warpsort

// The library's lists of key and value types (include/warpsort/key_types.hpp) as GoogleTest
// type lists, so that every typed test covers each type the library is built for.
#pragma once

#include <warpsort/key_types.hpp>

#include <gtest/gtest.h>

namespace warpsort::testing {

template <class List>
struct gtest_types_of;
template <class... Ts>
struct gtest_types_of<type_list<Ts...>> {
  using type = ::testing::Types<Ts...>;
};

/// A (key, value) combination as the pair tests name it.
template <class K, class V>
struct kv {
  using Key = K;
  using Value = V;
};

template <class List>
struct gtest_pair_types_of;
template <class... KVs>
struct gtest_pair_types_of<type_list<KVs...>> {
  using type = ::testing::Types<kv<typename KVs::key, typename KVs::value>...>;
};

/// Every key type.
using all_key_types = gtest_types_of<warpsort::key_types>::type;
/// Every (key, value) combination of pairs.
using all_key_value_types = gtest_pair_types_of<warpsort::key_value_types>::type;

}  // namespace warpsort::testing

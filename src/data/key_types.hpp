// Key types a dataset can hold, their names on the command line and in .npy files.
#pragma once

#include <warpsort/key_types.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpsort::data {

/// One enumerator a key type of include/warpsort/key_types.hpp, named as the list names it.
enum class key_type {
#define WARPSORT_KEY_ENUMERATOR_(name, Key) name,
  WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_KEY_ENUMERATOR_)
#undef WARPSORT_KEY_ENUMERATOR_
};

/// Every key type, in the list's order.
const std::vector<key_type>& all_key_types();

/// The list's names ("uint32", ..., "float64"; also "float" and "double"), any case.
/// Throws warpsort::input_error naming the accepted spellings for anything else.
key_type parse_key_type(const std::string& name);
std::string key_type_name(key_type t);  // canonical: the list's name
std::size_t key_type_size(key_type t);
/// NumPy dtype descr, little-endian: "<u4", "<i4", "<f4", "<u8", "<i8", "<f8".
std::string npy_descr(key_type t);

template <class Key>
constexpr key_type key_type_of();
#define WARPSORT_KEY_TYPE_OF_(name, Key) \
  template <>                            \
  constexpr key_type key_type_of<Key>() { \
    return key_type::name;               \
  }
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_KEY_TYPE_OF_)
#undef WARPSORT_KEY_TYPE_OF_

}  // namespace warpsort::data

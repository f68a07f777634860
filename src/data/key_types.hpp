// Key types a dataset can hold, their names on the command line and in .npy files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace warpsort::data {

enum class key_type { uint32, int32, float32, uint64, int64, float64 };

/// "uint32", "int32", "float32" (also "float"), "uint64", "int64", "float64" (also "double").
/// Throws warpsort::input_error naming the accepted spellings for anything else.
key_type parse_key_type(const std::string& name);
std::string key_type_name(key_type t);  // canonical: "uint32", ..., "float64"
std::size_t key_type_size(key_type t);
/// NumPy dtype descr, little-endian: "<u4", "<i4", "<f4", "<u8", "<i8", "<f8".
std::string npy_descr(key_type t);

template <class Key> constexpr key_type key_type_of();
template <> constexpr key_type key_type_of<std::uint32_t>() { return key_type::uint32; }
template <> constexpr key_type key_type_of<std::int32_t>() { return key_type::int32; }
template <> constexpr key_type key_type_of<float>() { return key_type::float32; }
template <> constexpr key_type key_type_of<std::uint64_t>() { return key_type::uint64; }
template <> constexpr key_type key_type_of<std::int64_t>() { return key_type::int64; }
template <> constexpr key_type key_type_of<double>() { return key_type::float64; }

}  // namespace warpsort::data

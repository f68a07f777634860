// Dataset files: NumPy .npy (1-D, little-endian) and raw little-endian binary.
#pragma once

#include "key_types.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace warpsort::data {

/// Keys read from a file, as bytes of `type`, n keys.
struct dataset {
  key_type type = key_type::uint32;
  std::size_t n = 0;
  std::vector<unsigned char> bytes;  // n * key_type_size(type)
  template <class Key> const Key* keys() const { return reinterpret_cast<const Key*>(bytes.data()); }
  template <class Key> Key* keys() { return reinterpret_cast<Key*>(bytes.data()); }
};

/// Reads a .npy file: format version 1.0/2.0/3.0, 1-D, C order, a supported little-endian dtype.
/// Throws warpsort::input_error, naming the file and what is wrong, for a missing or unreadable
/// file, a bad magic string or header, a shape that is not 1-D, Fortran order, a big-endian or
/// unsupported dtype, or a file shorter (truncated) or longer than the header says.
dataset read_npy(const std::string& path);

/// Reads raw little-endian keys of `type`. Throws warpsort::input_error for a missing or
/// unreadable file or a size that is not a multiple of the key size.
dataset read_raw(const std::string& path, key_type type);

/// Dispatch by extension: ".npy" -> read_npy (if `type` is given it must match the file's
/// dtype), anything else -> read_raw, which then needs `type`.
dataset read_dataset(const std::string& path, std::optional<key_type> type);

/// Writers; throw warpsort::input_error if the file cannot be written.
void write_npy(const std::string& path, key_type type, const void* keys, std::size_t n);
void write_raw(const std::string& path, key_type type, const void* keys, std::size_t n);
/// Dispatch by extension as read_dataset does.
void write_dataset(const std::string& path, key_type type, const void* keys, std::size_t n);

}  // namespace warpsort::data

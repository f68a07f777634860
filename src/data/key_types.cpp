// Key type names, sizes and NumPy dtype strings.
#include "data/key_types.hpp"

#include "warpsort/error.hpp"

#include <algorithm>
#include <cctype>

namespace warpsort::data {

key_type parse_key_type(const std::string& name) {
  std::string s = name;
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s == "uint32") return key_type::uint32;
  if (s == "int32") return key_type::int32;
  if (s == "float32" || s == "float") return key_type::float32;
  if (s == "uint64") return key_type::uint64;
  if (s == "int64") return key_type::int64;
  if (s == "float64" || s == "double") return key_type::float64;
  throw input_error("unknown key type '" + name +
                    "'; accepted: uint32, int32, float32 (or float), uint64, int64, "
                    "float64 (or double)");
}

std::string key_type_name(key_type t) {
  switch (t) {
    case key_type::uint32: return "uint32";
    case key_type::int32: return "int32";
    case key_type::float32: return "float32";
    case key_type::uint64: return "uint64";
    case key_type::int64: return "int64";
    case key_type::float64: return "float64";
  }
  throw input_error("invalid key_type value " + std::to_string(static_cast<int>(t)));
}

std::size_t key_type_size(key_type t) {
  switch (t) {
    case key_type::uint32:
    case key_type::int32:
    case key_type::float32: return 4;
    case key_type::uint64:
    case key_type::int64:
    case key_type::float64: return 8;
  }
  throw input_error("invalid key_type value " + std::to_string(static_cast<int>(t)));
}

std::string npy_descr(key_type t) {
  switch (t) {
    case key_type::uint32: return "<u4";
    case key_type::int32: return "<i4";
    case key_type::float32: return "<f4";
    case key_type::uint64: return "<u8";
    case key_type::int64: return "<i8";
    case key_type::float64: return "<f8";
  }
  throw input_error("invalid key_type value " + std::to_string(static_cast<int>(t)));
}

}  // namespace warpsort::data

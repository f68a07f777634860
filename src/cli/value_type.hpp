// The value type of key-value (pair) runs: `--values none|uint32|uint64`. Pure C++.
#pragma once

#include <warpsort/error.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace warpsort::cli {

/// none: keys only. Otherwise the values are the input indices 0..n-1 (an argsort).
enum class value_type { none, uint32, uint64 };

inline std::string value_type_name(value_type v) {
  switch (v) {
    case value_type::uint32: return "uint32";
    case value_type::uint64: return "uint64";
    default: return "none";
  }
}

/// "none", "uint32", "uint64"; anything else is an input_error naming the valid ones.
inline value_type parse_value_type(const std::string& text) {
  if (text == "none") return value_type::none;
  if (text == "uint32") return value_type::uint32;
  if (text == "uint64") return value_type::uint64;
  throw input_error("unknown value type '" + text + "' for --values; valid: none, uint32, uint64");
}

/// Bytes of one value (0 for none).
inline std::size_t value_bytes(value_type v) {
  return v == value_type::uint32 ? 4 : v == value_type::uint64 ? 8 : 0;
}

/// The most pairs warpsort::sort_pairs takes: 2^32 - 1.
inline constexpr std::size_t max_pairs = std::numeric_limits<std::uint32_t>::max();

/// The key_type column of pair rows: "uint32+uint64" (key + value); the key type alone for none.
inline std::string pair_type_name(const std::string& key, value_type v) {
  return v == value_type::none ? key : key + "+" + value_type_name(v);
}

/// Calls f(tag) with `using Value = typename decltype(tag)::type;` std::uint32_t or
/// std::uint64_t; input_error for none.
template <class T>
struct value_tag {
  using type = T;
};
template <class F>
decltype(auto) with_value_type(value_type v, F&& f) {
  if (v == value_type::uint32) return f(value_tag<std::uint32_t>{});
  if (v == value_type::uint64) return f(value_tag<std::uint64_t>{});
  throw input_error("no value type given (--values uint32 or uint64)");
}

}  // namespace warpsort::cli

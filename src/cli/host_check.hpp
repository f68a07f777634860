// Host-side validation: a sorted result against the reference, element by element.
#pragma once

#include <cstddef>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>

namespace warpsort::cli {

/// The first index where result differs from reference (neither orders before the other counts
/// as equal, so equivalent keys match); nullopt if they agree.
template <class Key>
std::optional<std::size_t> first_mismatch(const Key* reference, const Key* result, std::size_t n) {
  // Integers: equivalent means bit-equal, so the common all-equal case runs at memcmp speed
  // (end-to-end runs check gigabytes per run).
  if constexpr (std::is_integral_v<Key>)
    if (n == 0 || std::memcmp(reference, result, n * sizeof(Key)) == 0) return std::nullopt;
  for (std::size_t i = 0; i < n; ++i)
    if (reference[i] < result[i] || result[i] < reference[i]) return i;
  return std::nullopt;
}

/// Empty if result equals reference; otherwise "mismatch against <what> at index i: expected x, got y".
template <class Key>
std::string host_mismatch_message(const Key* reference, const Key* result, std::size_t n,
                                  const std::string& what) {
  const auto i = first_mismatch(reference, result, n);
  if (!i) return {};
  std::ostringstream s;
  s.precision(17);
  s << "mismatch against " << what << " at index " << *i << ": expected " << +reference[*i]
    << ", got " << +result[*i];
  return s.str();
}

}  // namespace warpsort::cli

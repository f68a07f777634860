// Which arrays of one call may share memory. An output may be exactly its own input (same
// start, same length): the sort is then in place. Any other overlap between the arrays a call
// reads, the arrays it writes and its temporary storage would let one be overwritten before it
// is read, so the call refuses it before any work.
#pragma once

#include <warpsort/error.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

namespace warpsort::detail {

/// One array of a call: its name (for the message), first byte and length in bytes.
struct byte_range {
  const char* name;
  const void* data;
  std::size_t bytes;
};

/// Whether two ranges share a byte (empty ranges share none).
inline bool share_bytes(const byte_range& a, const byte_range& b) {
  if (a.bytes == 0 || b.bytes == 0 || a.data == nullptr || b.data == nullptr) return false;
  const auto a0 = reinterpret_cast<std::uintptr_t>(a.data);
  const auto b0 = reinterpret_cast<std::uintptr_t>(b.data);
  return a0 < b0 + b.bytes && b0 < a0 + a.bytes;
}

/// Throws input_error for the first pair of `arrays` that shares a byte, unless the pair is
/// listed in `in_place` (indices into `arrays`) and the two are the same range exactly.
inline void refuse_overlaps(const char* who, std::initializer_list<byte_range> arrays,
                            std::initializer_list<std::pair<int, int>> in_place) {
  const byte_range* a = arrays.begin();
  const int count = static_cast<int>(arrays.size());
  for (int i = 0; i < count; ++i)
    for (int j = i + 1; j < count; ++j) {
      if (!share_bytes(a[i], a[j])) continue;
      bool allowed = false;
      for (const auto& p : in_place)
        allowed = allowed || (((p.first == i && p.second == j) || (p.first == j && p.second == i)) &&
                              a[i].data == a[j].data && a[i].bytes == a[j].bytes);
      if (!allowed)
        throw input_error(std::string(who) + ": " + a[i].name + " and " + a[j].name +
                          " overlap; an output may only be exactly its own input (in place)");
    }
}

}  // namespace warpsort::detail

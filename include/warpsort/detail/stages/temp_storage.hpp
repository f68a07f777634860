// Carving one temporary allocation into aligned arrays. The same sequence of take() calls
// sizes the storage (base == nullptr) and then lays it out, so the two can never disagree.
#pragma once

#include <warpsort/error.hpp>

#include <cstddef>
#include <string>

namespace warpsort::stages {

class temp_carver {
 public:
  static constexpr std::size_t alignment = 256;
  explicit temp_carver(void* base) : base_(static_cast<char*>(base)) {}

  template <class T>
  T* take(std::size_t count) {
    const std::size_t offset = used_;
    used_ += (count * sizeof(T) + alignment - 1) / alignment * alignment;
    return base_ ? reinterpret_cast<T*>(base_ + offset) : nullptr;
  }
  void* take_bytes(std::size_t bytes) { return take<unsigned char>(bytes); }
  std::size_t used() const { return used_; }

 private:
  char* base_;
  std::size_t used_ = 0;
};

/// After the carving of a sort's storage: a size query (d_temp null) sets temp_bytes and
/// returns false; a sort throws input_error when the caller's storage is smaller than the
/// carving needs, and returns true.
inline bool storage_ready(const temp_carver& carver, const void* d_temp, std::size_t& temp_bytes,
                          const char* who) {
  if (d_temp == nullptr) {
    temp_bytes = carver.used();
    return false;
  }
  if (temp_bytes < carver.used())
    throw input_error(std::string(who) + ": temporary storage of " + std::to_string(temp_bytes) +
                      " bytes is smaller than the " + std::to_string(carver.used()) + " needed");
  return true;
}

}  // namespace warpsort::stages

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

/// Throws input_error when the caller's temporary storage is smaller than the carving needs.
inline void require_temp_bytes(const char* who, std::size_t have, std::size_t need) {
  if (have < need)
    throw input_error(std::string(who) + ": temporary storage of " + std::to_string(have) +
                      " bytes is smaller than the " + std::to_string(need) + " needed");
}

}  // namespace warpsort::stages

// The storage half of every GPU baseline: a few device byte buffers ("parts": CUB's temporary
// storage, a cub::DoubleBuffer's alternate half, a padded copy, Thrust's arena) that prepare(max_n)
// sizes for every sort of up to max_n items and that sort() then uses as they are, so a timed
// sort makes no allocation. One implementation, so that every baseline grows, fails and reports
// its storage (sorter_internals::device_buffers) alike.
#pragma once

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include "baselines/gpu_baselines_impl.cuh"
#include "host/device_buffer.hpp"

namespace warpsort::baselines::detail {

/// Interface: gpu_sorter<Key> or gpu_pair_sorter<Key, Value>. Derived (CRTP) supplies sort() and
/// `static std::array<std::size_t, Parts> part_bytes(std::size_t max_n)`, each part's bytes for
/// sorts of up to max_n >= 2 items (a part of 0 bytes holds nothing); max_n <= 1 needs nothing.
template <class Interface, class Derived, std::size_t Parts>
class prepared_baseline : public Interface, public sorter_internals {
 public:
  std::size_t temp_bytes(std::size_t max_n) const final {
    if (max_n <= 1) return 0;
    std::size_t sum = 0;
    for (std::size_t bytes : Derived::part_bytes(max_n)) sum += bytes;
    return sum;
  }

  /// Keeps what is held when it already covers max_n. Otherwise frees everything before
  /// allocating, so that old and new storage are never held together; if an allocation throws,
  /// covers no sort of more than one item.
  void prepare(std::size_t max_n) override {
    if (max_n <= prepared_n_) return;
    prepared_n_ = 0;
    if (max_n > 1) {
      const std::array<std::size_t, Parts> want = Derived::part_bytes(max_n);
      for (auto& part : parts_) part = {};
      for (std::size_t i = 0; i < Parts; ++i) parts_[i] = buffer(want[i]);
    }
    prepared_n_ = max_n;
  }

  std::vector<std::pair<void*, std::size_t>> device_buffers() const final {
    std::vector<std::pair<void*, std::size_t>> out;
    for (const auto& part : parts_)
      if (part.get() != nullptr) out.emplace_back(part.get(), part.size());
    return out;
  }

 protected:
  /// For sort(), before any device work: warpsort::input_error when n exceeds what prepare()
  /// covered.
  void check(const char* baseline, std::size_t n) const {
    check_prepared(baseline, n, prepared_n_);
  }
  template <class T = unsigned char>
  T* part(std::size_t i) const {
    return reinterpret_cast<T*>(parts_[i].get());  // cudaMalloc's alignment suits every T
  }
  std::size_t part_size(std::size_t i) const { return parts_[i].size(); }

 private:
  using buffer = ::warpsort::detail::device_buffer<unsigned char>;
  std::array<buffer, Parts> parts_;
  std::size_t prepared_n_ = 0;
};

}  // namespace warpsort::baselines::detail

// A custom key type and order for warpsort (used by examples/custom_key.cu and its test).
#pragma once

#include <warpsort/order.cuh>

#include <cstdint>

namespace example {

/// A particle, sorted by energy (warpsort's float total order, so NaNs are fine), ties by id.
struct particle {
  float energy;
  std::uint32_t id;
};

struct by_energy_then_id {
  __host__ __device__ bool operator()(const particle& a, const particle& b) const {
    const warpsort::less<float> energy_before;
    if (energy_before(a.energy, b.energy)) return true;
    if (energy_before(b.energy, a.energy)) return false;
    return a.id < b.id;
  }
  /// Orders after every particle: the largest energy (+NaN, all payload bits) and id.
  __host__ __device__ static particle sentinel() {
    return {warpsort::less<float>::sentinel(), 0xffffffffu};
  }
};

}  // namespace example

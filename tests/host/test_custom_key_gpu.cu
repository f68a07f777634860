// GPU test: the custom key entry point (include/warpsort/custom.cuh) with the example's
// particle type, keys and pairs, against thrust::sort / std::stable_sort.
#include "common/gpu_test.hpp"
#include "common/test_inputs.hpp"

#include "../../examples/particle.cuh"

#include <warpsort/custom.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>

#include <algorithm>
#include <random>

namespace {

using example::by_energy_then_id;
using example::particle;

std::vector<particle> make_particles(std::size_t n, std::uint32_t distinct_energies) {
  std::mt19937 rng(static_cast<unsigned>(n));
  std::vector<particle> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = {static_cast<float>(rng() % distinct_energies), static_cast<std::uint32_t>(rng() % 64)};
  return v;
}

bool same(const particle& a, const particle& b) { return a.energy == b.energy && a.id == b.id; }

}  // namespace

// The pairs' instantiation macro serves a custom order as the library's own (argsort, which
// takes only the library's orders, has its own macro).
WARPSORT_INSTANTIATE_PAIRS(example::particle, std::uint32_t, example::by_energy_then_id)
WARPSORT_INSTANTIATE_PAIRS(example::particle, std::uint64_t, example::by_energy_then_id)

TEST(CustomKey, ParticlesMatchThrustSort) {
  WARPSORT_REQUIRE_GPU();
  for (std::size_t n : warpsort::testing::capped({0, 1, 127, 129, 1000, 65537, 1299709}))
    for (std::uint32_t distinct : {1u, 8u, 1000000u}) {
      const auto input = make_particles(n, distinct);
      thrust::device_vector<particle> keys(input.begin(), input.end()), reference = keys;
      std::size_t temp_bytes = 0;
      particle* d = thrust::raw_pointer_cast(keys.data());
      warpsort::sort_keys<particle, by_energy_then_id>(nullptr, temp_bytes, d, d, n);
      thrust::device_vector<unsigned char> temp(temp_bytes, 0xA5);
      warpsort::sort_keys<particle, by_energy_then_id>(thrust::raw_pointer_cast(temp.data()),
                                                        temp_bytes, d, d, n);
      thrust::sort(reference.begin(), reference.end(), by_energy_then_id{});
      thrust::host_vector<particle> got = keys, expect = reference;
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_TRUE(same(got[i], expect[i])) << "n=" << n << " distinct=" << distinct << " i=" << i;
    }
}

/// Pairs sorted in place or out of place against std::stable_sort. A 4-byte value rides in the
/// 16-byte item; an 8-byte one would widen it to 24 bytes, so the sort takes (key, index) items
/// and gathers the values after it (pair_item.cuh's value_rides), in place from a copy.
template <class Value>
void expect_stable_pairs(bool in_place) {
  const std::size_t n = 100003;
  const auto input = make_particles(n, 4);
  std::vector<Value> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<Value>(i) * 3 + 1;
  auto k = warpsort::testing::to_device(input);
  auto v = warpsort::testing::to_device(values);
  warpsort::detail::device_buffer<particle> k_out(in_place ? 1 : n);
  warpsort::detail::device_buffer<Value> v_out(in_place ? 1 : n);
  particle* const keys_out = in_place ? k.get() : k_out.get();
  Value* const values_out = in_place ? v.get() : v_out.get();
  std::size_t temp_bytes = 0;
  warpsort::sort_pairs<particle, Value, by_energy_then_id>(nullptr, temp_bytes, k.get(), keys_out,
                                                           v.get(), values_out, n);
  warpsort::detail::device_buffer<unsigned char> temp(temp_bytes);
  warpsort::sort_pairs<particle, Value, by_energy_then_id>(temp.get(), temp_bytes, k.get(),
                                                           keys_out, v.get(), values_out, n);
  const auto got_k = warpsort::testing::to_host(keys_out, n);
  const auto got_v = warpsort::testing::to_host(values_out, n);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return by_energy_then_id{}(input[a], input[b]);
  });
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(same(got_k[i], input[order[i]])) << "in place " << in_place << ", " << i;
    ASSERT_EQ(got_v[i], values[order[i]]) << "in place " << in_place << ", " << i;
  }
}

TEST(CustomKey, PairsAreStable) {
  WARPSORT_REQUIRE_GPU();
  static_assert(warpsort::detail::value_rides<particle, std::uint32_t>);
  static_assert(!warpsort::detail::value_rides<particle, std::uint64_t>);
  for (bool in_place : {true, false}) {
    expect_stable_pairs<std::uint32_t>(in_place);
    expect_stable_pairs<std::uint64_t>(in_place);
  }
}

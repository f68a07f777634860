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

TEST(CustomKey, PairsAreStable) {
  WARPSORT_REQUIRE_GPU();
  const std::size_t n = 100003;
  const auto input = make_particles(n, 4);
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i);
  auto k = warpsort::testing::to_device(input);
  auto v = warpsort::testing::to_device(values);
  std::size_t temp_bytes = 0;
  warpsort::sort_pairs<particle, std::uint32_t, by_energy_then_id>(nullptr, temp_bytes, k.get(), k.get(),
                                                                   v.get(), v.get(), n);
  warpsort::detail::device_buffer<unsigned char> temp(temp_bytes);
  warpsort::sort_pairs<particle, std::uint32_t, by_energy_then_id>(temp.get(), temp_bytes, k.get(), k.get(),
                                                                   v.get(), v.get(), n);
  const auto got_k = warpsort::testing::to_host(k.get(), n);
  const auto got_v = warpsort::testing::to_host(v.get(), n);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return by_energy_then_id{}(input[a], input[b]);
  });
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(same(got_k[i], input[order[i]])) << i;
    ASSERT_EQ(got_v[i], order[i]) << i;
  }
}

// Sorting a custom key type with warpsort: particles by (energy, id).
//   build/examples/example_custom_key [n]
#include "particle.cuh"

#include <warpsort/custom.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>

#include <cstdio>
#include <cstdlib>
#include <random>

int main(int argc, char** argv) try {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> energy(0.0f, 100.0f);
  thrust::host_vector<example::particle> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = {energy(rng), static_cast<std::uint32_t>(i % 1000)};

  thrust::device_vector<example::particle> keys = host, reference = host;
  std::size_t temp_bytes = 0;
  example::particle* d = thrust::raw_pointer_cast(keys.data());
  warpsort::sort_keys<example::particle, example::by_energy_then_id>(nullptr, temp_bytes, d, d, n);
  thrust::device_vector<unsigned char> temp(temp_bytes);
  warpsort::sort_keys<example::particle, example::by_energy_then_id>(
      thrust::raw_pointer_cast(temp.data()), temp_bytes, d, d, n);

  thrust::sort(reference.begin(), reference.end(), example::by_energy_then_id{});
  thrust::host_vector<example::particle> got = keys, expect = reference;
  for (std::size_t i = 0; i < n; ++i)
    if (got[i].energy != expect[i].energy || got[i].id != expect[i].id) {
      std::printf("mismatch at %zu\n", i);
      return 1;
    }
  std::printf("sorted %zu particles by (energy, id): equal to thrust::sort\n", n);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "example_custom_key: error: %s\n", e.what());
  return 1;
}

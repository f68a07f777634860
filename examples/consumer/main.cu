// Sorts a million random keys with warpsort and checks the result against the references.
//   consumer [n]
#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <vector>

int main(int argc, char** argv) try {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  std::vector<std::uint32_t> host(n);
  std::mt19937 rng(1);
  for (auto& k : host) k = rng();

  std::uint32_t *keys = nullptr, *sorted = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  warpsort::sort_keys<std::uint32_t>(nullptr, temp_bytes, keys, sorted, n);  // size query
  WARPSORT_CUDA_CHECK(cudaMalloc(&keys, n * sizeof(std::uint32_t)));
  WARPSORT_CUDA_CHECK(cudaMalloc(&sorted, n * sizeof(std::uint32_t)));
  WARPSORT_CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
  WARPSORT_CUDA_CHECK(cudaMemcpy(keys, host.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  warpsort::sort_keys<std::uint32_t>(temp, temp_bytes, keys, sorted, n);
  const warpsort::validation_report report = warpsort::validate_against_references(keys, sorted, n);
  std::printf("sorted %zu keys: %s\n", n, report.message().c_str());
  cudaFree(temp);
  cudaFree(sorted);
  cudaFree(keys);
  return report.ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "consumer: %s\n", e.what());
  return 1;
}

// Step 3's sample sort over one set, four ways, at the sample counts the run merge sorts:
// 12-byte (set, index, key) records by (set, key) [bits 0-32], CUB pairs of uint32 keys and
// uint64 positions, 8-byte (index, key) records by key, pairs of uint32 keys and uint32 indices.
#include <cub/device/device_radix_sort.cuh>
#include <cuda/std/tuple>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>
#include <functional>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
struct rec12 { std::uint32_t set, index, key; };
struct rec8 { std::uint32_t index, key; };
struct d12 { __host__ __device__ cuda::std::tuple<std::uint32_t&, std::uint32_t&> operator()(rec12& r) const { return {r.set, r.key}; } };
struct d8 { __host__ __device__ cuda::std::tuple<std::uint32_t&> operator()(rec8& r) const { return {r.key}; } };
__global__ void spin(long long ns) { const long long t0 = clock64(); while (clock64() - t0 < ns) {} }
// GPU time: every run queued behind a spin kernel, so the host's launch latency is hidden
// (Queued) or, alone after an idle GPU, included (as a caller that waits on the result sees it).
template <class F> float time_it(F run, F reset, int reps, bool queued) {
  std::vector<cudaEvent_t> a(reps + 3), b(reps + 3);
  for (auto& ev : a) CK(cudaEventCreate(&ev)); for (auto& ev : b) CK(cudaEventCreate(&ev));
  std::vector<float> t;
  if (queued) spin<<<1, 1>>>(20000000LL);
  for (int i = 0; i < reps + 3; ++i) {
    reset(); if (!queued) CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(a[i])); run(); CK(cudaEventRecord(b[i])); if (!queued) CK(cudaEventSynchronize(b[i]));
  }
  CK(cudaDeviceSynchronize());
  for (int i = 3; i < reps + 3; ++i) { float ms; CK(cudaEventElapsedTime(&ms, a[i], b[i])); t.push_back(ms * 1000); }
  for (auto& ev : a) CK(cudaEventDestroy(ev)); for (auto& ev : b) CK(cudaEventDestroy(ev));
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  const int reps = 31;
  std::printf("timing,n,rec12_us,pairs_u32_u64_us,rec8_us,pairs_u32_u32_us\n");
  for (int queued = 1; queued >= 0; --queued)
  for (int i = 1; i < argc; ++i) {
    const long n = std::atol(argv[i]);
    std::mt19937 g(n); std::vector<std::uint32_t> k(n); for (auto& x : k) x = g();
    std::vector<rec12> h12(n); std::vector<rec8> h8(n); std::vector<std::uint64_t> p64(n); std::vector<std::uint32_t> p32(n);
    for (long j = 0; j < n; ++j) { h12[j] = {0u, (std::uint32_t)j, k[j]}; h8[j] = {(std::uint32_t)j, k[j]}; p64[j] = j; p32[j] = j; }
    rec12 *a12, *b12, *s12; rec8 *a8, *b8, *s8; std::uint32_t *ka, *kb, *ks, *va32, *vb32, *vs32; std::uint64_t *va64, *vb64, *vs64;
    CK(cudaMalloc(&a12, n * 12)); CK(cudaMalloc(&b12, n * 12)); CK(cudaMalloc(&s12, n * 12));
    CK(cudaMalloc(&a8, n * 8)); CK(cudaMalloc(&b8, n * 8)); CK(cudaMalloc(&s8, n * 8));
    CK(cudaMalloc(&ka, n * 4)); CK(cudaMalloc(&kb, n * 4)); CK(cudaMalloc(&ks, n * 4));
    CK(cudaMalloc(&va32, n * 4)); CK(cudaMalloc(&vb32, n * 4)); CK(cudaMalloc(&vs32, n * 4));
    CK(cudaMalloc(&va64, n * 8)); CK(cudaMalloc(&vb64, n * 8)); CK(cudaMalloc(&vs64, n * 8));
    CK(cudaMemcpy(s12, h12.data(), n * 12, cudaMemcpyHostToDevice)); CK(cudaMemcpy(s8, h8.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ks, k.data(), n * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(vs32, p32.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(vs64, p64.data(), n * 8, cudaMemcpyHostToDevice));
    size_t b1 = 0, b2 = 0, b3 = 0, b4 = 0;
    CK(cub::DeviceRadixSort::SortKeys(nullptr, b1, a12, b12, (std::int64_t)n, d12{}, 0, 32));
    CK(cub::DeviceRadixSort::SortPairs(nullptr, b2, ka, kb, va64, vb64, (std::int64_t)n, 0, 32));
    CK(cub::DeviceRadixSort::SortKeys(nullptr, b3, a8, b8, (std::int64_t)n, d8{}, 0, 32));
    CK(cub::DeviceRadixSort::SortPairs(nullptr, b4, ka, kb, va32, vb32, (std::int64_t)n, 0, 32));
    void* tmp; size_t tb = std::max({b1, b2, b3, b4}); CK(cudaMalloc(&tmp, tb));
    auto r12 = [&] { CK(cudaMemcpyAsync(a12, s12, n * 12, cudaMemcpyDeviceToDevice)); };
    auto rp = [&] { CK(cudaMemcpyAsync(ka, ks, n * 4, cudaMemcpyDeviceToDevice)); CK(cudaMemcpyAsync(va64, vs64, n * 8, cudaMemcpyDeviceToDevice)); CK(cudaMemcpyAsync(va32, vs32, n * 4, cudaMemcpyDeviceToDevice)); };
    auto r8 = [&] { CK(cudaMemcpyAsync(a8, s8, n * 8, cudaMemcpyDeviceToDevice)); };
    std::function<void()> f;
    float t1 = time_it<std::function<void()>>([&] { CK(cub::DeviceRadixSort::SortKeys(tmp, b1, a12, b12, (std::int64_t)n, d12{}, 0, 32)); }, r12, reps, queued);
    float t2 = time_it<std::function<void()>>([&] { CK(cub::DeviceRadixSort::SortPairs(tmp, b2, ka, kb, va64, vb64, (std::int64_t)n, 0, 32)); }, rp, reps, queued);
    float t3 = time_it<std::function<void()>>([&] { CK(cub::DeviceRadixSort::SortKeys(tmp, b3, a8, b8, (std::int64_t)n, d8{}, 0, 32)); }, r8, reps, queued);
    float t4 = time_it<std::function<void()>>([&] { CK(cub::DeviceRadixSort::SortPairs(tmp, b4, ka, kb, va32, vb32, (std::int64_t)n, 0, 32)); }, rp, reps, queued);
    // validate each: keys ascending, the index stable
    std::vector<rec12> o12(n); std::vector<rec8> o8(n); std::vector<std::uint32_t> ok(n), o32(n); std::vector<std::uint64_t> o64(n);
    CK(cudaMemcpy(o12.data(), b12, n * 12, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(o8.data(), b8, n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ok.data(), kb, n * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(o32.data(), vb32, n * 4, cudaMemcpyDeviceToHost));
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ref(n); for (long j = 0; j < n; ++j) ref[j] = {k[j], (std::uint32_t)j};
    std::sort(ref.begin(), ref.end());
    bool good = true;
    for (long j = 0; j < n; ++j) good &= o12[j].key == ref[j].first && o12[j].index == ref[j].second && o8[j].key == ref[j].first && o8[j].index == ref[j].second && ok[j] == ref[j].first && o32[j] == ref[j].second;
    std::printf("%s,%ld,%.2f,%.2f,%.2f,%.2f%s\n", queued ? "queued" : "alone", n, t1, t2, t3, t4, good ? "" : ",INVALID");
    cudaFree(a12); cudaFree(b12); cudaFree(s12); cudaFree(a8); cudaFree(b8); cudaFree(s8); cudaFree(ka); cudaFree(kb); cudaFree(ks);
    cudaFree(va32); cudaFree(vb32); cudaFree(vs32); cudaFree(va64); cudaFree(vb64); cudaFree(vs64); cudaFree(tmp);
  }
}

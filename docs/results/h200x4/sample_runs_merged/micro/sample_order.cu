// Step 3's records of runs ordered two ways at the counts the run merge meets: CUB's radix sort
// (sort_samples, what split_sequences did) and merge_sample_runs. Every output is checked
// against the radix sort's. GPU time, each run queued behind a spin kernel (the host's launches
// hidden), median of 31 after 3 warm-ups. 20560, 49345, 82241 and 197379 samples: a part's at
// 2^26 and 2^28 keys on four GPUs (2^21 and 2^23 keys a part, 32 runs, stride 102), the
// gathered path's at 2^22 and 2^24 (64 runs, stride 85).
// Built here: nvcc -O3 -std=c++17 -arch=sm_90 --extended-lambda -I../../../../../include
//             -I../../../../../src -o sample_order sample_order.cu
#include <warpsort/detail/stages/splitters.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace ws = warpsort::stages;
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(err_)); std::exit(1); } } while (0)

__global__ void spin(long long cycles) { const long long t0 = clock64(); while (clock64() - t0 < cycles) {} }

template <class F> float time_it(F run, int reps) {
  std::vector<cudaEvent_t> a(reps + 3), b(reps + 3);
  for (auto& e : a) CK(cudaEventCreate(&e));
  for (auto& e : b) CK(cudaEventCreate(&e));
  spin<<<1, 1>>>(40000000LL);
  for (int i = 0; i < reps + 3; ++i) { CK(cudaEventRecord(a[i])); run(); CK(cudaEventRecord(b[i])); }
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 3; i < reps + 3; ++i) { float ms; CK(cudaEventElapsedTime(&ms, a[i], b[i])); t.push_back(ms * 1000); }
  for (auto& e : a) CK(cudaEventDestroy(e));
  for (auto& e : b) CK(cudaEventDestroy(e));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class Key>
void one(int runs, std::size_t samples, const char* dist, std::mt19937_64& g) {
  using record = ws::sample_record<Key, false>;
  ws::runs_shape r;
  r.runs = runs;
  std::vector<record> h;
  for (int i = 0; i < runs; ++i) {
    const std::size_t len = samples / runs + (static_cast<std::size_t>(i) < samples % runs);
    std::vector<Key> k(len);
    for (Key& x : k) {
      if (dist[0] == 'u') x = static_cast<Key>(g());
      else if (dist[0] == 'f') x = static_cast<Key>(g() % 5);
      else x = static_cast<Key>((static_cast<Key>(runs - i) << (sizeof(Key) * 8 - 7)) + g() % 1000);
    }
    std::sort(k.begin(), k.end());
    for (Key x : k) h.push_back({static_cast<std::uint32_t>(h.size()), x});
    r.sample_start[i + 1] = h.size();
  }
  r.samples = h.size();
  record *in, *sorted, *merged;
  CK(cudaMalloc(&in, h.size() * sizeof(record)));
  CK(cudaMalloc(&sorted, h.size() * sizeof(record)));
  CK(cudaMalloc(&merged, h.size() * sizeof(record)));
  CK(cudaMemcpy(in, h.data(), h.size() * sizeof(record), cudaMemcpyHostToDevice));
  const std::size_t bytes = ws::sort_samples_temp_bytes<record, warpsort::less<Key>>(h.size(), 1);
  void* temp;
  CK(cudaMalloc(&temp, std::max<std::size_t>(bytes, 1)));
  const float t_sort = time_it([&] { ws::sort_samples(temp, bytes, in, sorted, h.size(), 1, warpsort::less<Key>{}, 0); }, 31);
  const float t_merge = time_it([&] { ws::merge_sample_runs(in, merged, r, 0); }, 31);
  std::vector<record> a(h.size()), b(h.size());
  CK(cudaMemcpy(a.data(), sorted, h.size() * sizeof(record), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), merged, h.size() * sizeof(record), cudaMemcpyDeviceToHost));
  bool same = true;
  for (std::size_t i = 0; i < h.size(); ++i) same &= a[i].index == b[i].index && a[i].key == b[i].key;
  std::printf("%zu,%s,%d,%zu,%.2f,%.2f,%.2f,%s\n", sizeof(Key), dist, runs, samples, t_sort, t_merge,
              t_sort / t_merge, same ? "same" : "DIFFERENT");
  CK(cudaFree(in)); CK(cudaFree(sorted)); CK(cudaFree(merged)); CK(cudaFree(temp));
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  std::mt19937_64 g(1);
  std::printf("key_bytes,dist,runs,samples,radix_sort_us,merged_us,sort_over_merge,check\n");
  for (const char* dist : {"uniform", "few", "bands"})
    for (int runs : {4, 16, 32, 64})
      for (std::size_t s : {1024, 2048, 4096, 8192, 16384, 20560, 32768, 49345, 65536, 82241,
                            131072, 197379, 262144, 524288}) {
        one<std::uint32_t>(runs, s, dist, g);
        if (dist[0] == 'u' && (runs == 32 || runs == 64)) one<std::uint64_t>(runs, s, dist, g);
      }
}

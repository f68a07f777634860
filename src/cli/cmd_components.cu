// `warpsort components`: the sort taken apart, each part timed on its own against a copy pass
// (uint32 keys, uniform, generated on the device): step 1, one round of steps 3 and 4 over step
// 1's sequences with sets of k = 2..64 (the merge's growth per level of k is the cost of one
// on-chip merge level), the whole sort with its step times, and version 4 for comparison. Every
// timed output is checked (each sorted run in order) before it counts.
#include "cli/commands.hpp"
#include "cli/gpu_timing.cuh"
#include "host/device_buffer.hpp"
#include <warpsort/stages.hpp>

#include <warpsort/ablation.cuh>
#include <warpsort/warpsort.cuh>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <numeric>
#include <vector>

namespace warpsort::cli {
namespace {

using Key = std::uint32_t;
using Comp = less<Key>;

__global__ void fill_uniform_kernel(Key* keys, std::size_t n, std::uint32_t seed) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t x = static_cast<std::uint32_t>(i) ^ seed;  // a 32-bit integer hash
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  keys[i] = x;
}

__global__ void copy_pass_kernel(const uint4* in, uint4* out, std::size_t n4) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

__global__ void count_descents_kernel(const Key* keys, std::size_t n, std::size_t run,
                                      unsigned long long* descents) {
  unsigned long long d = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    if (i % run != 0 && keys[i] < keys[i - 1]) ++d;
  if (d) atomicAdd(descents, d);
}

class component_timer {
 public:
  component_timer(std::size_t n, int reps) : n_(n), reps_(reps), descents_(1) {}
  /// The median of reps timed runs of f (after one warm-up), each output checked: every run
  /// of `run` keys (0: none) must be in order.
  float median(const std::function<void()>& f, const Key* out, std::size_t run) {
    std::vector<float> times;
    for (int r = 0; r <= reps_; ++r) {
      timer_.start(nullptr);
      f();
      const float ms = timer_.stop(nullptr);
      if (r > 0) times.push_back(ms);
      if (run > 0) check(out, run);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

 private:
  void check(const Key* out, std::size_t run) {
    WARPSORT_CUDA_CHECK(cudaMemset(descents_.get(), 0, sizeof(unsigned long long)));
    count_descents_kernel<<<1024, 256>>>(out, n_, run, descents_.get());
    WARPSORT_CHECK_LAUNCH();
    unsigned long long d = 0;
    WARPSORT_CUDA_CHECK(cudaMemcpy(&d, descents_.get(), sizeof d, cudaMemcpyDeviceToHost));
    if (d != 0) throw input_error(fmt::format("components: an output has {} keys out of order", d));
  }
  std::size_t n_;
  int reps_;
  event_timer timer_;
  detail::device_buffer<unsigned long long> descents_;
};

/// A round over sequences of seq_len keys, sets of k, as make_plan shapes its rounds, with its
/// samples sorted (one way of ordering them in every row).
merge_round round_of(std::size_t n, std::size_t seq_len, std::size_t k, const policy& p) {
  merge_round m = plan_round(n, seq_len, k, p);
  m.ranks_on_chip = false;
  return m;
}

}  // namespace

int run_components(const components_options& o) {
  const std::size_t n = o.n;
  if (n < (std::size_t{1} << 20) || n % 4 != 0)
    throw input_error("components: --n must be a multiple of 4, at least 2^20");
  const policy p = default_policy<Key>();
  detail::device_buffer<Key> in(n), a(n), b(n);
  fill_uniform_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.get(), n, 12345u);
  WARPSORT_CHECK_LAUNCH();
  component_timer t(n, o.reps);
  nlohmann::json out;
  int sms = 0;
  WARPSORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  const float copy_ms = t.median([&] {
    copy_pass_kernel<<<static_cast<unsigned>(sms) * 8, 512>>>(reinterpret_cast<const uint4*>(in.get()),
                                                                reinterpret_cast<uint4*>(a.get()), n / 4);
  }, nullptr, 0);
  fmt::print("n = {} uint32 keys, uniform; median of {} runs; a pass = {:.3f} ms (copy: read + write every key)\n",
             n, o.reps, copy_ms);
  out["n"] = n;
  out["copy_pass_ms"] = copy_ms;

  fmt::print("\nstep 1 (blocks sorted on chip; warps sort {} keys, then merge levels)\n", 1024);
  for (int block : {p.block_sort_keys / 4, p.block_sort_keys / 2, p.block_sort_keys}) {
    policy q = p;
    q.block_sort_keys = block;
    const float ms = t.median([&] { stages::sort_chunks(in.get(), a.get(), n, Comp{}, q, 0); }, a.get(), block);
    fmt::print("  blocks of {:6}: {:8.3f} ms = {:5.2f} passes\n", block, ms, ms / copy_ms);
    out["step1"].push_back({{"block_sort_keys", block}, {"ms", ms}});
  }
  stages::sort_chunks(in.get(), a.get(), n, Comp{}, p, 0);  // sequences of block_sort_keys

  fmt::print("\none round of steps 3 and 4 over those sequences, sets of k (log2 k merge levels on chip)\n");
  std::vector<double> levels, merge;
  for (std::size_t k : {2, 4, 8, 16, 32, 64}) {
    const merge_round m = round_of(n, static_cast<std::size_t>(p.block_sort_keys), k, p);
    const std::size_t bytes = stages::split_sets_temp_bytes<Key, Comp>(m);
    detail::device_buffer<unsigned char> temp(bytes);
    stages::split_layout layout;
    const float split_ms = t.median([&] {
      layout = stages::split_sets<Key, Comp>(a.get(), n, m, temp.get(), bytes, Comp{}, p, 0);
    }, nullptr, 0);
    const float merge_ms = t.median([&] {
      stages::merge_sets<Key, Comp>(a.get(), b.get(), n, m, layout, Comp{}, p, 0);
    }, b.get(), m.set_keys());
    const int log2k = stages::ceil_log2(k);
    fmt::print("  k = {:2}: step 3 {:7.3f} ms, step 4 {:7.3f} ms = {:5.2f} passes ({} levels, {} groups)\n",
               k, split_ms, merge_ms, merge_ms / copy_ms, log2k, m.groups);
    out["round"].push_back({{"k", k}, {"split_ms", split_ms}, {"merge_ms", merge_ms}, {"groups", m.groups}});
    if (k <= 32) {
      levels.push_back(log2k);
      merge.push_back(merge_ms);
    }
  }
  // least squares: merge_ms = memory + levels x level_ms
  const double mean_l = std::accumulate(levels.begin(), levels.end(), 0.0) / levels.size();
  const double mean_m = std::accumulate(merge.begin(), merge.end(), 0.0) / merge.size();
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    sxy += (levels[i] - mean_l) * (merge[i] - mean_m);
    sxx += (levels[i] - mean_l) * (levels[i] - mean_l);
  }
  const double level_ms = sxy / sxx, base_ms = mean_m - level_ms * mean_l;
  fmt::print("  fit over k = 2..32: step 4 = {:.3f} ms + {:.3f} ms a level (one merge level on chip)\n",
             base_ms, level_ms);
  out["merge_level_ms"] = level_ms;
  out["merge_base_ms"] = base_ms;

  fmt::print("\nwhole sorts (step times from a second run with events between the steps)\n");
  // the library's sort, and version 4 (the ablation's v4 design) to compare
  const auto whole = [&](int variant, const std::function<void(void*, std::size_t&, stage_times*)>& sort,
                         int passes) {
    std::size_t bytes = 0;
    sort(nullptr, bytes, nullptr);
    detail::device_buffer<unsigned char> temp(bytes);
    const float ms = t.median([&] { sort(temp.get(), bytes, nullptr); }, a.get(), n);
    stage_times st;
    sort(temp.get(), bytes, &st);
    fmt::print("  version {}: {:8.3f} ms, {} passes over memory; steps {:.3f} | {:.3f} | {:.3f} | {:.3f} ms\n",
               variant, ms, passes, st.sort_chunks_ms, st.merge_sequences_ms, st.split_ms, st.merge_groups_ms);
    out["sorts"].push_back({{"variant", variant}, {"ms", ms}, {"passes", passes},
                            {"steps_ms", {st.sort_chunks_ms, st.merge_sequences_ms, st.split_ms, st.merge_groups_ms}}});
  };
  const sized_plan library = plan_for(n, sizeof(Key), p, device_limits_of());
  whole(5, [&](void* temp, std::size_t& bytes, stage_times* st) {
    sort_keys<Key>(temp, bytes, in.get(), a.get(), n, Comp{}, 0, p, st);
  }, library.pairwise ? 0 : 1 + library.plan.round_count);
  const ablation::design v4 = ablation::v4_for(sizeof(Key));
  whole(4, [&](void* temp, std::size_t& bytes, stage_times* st) {
    ablation::sort_keys<Key>(temp, bytes, in.get(), a.get(), n, Comp{}, 0, v4, st);
  }, ablation::make_plan(n, ablation::sized_for(v4, n)).passes());
  if (!o.out.empty()) {
    std::ofstream f(o.out);
    if (!f) throw input_error("components: cannot write " + o.out);
    f << out.dump(2) << "\n";
  }
  return 0;
}

}  // namespace warpsort::cli

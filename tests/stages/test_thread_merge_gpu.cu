// GPU test: the thread merge levels (thread_merge.cuh) themselves, called from a small kernel
// the way version 5's step 1 and step 4 call them, on runs of any lengths (empty ones too),
// duplicates and keys equal to the sentinel, against std::sort. The layout they read is the
// kernels' (gapped runs, odd runs descending, even runs' gaps holding sentinels); everything
// else in the block's shared memory holds a key that orders first, so a stray read shows.
#include "common/gpu_test.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/detail/stages/index_math.hpp>
#include <warpsort/detail/stages/launch.hpp>
#include <warpsort/detail/stages/thread_merge.cuh>
#include <warpsort/error.hpp>
#include <warpsort/order.cuh>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace warpsort::testing;
namespace ws = warpsort::stages;

/// The block's shared memory as the kernels lay it out for `capacity` keys in up to `runs` runs
/// (merge_sets_shape: the level tables, then the pieces' offsets).
template <class Key>
ws::thread_block_shape shape_of(int capacity, int runs) {
  return ws::merge_sets_shape<Key>(capacity, runs);
}

/// One block: copies the gapped layout (and, for table runs, the run offsets) into shared
/// memory, merges the runs level by level in place, and writes the first `count` keys out.
template <class Key, bool FromTable>
__global__ void merge_levels_kernel(const Key* layout, int layout_keys, int count, int run_len,
                                    const int* run_offsets, int runs, int capacity, Key* out) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int E = ws::thread_merge_keys<Key>(), gap = ws::run_gap<Key>();
  Key* const keys = reinterpret_cast<Key*>(smem);
  const ws::thread_block_shape shape = ws::merge_sets_shape<Key>(capacity, runs);
  const ws::level_tables tables = ws::tables_in<Key>(smem, capacity, runs);
  int* const offsets = tables.item_a0 + shape.threads;
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  for (int i = tid; i < layout_keys; i += threads) keys[i] = layout[i];
  if constexpr (FromTable)
    for (int i = tid; i <= runs; i += threads) offsets[i] = run_offsets[i];
  __syncthreads();
  const warpsort::less<Key> comp;
  if constexpr (FromTable)
    ws::merge_runs_in_place<E, gap>(keys, ws::table_runs{offsets, runs, 0}, tables, comp);
  else
    ws::merge_runs_in_place<E, gap>(keys, ws::equal_runs{count, run_len}, tables, comp);
  for (int i = tid; i < count; i += threads) out[i] = keys[i];
}

/// Runs [begins[r], begins[r + 1]) of `in`, each sorted, laid out as the kernels lay them out,
/// merged on the GPU; empty when the output is std::sort's, else what went wrong.
template <class Key, bool FromTable>
std::string merge_on_gpu(const std::vector<Key>& in, const std::vector<int>& begins, int run_len) {
  constexpr int gap = ws::run_gap<Key>();
  const int count = static_cast<int>(in.size()), runs = static_cast<int>(begins.size()) - 1;
  const ws::thread_block_shape shape = shape_of<Key>(count, runs);
  // every slot the layout does not fill orders first (0 in less): a read of one shows
  std::vector<Key> layout(static_cast<std::size_t>(count + runs * gap), Key{0});
  for (int r = 0; r < runs; ++r) {
    std::vector<Key> run(in.begin() + begins[r], in.begin() + begins[r + 1]);
    std::sort(run.begin(), run.end());
    if (r % 2) std::reverse(run.begin(), run.end());
    std::copy(run.begin(), run.end(), layout.begin() + ws::gapped_offset(begins[r], r, gap));
    if (r % 2 == 0)
      std::fill_n(layout.begin() + ws::gapped_offset(begins[r + 1], r, gap), gap,
                  warpsort::less<Key>::sentinel());
  }
  auto d_layout = to_device(layout);
  auto d_offsets = to_device(begins);
  auto d_out = poisoned<Key>(static_cast<std::size_t>(count));
  auto* kernel = merge_levels_kernel<Key, FromTable>;
  ws::allow_dynamic_smem(kernel, shape.smem_bytes);
  kernel<<<1, shape.threads, shape.smem_bytes>>>(d_layout.get(), static_cast<int>(layout.size()),
                                                 count, run_len, d_offsets.get(), runs, count,
                                                 d_out.get());
  WARPSORT_CUDA_CHECK(cudaGetLastError());
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Key> expect = in;
  std::sort(expect.begin(), expect.end());
  const auto got = to_host(d_out.get(), static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    if (got[i] != expect[i])
      return "first difference at " + std::to_string(i) + " of " + std::to_string(count);
  return {};
}

template <class Key>
void check_levels(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr int run_keys = ws::warp_run_keys<Key>();  // step 1's runs: a warp's
  const Key top = warpsort::less<Key>::sentinel();
  for (int trial = 0; trial < 120; ++trial) {
    const int count = 1 + static_cast<int>(rng() % 9000);
    std::vector<Key> in(static_cast<std::size_t>(count));
    const int shape = trial % 4;
    for (auto& k : in)
      k = shape == 0   ? static_cast<Key>(rng())
          : shape == 1 ? static_cast<Key>(rng() % 3)
          : shape == 2 ? static_cast<Key>(top - static_cast<Key>(rng() % 2))  // sentinel-valued keys
                       : static_cast<Key>(rng() % 1000);
    const std::string label = "n=" + std::to_string(count) + " shape " + std::to_string(shape);
    // step 1: equal runs of a warp's keys (the last shorter)
    std::vector<int> equal;
    for (int b = 0; b < count; b += run_keys) equal.push_back(b);
    equal.push_back(count);
    const std::string e = merge_on_gpu<Key, false>(in, equal, run_keys);
    ASSERT_TRUE(e.empty()) << "equal runs, " << label << ": " << e;
    // step 4: pieces of any size, empty ones too (all but one empty every fifth trial)
    const int pieces = 1 + static_cast<int>(rng() % 64);
    std::vector<int> offsets(static_cast<std::size_t>(pieces) + 1, 0);
    for (int i = 1; i < pieces; ++i) offsets[i] = static_cast<int>(rng() % (count + 1));
    offsets[pieces] = count;
    std::sort(offsets.begin(), offsets.end());
    if (trial % 5 == 0) std::fill(offsets.begin() + 1, offsets.end() - 1, offsets[1]);
    const std::string t = merge_on_gpu<Key, true>(in, offsets, 0);
    ASSERT_TRUE(t.empty()) << pieces << " pieces, " << label << ": " << t;
  }
}

}  // namespace

TEST(ThreadMerge, LevelsSortAnyRuns) {
  WARPSORT_REQUIRE_GPU();
  check_levels<std::uint32_t>(5);  // 32 keys a thread
  check_levels<std::uint64_t>(6);  // 16 keys a thread
}

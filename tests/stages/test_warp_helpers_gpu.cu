// GPU tests: the warp-level device helpers of the steps, each called directly from a small
// kernel and checked against a CPU expectation (the end-to-end tests reach them only through
// whole sorts):
//  - merge_path_by_warp (warp_merge.cuh) against a stable merge simulated on the host and
//    index_math's merge_path;
//  - the bitonic networks (warp_network.cuh): whole-warp sorts against std::sort of the tile,
//    and the merge tiles of 64, 128 and 256 outputs (merge_tile_by_warp, merge_range_by_warp's
//    short tiles) against std::merge;
//  - shfl_xor and shfl of keys of several 4-byte words (6, 8, 12, 16 bytes) against the lane
//    permutation they should apply, bit for bit.
#include "common/gpu_test.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/detail/stages/index_math.hpp>
#include <warpsort/detail/stages/warp_merge.cuh>
#include <warpsort/detail/stages/warp_network.cuh>
#include <warpsort/error.hpp>
#include <warpsort/order.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace warpsort::testing;
namespace ws = warpsort::stages;
using Key = std::uint32_t;

// ---------------------------------------------------------------- merge path

template <class Size, class Comp>
__global__ void merge_path_kernel(const Key* a, Size na, const Key* b, Size nb, Size* out,
                                  Comp comp) {
  const Size diag = static_cast<Size>(blockIdx.x);  // one warp a diagonal
  const Size m = ws::merge_path_by_warp(a, na, b, nb, diag, comp);
  if (ws::lane_id() == 0) out[diag] = m;
}

/// How many of the first `diag` outputs of the stable merge of a and b (a first on ties) come
/// from a, by running that merge.
template <class Comp>
std::size_t merged_from_a(const std::vector<Key>& a, const std::vector<Key>& b, std::size_t diag,
                          Comp comp) {
  std::size_t i = 0, j = 0;
  while (i + j < diag) {
    if (j == b.size() || (i < a.size() && !comp(b[j], a[i])))
      ++i;
    else
      ++j;
  }
  return i;
}

/// Device copy of a host vector, at least one key long, so an empty input still has a valid
/// pointer.
warpsort::detail::device_buffer<Key> device_keys(const std::vector<Key>& keys) {
  std::vector<Key> padded = keys;
  if (padded.empty()) padded.push_back(0);
  return to_device(padded);
}

template <class Size, class Comp>
void check_merge_path(const std::vector<Key>& a, const std::vector<Key>& b, Comp comp,
                      const std::string& what) {
  SCOPED_TRACE(what + " (na=" + std::to_string(a.size()) + ", nb=" + std::to_string(b.size()) +
               ", Size of " + std::to_string(sizeof(Size)) + " bytes)");
  ASSERT_TRUE(std::is_sorted(a.begin(), a.end(), comp) && std::is_sorted(b.begin(), b.end(), comp));
  const std::size_t total = a.size() + b.size();
  auto da = device_keys(a), db = device_keys(b);
  warpsort::detail::device_buffer<Size> out(total + 1);
  WARPSORT_CUDA_CHECK(cudaMemset(out.get(), 0xA5, (total + 1) * sizeof(Size)));
  merge_path_kernel<Size><<<static_cast<unsigned>(total + 1), 32>>>(
      da.get(), static_cast<Size>(a.size()), db.get(), static_cast<Size>(b.size()), out.get(),
      comp);
  WARPSORT_CUDA_CHECK(cudaGetLastError());
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<Size> got = to_host(out.get(), total + 1);
  for (std::size_t d = 0; d <= total; ++d) {
    const std::size_t expected = merged_from_a(a, b, d, comp);
    // the host index function agrees with the simulated merge (so the two cannot drift)
    ASSERT_EQ(ws::merge_path(a.data(), a.size(), b.data(), b.size(), d, comp), expected) << "d=" << d;
    ASSERT_EQ(static_cast<std::size_t>(got[d]), expected)
        << "merge_path_by_warp at diagonal " << d << " of " << total;
  }
}

/// Sorted keys drawn from [0, range) (range 0: the whole 32-bit range), in the order's order.
template <class Comp>
std::vector<Key> sorted_keys(std::size_t n, std::uint32_t range, std::uint64_t seed, Comp comp,
                             std::uint32_t offset = 0) {
  std::mt19937_64 rng(seed);
  std::vector<Key> v(n);
  for (auto& x : v) x = offset + (range ? static_cast<Key>(rng() % range) : static_cast<Key>(rng()));
  std::sort(v.begin(), v.end(), comp);
  return v;
}

// ---------------------------------------------------------------- networks

/// Each block's warp sorts its 32 V keys of data in place with the chosen network.
enum class network { bitonic_blocked, bitonic_striped, flip };

template <int V, network Net>
__global__ void sort_warp_kernel(Key* data) {
  const int lane = ws::lane_id();
  Key* tile = data + static_cast<std::size_t>(blockIdx.x) * 32 * V;
  constexpr bool blocked = Net != network::bitonic_striped;
  Key v[V];
#pragma unroll
  for (int r = 0; r < V; ++r) v[r] = tile[blocked ? ws::blocked_slot(lane, r, V) : ws::striped_slot(lane, r)];
  if constexpr (Net == network::flip)
    ws::flip_sort_warp<V>(v, lane, warpsort::less<Key>{});
  else
    ws::bitonic_sort_warp<V, blocked>(v, lane, warpsort::less<Key>{});
#pragma unroll
  for (int r = 0; r < V; ++r) tile[blocked ? ws::blocked_slot(lane, r, V) : ws::striped_slot(lane, r)] = v[r];
}

template <int V, network Net>
void check_warp_sort(const char* name) {
  SCOPED_TRACE(std::string(name) + " V=" + std::to_string(V));
  constexpr std::size_t tile = 32 * V;
  // tiles of random keys, of few distinct keys, sorted, reversed, all equal, sentinel-valued
  std::vector<Key> keys;
  std::mt19937_64 rng(V * 7 + static_cast<int>(Net));
  for (int t = 0; t < 16; ++t) {
    std::vector<Key> part(tile);
    for (auto& x : part) x = t % 2 ? static_cast<Key>(rng() % 4) : static_cast<Key>(rng());
    if (t == 2) std::sort(part.begin(), part.end());
    if (t == 3) std::sort(part.rbegin(), part.rend());
    if (t == 4) std::fill(part.begin(), part.end(), Key{42});
    if (t == 5) for (std::size_t i = 0; i < tile; i += 3) part[i] = 0xffffffffu;
    keys.insert(keys.end(), part.begin(), part.end());
  }
  auto d = to_device(keys);
  sort_warp_kernel<V, Net><<<static_cast<unsigned>(keys.size() / tile), 32>>>(d.get());
  WARPSORT_CUDA_CHECK(cudaGetLastError());
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<Key> got = to_host(d.get(), keys.size());
  for (std::size_t t = 0; t < keys.size() / tile; ++t) {
    std::vector<Key> expected(keys.begin() + t * tile, keys.begin() + (t + 1) * tile);
    std::sort(expected.begin(), expected.end());
    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), got.begin() + t * tile))
        << "tile " << t << " is not std::sort of its keys";
  }
}

/// One merge tile: outputs [d, d + count) of merge(A, B), A's share [a0, a1).
struct tile_case {
  int a0, a1, d, count, out;
};

template <int V>
__global__ void merge_tile_kernel(const Key* a, const Key* b, const tile_case* cases, Key* out) {
  const tile_case c = cases[blockIdx.x];
  ws::merge_tile_by_warp<V, Key, warpsort::less<Key>>(a, c.a0, c.a1, b, c.d, c.count, out + c.out,
                                                      ws::lane_id(), warpsort::less<Key>{});
}

__global__ void merge_range_kernel(const Key* a, int na, const Key* b, int nb,
                                   const tile_case* cases, Key* out) {
  const tile_case c = cases[blockIdx.x];  // outputs [d, d + count)
  ws::merge_range_by_warp(a, na, b, nb, c.d, c.d + c.count, out + c.out, warpsort::less<Key>{});
}

/// Runs every case of one kernel and compares each output range with std::merge's.
template <class Launch>
void check_tiles(const std::vector<Key>& a, const std::vector<Key>& b, std::vector<tile_case> cases,
                 Launch launch, const std::string& what) {
  std::vector<Key> merged(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), merged.begin());
  int total = 0;
  for (auto& c : cases) {
    c.a0 = static_cast<int>(ws::merge_path(a.data(), a.size(), b.data(), b.size(), c.d, warpsort::less<Key>{}));
    c.a1 = static_cast<int>(ws::merge_path(a.data(), a.size(), b.data(), b.size(), c.d + c.count, warpsort::less<Key>{}));
    c.out = total;
    total += c.count;
  }
  auto da = device_keys(a), db = device_keys(b);
  auto dcases = to_device(cases);
  auto out = poisoned<Key>(static_cast<std::size_t>(total) + 1);
  launch(da.get(), db.get(), dcases.get(), out.get(), static_cast<unsigned>(cases.size()));
  WARPSORT_CUDA_CHECK(cudaGetLastError());
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<Key> got = to_host(out.get(), static_cast<std::size_t>(total));
  for (const auto& c : cases)
    for (int i = 0; i < c.count; ++i)
      ASSERT_EQ(got[c.out + i], merged[c.d + i])
          << what << ": tile of outputs [" << c.d << ", " << c.d + c.count << ") at output "
          << c.d + i << " (A's share [" << c.a0 << ", " << c.a1 << "))";
}

/// Tiles of every interesting length up to max_count, at the start, middle and end.
std::vector<tile_case> tiles_up_to(int max_count, int total) {
  std::vector<tile_case> cases;
  for (int count : {1, 2, 3, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256}) {
    if (count > max_count || count > total) continue;
    for (int d : {0, (total - count) / 3, total / 2 - count / 2, total - count})
      cases.push_back({0, 0, d, count, 0});
  }
  return cases;
}

/// Inputs of merges: random, few distinct keys (ties between A and B), A wholly before B and
/// after it, keys equal to the sentinel, one side empty or tiny.
struct merge_input {
  std::string name;
  std::vector<Key> a, b;
};
std::vector<merge_input> merge_inputs() {
  const warpsort::less<Key> less;
  std::vector<merge_input> v;
  v.push_back({"random", sorted_keys(700, 0, 1, less), sorted_keys(500, 0, 2, less)});
  v.push_back({"few distinct", sorted_keys(400, 5, 3, less), sorted_keys(600, 5, 4, less)});
  v.push_back({"all equal", std::vector<Key>(300, 9), std::vector<Key>(300, 9)});
  v.push_back({"A before B", sorted_keys(300, 1000, 5, less), sorted_keys(300, 1000, 6, less, 5000)});
  v.push_back({"B before A", sorted_keys(300, 1000, 7, less, 5000), sorted_keys(300, 1000, 8, less)});
  auto with_max = sorted_keys(400, 0, 9, less);
  std::fill(with_max.end() - 50, with_max.end(), 0xffffffffu);  // real keys equal to the sentinel
  v.push_back({"sentinel-valued keys", with_max, sorted_keys(300, 0, 10, less)});
  v.push_back({"A empty", {}, sorted_keys(300, 0, 11, less)});
  v.push_back({"B empty", sorted_keys(300, 0, 12, less), {}});
  v.push_back({"A of one", {500}, sorted_keys(300, 1000, 13, less)});
  return v;
}

// ---------------------------------------------------------------- multi-word shuffles

template <int Bytes>
struct words_of {
  unsigned char b[Bytes];
};
static_assert(sizeof(words_of<6>) == 6 && sizeof(words_of<12>) == 12, "no padding");

/// A value distinct in every byte for each lane (37 is odd, so lane * 37 differs mod 256).
template <class T>
__host__ __device__ T lane_value(int lane) {
  unsigned char raw[sizeof(T)];
  for (int k = 0; k < static_cast<int>(sizeof(T)); ++k)
    raw[k] = static_cast<unsigned char>(lane * 37 + k * 101 + 7);
  T v;
  memcpy(&v, raw, sizeof(T));
  return v;
}

/// The source lane of pattern p for a lane (ws::shfl).
__host__ __device__ inline int source_lane(int p, int lane) {
  switch (p) {
    case 0: return (lane + 1) & 31;       // rotate
    case 1: return 31 - lane;             // reverse
    case 2: return 0;                     // broadcast the first
    case 3: return 31;                    // broadcast the last
    default: return (lane * 7 + 3) & 31;  // a permutation
  }
}
constexpr int kSourcePatterns = 5;

template <class T>
__global__ void shuffle_kernel(T* by_xor, T* by_index) {
  const int lane = ws::lane_id();
  const T x = lane_value<T>(lane);
  for (int mask = 0; mask < 32; ++mask) by_xor[mask * 32 + lane] = ws::shfl_xor(x, mask);
  for (int p = 0; p < kSourcePatterns; ++p) by_index[p * 32 + lane] = ws::shfl(x, source_lane(p, lane));
}

template <class T>
void check_shuffles(const char* name) {
  SCOPED_TRACE(std::string(name) + " (" + std::to_string(sizeof(T)) + " bytes)");
  warpsort::detail::device_buffer<T> by_xor(32 * 32), by_index(kSourcePatterns * 32);
  WARPSORT_CUDA_CHECK(cudaMemset(by_xor.get(), 0xA5, 32 * 32 * sizeof(T)));
  WARPSORT_CUDA_CHECK(cudaMemset(by_index.get(), 0xA5, kSourcePatterns * 32 * sizeof(T)));
  shuffle_kernel<T><<<1, 32>>>(by_xor.get(), by_index.get());
  WARPSORT_CUDA_CHECK(cudaGetLastError());
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  const auto got_xor = to_host(by_xor.get(), 32 * 32);
  const auto got_index = to_host(by_index.get(), kSourcePatterns * 32);
  for (int mask = 0; mask < 32; ++mask)
    for (int lane = 0; lane < 32; ++lane) {
      const T expected = lane_value<T>(lane ^ mask);
      ASSERT_EQ(std::memcmp(&got_xor[mask * 32 + lane], &expected, sizeof(T)), 0)
          << "shfl_xor(x, " << mask << ") in lane " << lane << " is not lane " << (lane ^ mask)
          << "'s value";
    }
  for (int p = 0; p < kSourcePatterns; ++p)
    for (int lane = 0; lane < 32; ++lane) {
      const T expected = lane_value<T>(source_lane(p, lane));
      ASSERT_EQ(std::memcmp(&got_index[p * 32 + lane], &expected, sizeof(T)), 0)
          << "shfl(x, " << source_lane(p, lane) << ") in lane " << lane << " (pattern " << p
          << ") is not that lane's value";
    }
}

}  // namespace

TEST(WarpHelpers, MergePathByWarpMatchesAStableMerge) {
  WARPSORT_REQUIRE_GPU();
  for (const auto& in : merge_inputs()) {
    check_merge_path<int>(in.a, in.b, warpsort::less<Key>{}, in.name);
    check_merge_path<std::size_t>(in.a, in.b, warpsort::less<Key>{}, in.name);
  }
  const warpsort::less<Key> less;
  check_merge_path<int>({}, {}, less, "both empty");
  check_merge_path<int>({7}, {7}, less, "one each, equal");
  // many ballot rounds: the candidates' spacing shrinks from over 32 to 1
  check_merge_path<int>(sorted_keys(4097, 0, 21, less), sorted_keys(2500, 0, 22, less), less, "long random");
  check_merge_path<std::size_t>(std::vector<Key>(3000, 1), std::vector<Key>(1000, 1), less, "long equal");
  check_merge_path<int>(sorted_keys(1, 0, 23, less), sorted_keys(3000, 0, 24, less), less, "1 against 3000");
  check_merge_path<int>(sorted_keys(3000, 0, 25, less), sorted_keys(1, 0, 26, less), less, "3000 against 1");
  // a descending order: ties still come from A first
  const warpsort::greater<Key> greater;
  check_merge_path<int>(sorted_keys(1000, 7, 27, greater), sorted_keys(900, 7, 28, greater), greater,
                        "descending, few distinct");
}

TEST(WarpHelpers, WarpSortNetworksMatchStdSort) {
  WARPSORT_REQUIRE_GPU();
  check_warp_sort<1, network::bitonic_blocked>("bitonic, blocked");
  check_warp_sort<2, network::bitonic_blocked>("bitonic, blocked");
  check_warp_sort<4, network::bitonic_blocked>("bitonic, blocked");
  check_warp_sort<8, network::bitonic_blocked>("bitonic, blocked");
  check_warp_sort<2, network::bitonic_striped>("bitonic, striped");
  check_warp_sort<4, network::bitonic_striped>("bitonic, striped");
  check_warp_sort<8, network::bitonic_striped>("bitonic, striped");
  check_warp_sort<2, network::flip>("flip");
  check_warp_sort<4, network::flip>("flip");
  check_warp_sort<8, network::flip>("flip");
}

// The merge tiles of 64 (V = 2) and 128 (V = 4) slots that merge_range_by_warp uses for a last,
// short tile, and the full 256 (V = 8), each with partial tiles (sentinel padding between A's
// and B's shares) down to one output.
TEST(WarpHelpers, MergeTileNetworksMatchStdMerge) {
  WARPSORT_REQUIRE_GPU();
  for (const auto& in : merge_inputs()) {
    const int total = static_cast<int>(in.a.size() + in.b.size());
    check_tiles(in.a, in.b, tiles_up_to(64, total),
                [](const Key* a, const Key* b, const tile_case* c, Key* out, unsigned blocks) {
                  merge_tile_kernel<2><<<blocks, 32>>>(a, b, c, out);
                },
                in.name + ", 64-key tile");
    check_tiles(in.a, in.b, tiles_up_to(128, total),
                [](const Key* a, const Key* b, const tile_case* c, Key* out, unsigned blocks) {
                  merge_tile_kernel<4><<<blocks, 32>>>(a, b, c, out);
                },
                in.name + ", 128-key tile");
    check_tiles(in.a, in.b, tiles_up_to(256, total),
                [](const Key* a, const Key* b, const tile_case* c, Key* out, unsigned blocks) {
                  merge_tile_kernel<8><<<blocks, 32>>>(a, b, c, out);
                },
                in.name + ", 256-key tile");
  }
}

// merge_range_by_warp: ranges whose last tile takes each network (1..64, 65..128, 129..256
// outputs), ranges of several tiles, the whole merge.
TEST(WarpHelpers, MergeRangeByWarpMatchesStdMerge) {
  WARPSORT_REQUIRE_GPU();
  for (const auto& in : merge_inputs()) {
    const int na = static_cast<int>(in.a.size()), nb = static_cast<int>(in.b.size());
    const int total = na + nb;
    std::vector<tile_case> cases;
    for (int count : {1, 40, 64, 65, 128, 129, 256, 257, 320, 385, 600})
      for (int d : {0, 77, total - count})
        if (count <= total && d >= 0 && d + count <= total) cases.push_back({0, 0, d, count, 0});
    cases.push_back({0, 0, 0, total, 0});
    check_tiles(in.a, in.b, cases,
                [na, nb](const Key* a, const Key* b, const tile_case* c, Key* out, unsigned blocks) {
                  merge_range_kernel<<<blocks, 32>>>(a, na, b, nb, c, out);
                },
                in.name + ", merge_range_by_warp");
  }
}

TEST(WarpHelpers, MultiWordShufflesMoveEveryWord) {
  WARPSORT_REQUIRE_GPU();
  check_shuffles<words_of<6>>("struct of 6 bytes");
  check_shuffles<words_of<8>>("struct of 8 bytes");
  check_shuffles<words_of<12>>("struct of 12 bytes");
  check_shuffles<words_of<16>>("struct of 16 bytes");
  check_shuffles<words_of<24>>("struct of 24 bytes");
  check_shuffles<std::uint64_t>("uint64_t");  // the one-instruction path, for comparison
  check_shuffles<double>("double");
}

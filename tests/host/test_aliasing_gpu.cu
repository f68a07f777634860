// Which arrays a sort may share (warpsort/detail/aliasing.hpp): an output may be exactly its own
// input; every other overlap of inputs, outputs and temporary storage is refused before any
// work. The refusals need no GPU (they come before the first CUDA call: the pointers below are
// host addresses that are never dereferenced); the GPU tests check that in-place sorts are
// right and that a refused call leaves device memory as it was.
#include "common/gpu_test.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/detail/aliasing.hpp>
#include <warpsort/error.hpp>
#include <warpsort/warpsort.cuh>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace {

using warpsort::input_error;
using warpsort::detail::byte_range;
using warpsort::detail::refuse_overlaps;
using warpsort::detail::share_bytes;

TEST(Aliasing, ShareBytesIsHalfOpen) {
  char b[64];
  EXPECT_TRUE(share_bytes({"a", b, 8}, {"b", b + 7, 8}));
  EXPECT_FALSE(share_bytes({"a", b, 8}, {"b", b + 8, 8}));  // adjacent
  EXPECT_FALSE(share_bytes({"a", b + 8, 8}, {"b", b, 8}));
  EXPECT_TRUE(share_bytes({"a", b, 64}, {"b", b + 10, 1}));  // inside
  EXPECT_FALSE(share_bytes({"a", b, 0}, {"b", b, 8}));       // empty
  EXPECT_FALSE(share_bytes({"a", nullptr, 8}, {"b", nullptr, 8}));
}

TEST(Aliasing, OnlyListedExactPairsMayOverlap) {
  char b[64];
  EXPECT_NO_THROW(refuse_overlaps("t", {{"in", b, 16}, {"out", b, 16}}, {{0, 1}}));
  EXPECT_NO_THROW(refuse_overlaps("t", {{"in", b, 16}, {"out", b, 16}}, {{1, 0}}));
  EXPECT_THROW(refuse_overlaps("t", {{"in", b, 16}, {"out", b, 16}}, {}), input_error);
  EXPECT_THROW(refuse_overlaps("t", {{"in", b, 16}, {"out", b + 4, 16}}, {{0, 1}}), input_error);
  EXPECT_THROW(refuse_overlaps("t", {{"in", b, 16}, {"out", b, 8}}, {{0, 1}}), input_error);
  try {
    refuse_overlaps("who", {{"keys_in", b, 16}, {"values_out", b + 8, 16}}, {});
    FAIL() << "no throw";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("who: keys_in and values_out overlap"), std::string::npos)
        << e.what();
  }
}

// The library's entry points refuse before any CUDA call: these run without a GPU.
TEST(Aliasing, SortKeysRefusesPartialOverlapAndTempOverlap) {
  std::vector<std::uint32_t> host(4096);
  std::uint32_t* a = host.data();
  std::size_t bytes = 1 << 20;
  std::vector<unsigned char> temp(16);
  EXPECT_THROW(warpsort::sort_keys<std::uint32_t>(temp.data(), bytes, a, a + 1, 1000), input_error);
  EXPECT_THROW(warpsort::sort_keys<std::uint32_t>(temp.data(), bytes, a + 1, a, 1000), input_error);
  EXPECT_THROW(warpsort::sort_keys<float>(temp.data(), bytes, reinterpret_cast<float*>(a),
                                          reinterpret_cast<float*>(a) + 999, 1000),
               input_error);
  std::size_t small = 64;
  EXPECT_THROW(warpsort::sort_keys<std::uint32_t>(a + 500, small, a, a, 1000),  // temp over keys
               input_error);
}

TEST(Aliasing, SortPairsRefusesEveryOverlapButInPlace) {
  std::vector<std::uint64_t> host(8192);
  auto* k = reinterpret_cast<std::uint32_t*>(host.data());
  auto* v = reinterpret_cast<std::uint32_t*>(host.data() + 2048);  // 8192 bytes after k
  std::vector<unsigned char> temp(16);
  std::size_t bytes = 1 << 20;
  const std::size_t n = 1000;
  using warpsort::sort_pairs;
  // the issue's case: outputs swapped over the inputs
  EXPECT_THROW((sort_pairs<std::uint32_t, std::uint32_t>(temp.data(), bytes, k, v, v, k, n)), input_error);
  // keys and values one array
  EXPECT_THROW((sort_pairs<std::uint32_t, std::uint32_t>(temp.data(), bytes, k, k, k, k, n)), input_error);
  // an output offset into its own input, and into the other input
  EXPECT_THROW((sort_pairs<std::uint32_t, std::uint32_t>(temp.data(), bytes, k, k + 3, v, v, n)), input_error);
  EXPECT_THROW((sort_pairs<std::uint32_t, std::uint32_t>(temp.data(), bytes, k, k, v, v + 1, n)), input_error);
  EXPECT_THROW((sort_pairs<std::uint32_t, std::uint32_t>(temp.data(), bytes, k, v + 500, v, v, n)), input_error);
  // 8-byte keys over 4-byte values: byte ranges, not element counts
  auto* k64 = reinterpret_cast<std::uint64_t*>(host.data() + 4096);
  auto* v32 = reinterpret_cast<std::uint32_t*>(host.data() + 4096 + 999);
  EXPECT_THROW((sort_pairs<std::uint64_t, std::uint32_t>(temp.data(), bytes, k64, k64, v32, v32, n)),
               input_error);
  // temporary storage over an array
  EXPECT_THROW((sort_pairs<std::uint32_t, std::uint32_t>(v + 100, bytes, k, k, v, v, n)), input_error);
}

TEST(Aliasing, ArgsortRefusesEveryOverlapButIndicesOverKeys) {
  std::vector<std::uint64_t> host(8192);
  auto* k = reinterpret_cast<std::uint32_t*>(host.data());
  std::vector<unsigned char> temp(16);
  std::size_t bytes = 1 << 20;
  const std::size_t n = 1000;
  using warpsort::argsort;
  // indices offset into the keys, and 8-byte indices over 4-byte keys (not the same range)
  EXPECT_THROW((argsort<std::uint32_t, std::uint32_t>(temp.data(), bytes, k, k + 1, n)), input_error);
  EXPECT_THROW((argsort<std::uint32_t, std::uint64_t>(temp.data(), bytes, k,
                                                      reinterpret_cast<std::uint64_t*>(k), n)),
               input_error);
  // temporary storage over the keys, and over the indices
  EXPECT_THROW((argsort<std::uint32_t, std::uint32_t>(k + 100, bytes, k, k + 4096, n)), input_error);
  EXPECT_THROW((argsort<std::uint32_t, std::uint32_t>(k + 5000, bytes, k, k + 4096, n)), input_error);
}

// ---- GPU: in place is right; a refused call writes nothing ----

using namespace warpsort::testing;

TEST(AliasingGpu, PairsInPlaceMatchStableSort) {
  WARPSORT_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{1}, std::size_t{129}, std::size_t{4099}, std::size_t{200003}}) {
    std::vector<std::uint32_t> keys(n), values(n);
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = static_cast<std::uint32_t>((i * 2654435761u) % 97);  // many equal keys
      values[i] = static_cast<std::uint32_t>(i);
    }
    auto dk = to_device(keys);
    auto dv = to_device(values);
    std::size_t bytes = 0;
    warpsort::sort_pairs<std::uint32_t, std::uint32_t>(nullptr, bytes, dk.get(), dk.get(), dv.get(),
                                                       dv.get(), n);
    auto temp = poisoned<unsigned char>(bytes);
    warpsort::sort_pairs<std::uint32_t, std::uint32_t>(temp.get(), bytes, dk.get(), dk.get(),
                                                       dv.get(), dv.get(), n);
    WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    const auto got_k = to_host(dk.get(), n);
    const auto got_v = to_host(dv.get(), n);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got_v[i], order[i]) << "n = " << n << ", i = " << i;
      ASSERT_EQ(got_k[i], keys[order[i]]) << "n = " << n << ", i = " << i;
    }
  }
}

TEST(AliasingGpu, RefusedCallsLeaveMemoryAsItWas) {
  WARPSORT_REQUIRE_GPU();
  const std::size_t n = 4099;
  std::vector<std::uint32_t> host(2 * n);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::uint32_t>(host.size() - i);
  auto d = to_device(host);
  std::uint32_t* k = d.get();
  std::uint32_t* v = d.get() + n;
  std::size_t bytes = 0;
  warpsort::sort_pairs<std::uint32_t, std::uint32_t>(nullptr, bytes, k, k, v, v, n);
  auto temp = poisoned<unsigned char>(bytes);
  EXPECT_THROW((warpsort::sort_pairs<std::uint32_t, std::uint32_t>(temp.get(), bytes, k, v, v, k, n)),
               input_error);
  EXPECT_THROW((warpsort::sort_pairs<std::uint32_t, std::uint32_t>(temp.get(), bytes, k, k + 1, v, v, n - 1)),
               input_error);
  EXPECT_THROW((warpsort::sort_keys<std::uint32_t>(temp.get(), bytes, k, k + n / 2, n)), input_error);
  WARPSORT_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(to_host(d.get(), 2 * n), host);
}

}  // namespace

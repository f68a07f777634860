// GPU tests: the whole pipeline against thrust::sort and cub::DeviceRadixSort.
#include "common/gpu_test.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/warpsort.cuh>

#include <cstdint>
#include <vector>

namespace {

using Key = std::uint32_t;
using namespace warpsort::testing;

template <class Comp>
void sort_and_validate(const std::vector<Key>& input, const warpsort::policy& p, Comp comp,
                       bool in_place, const std::string& what) {
  const std::size_t n = input.size();
  auto in = to_device(input);
  auto out = in_place ? to_device(input) : poisoned<Key>(n);
  std::size_t temp_bytes = 0;
  warpsort::sort_keys<Key, Comp>(nullptr, temp_bytes, in.get(), out.get(), n, comp, 0, p);
  auto temp = poisoned<unsigned char>(temp_bytes);
  warpsort::stage_times times;
  warpsort::sort_keys<Key, Comp>(temp.get(), temp_bytes, in_place ? out.get() : in.get(),
                                 out.get(), n, comp, 0, p, &times);
  const auto report = warpsort::validate_against_references(in.get(), out.get(), n, comp);
  ASSERT_TRUE(report.ok) << what << ": " << report.message();
  EXPECT_GE(times.total_ms(), 0.0f);
}

}  // namespace

TEST(Pipeline, EverySizeDistributionAndSeedMatchesBothReferences) {
  WARPSORT_REQUIRE_GPU();
  const auto p = warpsort::default_policy<Key>();
  for (std::size_t n : pipeline_sizes())
    for (const auto& dist : test_distributions())
      for (std::uint64_t seed : {1, 2, 3}) {
        if (n >= (1u << 24) && seed > 1 && dist != "uniform") continue;  // keep the run short
        sort_and_validate(make_keys(dist, n, seed), p, warpsort::less<Key>{}, false,
                          dist + " n=" + std::to_string(n) + " seed=" + std::to_string(seed));
      }
}

TEST(Pipeline, Version4MatchesBothReferences) {
  WARPSORT_REQUIRE_GPU();
  for (std::size_t n : pipeline_sizes())
    for (const auto& dist : test_distributions())
      sort_and_validate(make_keys(dist, n, 1), warpsort::v4_policy<Key>(), warpsort::less<Key>{},
                        false, "v4 " + dist + " n=" + std::to_string(n));
}

TEST(Pipeline, InPlace) {
  WARPSORT_REQUIRE_GPU();
  for (std::size_t n : capped({1, 129, 1000, 65537, 1299709}))
    sort_and_validate(make_keys("uniform", n, 4), warpsort::default_policy<Key>(),
                      warpsort::less<Key>{}, true, "in place n=" + std::to_string(n));
}

TEST(Pipeline, Descending) {
  WARPSORT_REQUIRE_GPU();
  for (std::size_t n : capped({1, 127, 1000, 65537, 1299709}))
    for (const auto& dist : test_distributions())
      sort_and_validate(make_keys(dist, n, 5), warpsort::default_policy<Key>(),
                        warpsort::greater<Key>{}, false,
                        "descending " + dist + " n=" + std::to_string(n));
}

// Other tunings must sort just as well: small k (more rounds), odd k, small on-chip blocks and
// groups, large ones, either way of ordering step 3's sample, small oversampling; version 5 at
// every size (v4_below_blocks = 0).
TEST(Pipeline, PolicyVariationsV5) {
  WARPSORT_REQUIRE_GPU();
  warpsort::policy v5 = warpsort::default_policy<Key>();
  v5.v4_below_blocks = 0;
  std::vector<warpsort::policy> policies(6, v5);
  policies[0].max_sequences = 2;  // many rounds
  policies[0].max_ranked_samples = 0;  // step 3 always sorts the samples
  policies[1].max_sequences = 7;
  policies[1].oversampling = 8;
  policies[1].max_ranked_samples = 1 << 30;  // step 3 ranks every set that fits a block
  policies[2].block_sort_keys = 1024;
  policies[2].group_capacity = 1024;
  policies[2].oversampling = 16;
  policies[3].max_sequences = 64;
  policies[3].oversampling = 128;
  policies[3].group_capacity = 16384;
  policies[4].block_sort_keys = 16384;
  policies[4].group_capacity = 24000;
  policies[5].small_oversampling_blocks = 1 << 30;
  policies[5].small_oversampling = 4;
  for (std::size_t i = 0; i < policies.size(); ++i)
    for (std::size_t n : capped({1000, 65537, 1299709}))
      for (const auto& dist : test_distributions())
        sort_and_validate(make_keys(dist, n, 6), policies[i], warpsort::less<Key>{}, false,
                          "policy " + std::to_string(i) + " " + dist + " n=" + std::to_string(n));
}

// A policy whose version-5 blocks could not launch (over 1024 threads) is refused with a
// message naming the field, before anything runs; the query of storage refuses it too.
TEST(Pipeline, PolicyWhoseBlocksCannotLaunchIsRefused) {
  WARPSORT_REQUIRE_GPU();
  warpsort::policy p = warpsort::default_policy<Key>();
  p.group_capacity = 65536;
  std::size_t bytes = 0;
  try {
    warpsort::sort_keys<Key>(nullptr, bytes, nullptr, nullptr, std::size_t{1} << 24,
                             warpsort::less<Key>{}, 0, p);
    ADD_FAILURE() << "no error";
  } catch (const warpsort::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("group_capacity = 65536"), std::string::npos) << e.what();
  }
  p = warpsort::default_policy<Key>();
  p.block_sort_keys = 1 << 16;
  EXPECT_THROW(warpsort::sort_keys<Key>(nullptr, bytes, nullptr, nullptr, std::size_t{1} << 24,
                                        warpsort::less<Key>{}, 0, p),
               warpsort::input_error);
}

TEST(Pipeline, PolicyVariations) {
  WARPSORT_REQUIRE_GPU();
  std::vector<warpsort::policy> policies(7, warpsort::v4_policy<Key>());
  policies[0].max_sequences = 2;
  policies[0].max_ranked_samples = 0;  // step 3 always sorts the sample
  policies[1].max_sequences = 7;
  policies[1].max_ranked_samples = 1 << 30;  // step 3 always ranks it
  policies[1].oversampling = 8;
  policies[2].block_sort_keys = 256;
  policies[2].merge_block_keys = 512;
  policies[2].group_capacity = 1024;
  policies[3].max_sequences = 64;
  policies[3].oversampling = 64;
  policies[3].group_block_threads = 512;
  policies[3].block_threads = 128;
  policies[4].block_sort_keys = 1024;
  policies[4].merge_block_keys = 256;
  policies[4].max_sequences = 256;
  policies[4].oversampling = 16;
  policies[4].group_block_threads = 128;
  policies[5].warp_split_max_blocks = 0;  // a thread per split in every round
  policies[5].few_blocks = 0;
  policies[6].warp_split_max_blocks = 1 << 30;  // a warp per split in every round
  policies[6].few_blocks_threads = 1024;
  for (std::size_t i = 0; i < policies.size(); ++i)
    for (std::size_t n : capped({1000, 65537, 1299709}))
      for (const auto& dist : test_distributions())
        sort_and_validate(make_keys(dist, n, 6), policies[i], warpsort::less<Key>{}, false,
                          "policy " + std::to_string(i) + " " + dist + " n=" + std::to_string(n));
}

TEST(Pipeline, RejectsTooLittleTemporaryStorage) {
  WARPSORT_REQUIRE_GPU();
  auto in = to_device(make_keys("uniform", 5000, 1));
  auto out = poisoned<Key>(5000);
  std::size_t temp_bytes = 0;
  warpsort::sort_keys<Key>(nullptr, temp_bytes, in.get(), out.get(), 5000);
  auto temp = poisoned<unsigned char>(temp_bytes);
  std::size_t too_small = temp_bytes - 1;
  EXPECT_THROW(warpsort::sort_keys<Key>(temp.get(), too_small, in.get(), out.get(), 5000),
               warpsort::input_error);
}

// A validation that cannot fail proves nothing: a corrupted output must be reported.
TEST(Validation, ReportsTheFirstMismatch) {
  WARPSORT_REQUIRE_GPU();
  auto input = make_keys("uniform", 1000, 2);
  auto sorted = input;
  std::sort(sorted.begin(), sorted.end());
  const Key expected = sorted[500];
  sorted[500] = sorted[500] + 1;
  auto in = to_device(input);
  auto out = to_device(sorted);
  const auto report = warpsort::validate_against_references(in.get(), out.get(), 1000, warpsort::less<Key>{});
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.index, 500u);
  EXPECT_EQ(report.expected, std::to_string(expected));
  EXPECT_EQ(report.got, std::to_string(expected + 1));
}

// GPU tests: every policy preset of the ablation ladder (policy.hpp: the paper's algorithm, then
// one idea of ours a rung, version 4, version 5) against thrust::sort and cub::DeviceRadixSort:
// every size of the pipeline's list, every distribution (all equal keys too: the paper's
// key-only splitters put them in one group), every key type in both orders, and pairs.
#include "common/gpu_test.hpp"
#include "common/key_type_lists.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace warpsort::testing;

/// The presets by name, for keys of key_bytes bytes (tuning.cpp's list, which the CLI owns).
std::vector<std::pair<std::string, warpsort::policy>> presets(std::size_t key_bytes) {
  return {{"paper", warpsort::paper_policy_for(key_bytes)},
          {"onchip_step1", warpsort::onchip_step1_policy_for(key_bytes)},
          {"positions", warpsort::positions_policy_for(key_bytes)},
          {"tiles", warpsort::tiles_policy_for(key_bytes)},
          {"onchip_step4", warpsort::onchip_step4_policy_for(key_bytes)},
          {"v4", warpsort::v4_policy_for(key_bytes)},
          {"v5", warpsort::default_policy_for(key_bytes)}};
}

template <class Key, class Comp>
void sort_and_validate(const std::vector<Key>& input, const warpsort::policy& p,
                       const std::string& what) {
  const std::size_t n = input.size();
  auto in = to_device(input);
  auto out = poisoned<Key>(n);
  std::size_t temp_bytes = 0;
  warpsort::sort_keys<Key, Comp>(nullptr, temp_bytes, in.get(), out.get(), n, Comp{}, 0, p);
  auto temp = poisoned<unsigned char>(temp_bytes);
  warpsort::sort_keys<Key, Comp>(temp.get(), temp_bytes, in.get(), out.get(), n, Comp{}, 0, p);
  const auto report = warpsort::validate_against_references(in.get(), out.get(), n, Comp{});
  ASSERT_TRUE(report.ok) << what << ": " << report.message();
}

template <class Key>
class PresetKeyTypes : public ::testing::Test {};
TYPED_TEST_SUITE(PresetKeyTypes, all_key_types);

}  // namespace

// uint32, ascending: every size of the list and every distribution, under every preset.
TEST(Presets, EverySizeAndDistributionMatchesBothReferences) {
  WARPSORT_REQUIRE_GPU();
  using Key = std::uint32_t;
  for (const auto& [name, p] : presets(sizeof(Key)))
    for (std::size_t n : pipeline_sizes())
      for (const auto& dist : test_distributions()) {
        // the paper's all-equal 2^24 (one warp merges the last round's 2^24 keys) takes ~1 s
        if (n >= (std::size_t{1} << 24) && dist != "uniform" && dist != "all_equal") continue;
        sort_and_validate<Key, warpsort::less<Key>>(
            make_keys(dist, n, 11), p, name + " " + dist + " n=" + std::to_string(n));
      }
}

// Every key type in both orders (floats in their total order, specials included), at sizes that
// give the paper's presets step 2 rounds, step 4 rounds and a partial chunk.
TYPED_TEST(PresetKeyTypes, AscendingAndDescendingMatchBothReferences) {
  WARPSORT_REQUIRE_GPU();
  using Key = TypeParam;
  for (const auto& [name, p] : presets(sizeof(Key)))
    for (std::size_t n : capped({1, 129, 7919, 65537, 1299709}))
      for (const char* dist : {"uniform", "all_equal", "eight_distinct", "specials"}) {
        const auto input = make_typed_keys<Key>(dist, n, 5 * n + 3);
        const std::string what = name + " " + dist + " n=" + std::to_string(n);
        sort_and_validate<Key, warpsort::less<Key>>(input, p, "ascending " + what);
        sort_and_validate<Key, warpsort::greater<Key>>(input, p, "descending " + what);
      }
}

// Pairs run the keys pipeline on packed words (4-byte keys) or on items (8-byte keys): both under
// the paper's preset, against the stable references.
TEST(Presets, PaperSortsPairs) {
  WARPSORT_REQUIRE_GPU();
  const auto run = [](auto key_tag, const char* type) {
    using Key = decltype(key_tag);
    using Value = std::uint32_t;
    for (std::size_t n : capped({1000, 65537, 1299709}))
      for (const char* dist : {"uniform", "all_equal"}) {
        const auto keys = make_typed_keys<Key>(dist, n, n + 1);
        std::vector<Value> values(n);
        for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<Value>(i);
        auto k_in = to_device(keys), k_out = poisoned<Key>(n);
        auto v_in = to_device(values), v_out = poisoned<Value>(n);
        const warpsort::policy p = warpsort::paper_policy_for(sizeof(Key));
        std::size_t bytes = 0;
        warpsort::sort_pairs<Key, Value>(nullptr, bytes, k_in.get(), k_out.get(), v_in.get(),
                                         v_out.get(), n, warpsort::less<Key>{}, 0, p);
        auto temp = poisoned<unsigned char>(bytes);
        warpsort::sort_pairs<Key, Value>(temp.get(), bytes, k_in.get(), k_out.get(), v_in.get(),
                                         v_out.get(), n, warpsort::less<Key>{}, 0, p);
        const auto report = warpsort::validate_pairs_against_references(
            k_in.get(), v_in.get(), k_out.get(), v_out.get(), n, warpsort::less<Key>{});
        ASSERT_TRUE(report.ok) << type << " " << dist << " n=" << n << ": " << report.message();
      }
  };
  run(std::uint32_t{}, "uint32");
  run(std::uint64_t{}, "uint64");
}

// The paper's t and S as fields: every buffer size and a few group counts sort alike.
TEST(Presets, PaperBufferSizesAndGroupCounts) {
  WARPSORT_REQUIRE_GPU();
  using Key = std::uint32_t;
  for (int t : {64, 128, 256})
    for (int groups : {1, 7, 4096})
      for (int L : {2, 5, 1024}) {
        warpsort::policy p = warpsort::paper_policy_for(sizeof(Key));
        p.merge_buffer_keys = t;
        p.split_groups = groups;
        p.max_sequences = L;
        for (std::size_t n : capped({129, 65537, 1299709}))
          for (const char* dist : {"uniform", "all_equal", "eight_distinct"})
            sort_and_validate<Key, warpsort::less<Key>>(
                make_keys(dist, n, 3), p,
                "t=" + std::to_string(t) + " S=" + std::to_string(groups) + " L=" +
                    std::to_string(L) + " " + dist + " n=" + std::to_string(n));
      }
}

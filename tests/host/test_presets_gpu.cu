// GPU tests: every preset of the ablation ladder (ablation.cuh: the paper's algorithm, then one
// idea of ours a rung, version 4; and the library's sort, version 5) against thrust::sort and
// cub::DeviceRadixSort: every size of the pipeline's list, every distribution (all equal keys
// too: the paper's key-only splitters put them in one group), every key type in both orders.
#include "common/gpu_test.hpp"
#include "common/key_type_lists.hpp"
#include "common/test_inputs.hpp"

#include <warpsort/ablation.cuh>
#include <warpsort/validate.cuh>
#include <warpsort/warpsort.cuh>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace warpsort::testing;

/// A preset: one of the ablation's designs, or "v5", the library's default policy.
struct preset {
  bool library;
  warpsort::ablation::design design;
};

/// The presets by name, for keys of key_bytes bytes (tuning.cpp's list, which the CLI owns).
std::vector<std::pair<std::string, preset>> presets(std::size_t key_bytes) {
  return {{"paper", {false, warpsort::ablation::paper_for(key_bytes)}},
          {"onchip_step1", {false, warpsort::ablation::onchip_step1_for(key_bytes)}},
          {"positions", {false, warpsort::ablation::positions_for(key_bytes)}},
          {"tiles", {false, warpsort::ablation::tiles_for(key_bytes)}},
          {"onchip_step4", {false, warpsort::ablation::onchip_step4_for(key_bytes)}},
          {"v4", {false, warpsort::ablation::v4_for(key_bytes)}},
          {"v5", {true, {}}}};
}

template <class Key, class Comp>
void sort_and_validate(const std::vector<Key>& input, const preset& p, const std::string& what) {
  const std::size_t n = input.size();
  auto in = to_device(input);
  auto out = poisoned<Key>(n);
  const auto sort = [&](void* temp, std::size_t& bytes) {
    if (p.library)
      warpsort::sort_keys<Key, Comp>(temp, bytes, in.get(), out.get(), n, Comp{}, 0,
                                     warpsort::default_policy<Key>());
    else
      warpsort::ablation::sort_keys<Key, Comp>(temp, bytes, in.get(), out.get(), n, Comp{}, 0,
                                               p.design);
  };
  std::size_t temp_bytes = 0;
  sort(nullptr, temp_bytes);
  auto temp = poisoned<unsigned char>(temp_bytes);
  sort(temp.get(), temp_bytes);
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

// The paper's t and S as fields: every buffer size and a few group counts sort alike.
TEST(Presets, PaperBufferSizesAndGroupCounts) {
  WARPSORT_REQUIRE_GPU();
  using Key = std::uint32_t;
  for (int t : {64, 128, 256})
    for (int groups : {1, 7, 4096})
      for (int L : {2, 5, 1024}) {
        preset p{false, warpsort::ablation::paper_for(sizeof(Key))};
        p.design.merge_buffer_keys = t;
        p.design.split_groups = groups;
        p.design.max_sequences = L;
        for (std::size_t n : capped({129, 65537, 1299709}))
          for (const char* dist : {"uniform", "all_equal", "eight_distinct"})
            sort_and_validate<Key, warpsort::less<Key>>(
                make_keys(dist, n, 3), p,
                "t=" + std::to_string(t) + " S=" + std::to_string(groups) + " L=" +
                    std::to_string(L) + " " + dist + " n=" + std::to_string(n));
      }
}

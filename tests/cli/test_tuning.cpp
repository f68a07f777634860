// WARPSORT_POLICY and WARPSORT_DESIGN parsing (apply_overrides) and the policy recorded in the
// results' metadata: each goes through one table of its tuning's fields.
#include "cli/metadata.hpp"
#include "cli/tuning.hpp"

#include <warpsort/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

using warpsort::cli::design_fields;
using warpsort::cli::policy_fields;

TEST(Tuning, EveryPolicyFieldIsSetByName) {
  const warpsort::policy base{};
  for (std::size_t i = 0; i < policy_fields.size(); ++i) {
    const auto& f = policy_fields[i];
    const int value = 1000 + static_cast<int>(i);
    const warpsort::policy p =
        warpsort::cli::apply_overrides(base, std::string(f.name) + "=" + std::to_string(value));
    EXPECT_EQ(p.*(f.member), value) << f.name;
    for (const auto& other : policy_fields)  // no other field moved
      if (other.member != f.member) EXPECT_EQ(p.*(other.member), base.*(other.member)) << f.name;
  }
  const auto two = warpsort::cli::apply_overrides(base, "group_capacity=512,,max_sequences=32");
  EXPECT_EQ(two.group_capacity, 512);
  EXPECT_EQ(two.max_sequences, 32);
}

TEST(Tuning, EveryDesignFieldIsSetByName) {
  const warpsort::ablation::design base{};
  for (std::size_t i = 0; i < design_fields.size(); ++i) {
    const auto& f = design_fields[i];
    const int value = 1000 + static_cast<int>(i);
    const auto d =
        warpsort::cli::apply_overrides(base, std::string(f.name) + "=" + std::to_string(value), 4);
    EXPECT_EQ(d.*(f.member), value) << f.name;
    for (const auto& other : design_fields)
      if (other.member != f.member) EXPECT_EQ(d.*(other.member), base.*(other.member)) << f.name;
  }
}

TEST(Tuning, RejectsUnknownFieldsAndBadValues) {
  try {
    warpsort::cli::apply_overrides(warpsort::policy{}, "no_such_field=3");
    FAIL() << "an unknown field was accepted";
  } catch (const warpsort::input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no_such_field"), std::string::npos) << what;
    for (const auto& f : policy_fields) EXPECT_NE(what.find(f.name), std::string::npos) << what;
  }
  for (const char* bad : {"group_capacity", "group_capacity=", "group_capacity=-1",
                          "group_capacity=1x", "group_capacity=99999999999", "preset=v4",
                          "block_threads=256"})  // a design's field, not the library's
    EXPECT_THROW(warpsort::cli::apply_overrides(warpsort::policy{}, bad), warpsort::input_error)
        << bad;
  for (const char* bad : {"block_threads=", "preset=v3", "preset=v5", "preset",
                          "pairwise_below_blocks=3"})  // the library's field, not a design's
    EXPECT_THROW(warpsort::cli::apply_overrides(warpsort::ablation::design{}, bad, 4),
                 warpsort::input_error)
        << bad;
}

TEST(Tuning, MetadataRecordsEveryField) {
  warpsort::policy p{};
  for (std::size_t i = 0; i < policy_fields.size(); ++i) p.*(policy_fields[i].member) = 7 + static_cast<int>(i);
  const auto j = warpsort::cli::policy_json(p);
  for (std::size_t i = 0; i < policy_fields.size(); ++i)
    EXPECT_EQ(j.at(policy_fields[i].name), 7 + static_cast<int>(i)) << policy_fields[i].name;
  EXPECT_EQ(j.at("chunk_keys"), warpsort::policy::chunk_keys);
  EXPECT_EQ(j.size(), policy_fields.size() + 4);  // the fields and the four compile-time sizes
}

TEST(Tuning, MetadataRecordsEveryDesignField) {
  warpsort::ablation::design d{};
  for (std::size_t i = 0; i < design_fields.size(); ++i) d.*(design_fields[i].member) = 9 + static_cast<int>(i);
  const auto j = warpsort::cli::design_json(d);
  for (std::size_t i = 0; i < design_fields.size(); ++i)
    EXPECT_EQ(j.at(design_fields[i].name), 9 + static_cast<int>(i)) << design_fields[i].name;
  EXPECT_EQ(j.size(), design_fields.size());
}

// A preset resets every field of a design to that rung's for the key size; later fields
// override it.
TEST(Tuning, PresetsResetADesign) {
  warpsort::ablation::design base{};
  base.oversampling = 3;
  const auto v4 = warpsort::cli::apply_overrides(base, "preset=v4", 8);
  const auto expect_v4 = warpsort::ablation::v4_for(8);
  for (const auto& f : design_fields) EXPECT_EQ(v4.*(f.member), expect_v4.*(f.member)) << f.name;
  const auto tiles = warpsort::cli::apply_overrides(base, "preset=paper,preset=tiles,split_groups=7", 8);
  EXPECT_EQ(tiles.split_groups, 7);
  EXPECT_EQ(tiles.buffer_merge_pairs, 0);
  EXPECT_EQ(tiles.splitter_positions, 1);
}

// Every preset of the ablation ladder parses by name and is its ablation.cuh function's
// design, "v5" the library's default policy; an unknown preset names them all.
TEST(Tuning, AblationPresets) {
  using warpsort::cli::preset_names;
  using warpsort::cli::preset_tuning;
  EXPECT_EQ(preset_names(), (std::vector<std::string>{"paper", "onchip_step1", "positions", "tiles",
                                                      "onchip_step4", "v4", "v5"}));
  const auto paper = preset_tuning("paper", 4);
  EXPECT_TRUE(paper.ablation);
  const auto expect = warpsort::ablation::paper_for(4);
  for (const auto& f : design_fields) EXPECT_EQ(paper.design.*(f.member), expect.*(f.member)) << f.name;
  EXPECT_EQ(paper.design.splitter_positions, 0);
  const auto v5 = preset_tuning("v5", 8);
  EXPECT_FALSE(v5.ablation);
  const auto expect_v5 = warpsort::default_policy<std::uint64_t>();
  for (const auto& f : policy_fields) EXPECT_EQ(v5.library.*(f.member), expect_v5.*(f.member)) << f.name;
  for (const std::string& name : preset_names()) EXPECT_NO_THROW(preset_tuning(name, 4)) << name;
  try {
    preset_tuning("v3", 4);
    FAIL() << "preset v3 accepted";
  } catch (const warpsort::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("paper, onchip_step1"), std::string::npos) << e.what();
  }
}

// What the CLI's warpsort runs sort with: the library's policy with WARPSORT_POLICY's fields, or,
// where WARPSORT_DESIGN is set, version 4's design with its fields (a preset first, if named).
TEST(Tuning, TheEnvironmentChoosesTheLibrarysPolicyOrADesign) {
  const warpsort::policy base = warpsort::default_policy_for(8);
  const auto plain = warpsort::cli::tuning_from(base, 8, nullptr, nullptr);
  EXPECT_FALSE(plain.ablation);
  EXPECT_EQ(plain.library.block_sort_keys, base.block_sort_keys);
  const auto tuned = warpsort::cli::tuning_from(base, 8, "oversampling=16", nullptr);
  EXPECT_FALSE(tuned.ablation);
  EXPECT_EQ(tuned.library.oversampling, 16);
  const auto v4 = warpsort::cli::tuning_from(base, 8, nullptr, "few_blocks=0");
  EXPECT_TRUE(v4.ablation);
  EXPECT_EQ(v4.design.few_blocks, 0);
  EXPECT_EQ(v4.design.block_sort_keys, warpsort::ablation::v4_for(8).block_sort_keys);
  const auto paper = warpsort::cli::tuning_from(base, 4, nullptr, "preset=paper,merge_buffer_keys=64");
  EXPECT_TRUE(paper.ablation);
  EXPECT_EQ(paper.design.merge_buffer_keys, 64);
  EXPECT_EQ(paper.design.splitter_positions, 0);
  EXPECT_THROW(warpsort::cli::tuning_from(base, 4, "block_threads=128", nullptr),
               warpsort::input_error);
  EXPECT_THROW(warpsort::cli::tuning_from(base, 4, nullptr, "pairwise_below_blocks=1"),
               warpsort::input_error);
}

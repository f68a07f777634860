// WARPSORT_POLICY parsing (apply_overrides) and the policy recorded in the results' metadata:
// both go through one table of the policy's fields.
#include "cli/metadata.hpp"
#include "cli/tuning.hpp"

#include <warpsort/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

using warpsort::cli::policy_fields;

TEST(Tuning, EveryFieldIsSetByName) {
  const warpsort::policy base{};
  for (std::size_t i = 0; i < policy_fields.size(); ++i) {
    const auto& f = policy_fields[i];
    const int value = 1000 + static_cast<int>(i);
    const warpsort::policy p =
        warpsort::cli::apply_overrides(base, std::string(f.name) + "=" + std::to_string(value), 4);
    EXPECT_EQ(p.*(f.member), value) << f.name;
    for (const auto& other : policy_fields)  // no other field moved
      if (other.member != f.member) EXPECT_EQ(p.*(other.member), base.*(other.member)) << f.name;
  }
  const auto two = warpsort::cli::apply_overrides(base, "block_threads=512,,max_sequences=32", 4);
  EXPECT_EQ(two.block_threads, 512);
  EXPECT_EQ(two.max_sequences, 32);
}

TEST(Tuning, RejectsUnknownFieldsAndBadValues) {
  try {
    warpsort::cli::apply_overrides({}, "no_such_field=3", 4);
    FAIL() << "an unknown field was accepted";
  } catch (const warpsort::input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no_such_field"), std::string::npos) << what;
    for (const auto& f : policy_fields) EXPECT_NE(what.find(f.name), std::string::npos) << what;
  }
  for (const char* bad : {"block_threads", "block_threads=", "block_threads=-1", "block_threads=1x",
                          "block_threads=99999999999", "preset=v3", "preset"})
    EXPECT_THROW(warpsort::cli::apply_overrides({}, bad, 4), warpsort::input_error) << bad;
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

// A preset resets every field to that version's defaults for the key size; later fields
// override it.
TEST(Tuning, PresetsResetToAVersionsDefaults) {
  warpsort::policy base{};
  base.oversampling = 3;
  const auto v4 = warpsort::cli::apply_overrides(base, "preset=v4", 8);
  const auto expect_v4 = warpsort::v4_policy<std::uint64_t>();
  for (const auto& f : policy_fields) EXPECT_EQ(v4.*(f.member), expect_v4.*(f.member)) << f.name;
  EXPECT_EQ(v4.variant, 4);
  const auto v5 = warpsort::cli::apply_overrides(base, "preset=v4,preset=v5,max_sequences=8", 4);
  const auto expect_v5 = warpsort::default_policy<std::uint32_t>();
  for (const auto& f : policy_fields)
    if (f.member != &warpsort::policy::max_sequences) EXPECT_EQ(v5.*(f.member), expect_v5.*(f.member)) << f.name;
  EXPECT_EQ(v5.max_sequences, 8);
  EXPECT_EQ(v5.variant, 5);
}

// Every preset of the ablation ladder parses by name and is its policy.hpp function's policy;
// an unknown preset names them all.
TEST(Tuning, AblationPresets) {
  using warpsort::cli::preset_names;
  EXPECT_EQ(preset_names(), (std::vector<std::string>{"paper", "onchip_step1", "positions", "tiles",
                                                      "onchip_step4", "v4", "v5"}));
  const auto paper = warpsort::cli::apply_overrides({}, "preset=paper", 4);
  const auto expect = warpsort::paper_policy_for(4);
  for (const auto& f : policy_fields) EXPECT_EQ(paper.*(f.member), expect.*(f.member)) << f.name;
  EXPECT_EQ(paper.splitter_positions, 0);
  EXPECT_EQ(warpsort::cli::apply_overrides({}, "preset=tiles,split_groups=7", 8).split_groups, 7);
  for (const std::string& name : preset_names())
    EXPECT_NO_THROW(warpsort::cli::preset_policy(name, 4)) << name;
  try {
    warpsort::cli::apply_overrides({}, "preset=v3", 4);
    FAIL() << "preset=v3 accepted";
  } catch (const warpsort::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("paper, onchip_step1"), std::string::npos) << e.what();
  }
}

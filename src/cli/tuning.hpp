// The policy the CLI sorts with: warpsort's default for the key type, with any field
// overridden by the environment variable WARPSORT_POLICY ("field=value,field=value", or
// "preset=v4,..." to start from version 4's), so tuning sweeps need no rebuild. Results record
// the policy that ran.
#pragma once

#include <warpsort/policy.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace warpsort::cli {

/// The policy's run-time fields by name: what WARPSORT_POLICY may set and what the results'
/// metadata records, so the two cannot drift apart.
struct policy_field {
  const char* name;
  int policy::*member;
};
inline constexpr std::array<policy_field, 23> policy_fields{{
    {"variant", &policy::variant},
    {"block_threads", &policy::block_threads},
    {"block_sort_keys", &policy::block_sort_keys},
    {"merge_block_keys", &policy::merge_block_keys},
    {"warp_split_max_blocks", &policy::warp_split_max_blocks},
    {"max_sequences", &policy::max_sequences},
    {"oversampling", &policy::oversampling},
    {"max_ranked_samples", &policy::max_ranked_samples},
    {"group_capacity", &policy::group_capacity},
    {"group_block_threads", &policy::group_block_threads},
    {"few_blocks", &policy::few_blocks},
    {"few_blocks_threads", &policy::few_blocks_threads},
    {"small_input_blocks", &policy::small_input_blocks},
    {"small_input_min_keys", &policy::small_input_min_keys},
    {"v4_below_blocks", &policy::v4_below_blocks},
    {"small_oversampling_blocks", &policy::small_oversampling_blocks},
    {"small_oversampling", &policy::small_oversampling},
    {"one_round_blocks", &policy::one_round_blocks},
    {"buffer_merge_pairs", &policy::buffer_merge_pairs},
    {"merge_buffer_keys", &policy::merge_buffer_keys},
    {"splitter_positions", &policy::splitter_positions},
    {"groups_on_chip", &policy::groups_on_chip},
    {"split_groups", &policy::split_groups},
}};

/// The presets, in the ablation's order: the paper's algorithm, one idea of ours a rung, then
/// version 4 and version 5 (policy.hpp's *_policy_for).
std::vector<std::string> preset_names();

/// The preset's policy for keys of key_bytes bytes; an input_error naming the presets if
/// `name` is none of them.
policy preset_policy(const std::string& name, std::size_t key_bytes);

/// Applies "field=value,..." to p, in order; "preset=NAME" (preset_names()) first resets every
/// field to that preset's for keys of key_bytes bytes. Throws warpsort::input_error
/// naming a bad field or value.
policy apply_overrides(policy p, const std::string& overrides, std::size_t key_bytes);

/// default_policy<Key>() with WARPSORT_POLICY applied (checked by make_plan before use).
template <class Key>
policy tuned_policy();

}  // namespace warpsort::cli

// What the CLI sorts with: warpsort's default policy for the key type, with any field
// overridden by the environment variable WARPSORT_POLICY ("field=value,..."), so tuning sweeps
// need no rebuild; or, where WARPSORT_DESIGN is set ("preset=NAME,field=value,...", from
// version 4), one of the ablation's designs instead. bench's warpsort@PRESET runs a preset as it
// is. Results record the policy that ran.
#pragma once

#include <warpsort/ablation.cuh>
#include <warpsort/policy.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace warpsort::cli {

/// A tuning's run-time fields by name: what the environment may set and what the results'
/// metadata records, so the two cannot drift apart.
template <class Tuning>
struct tuning_field {
  const char* name;
  int Tuning::*member;
};
using policy_field = tuning_field<policy>;
using design_field = tuning_field<ablation::design>;

inline constexpr std::array<policy_field, 9> policy_fields{{
    {"block_sort_keys", &policy::block_sort_keys},
    {"max_sequences", &policy::max_sequences},
    {"oversampling", &policy::oversampling},
    {"max_ranked_samples", &policy::max_ranked_samples},
    {"group_capacity", &policy::group_capacity},
    {"pairwise_below_blocks", &policy::pairwise_below_blocks},
    {"small_oversampling_blocks", &policy::small_oversampling_blocks},
    {"small_oversampling", &policy::small_oversampling},
    {"one_round_blocks", &policy::one_round_blocks},
}};

inline constexpr std::array<design_field, 20> design_fields{{
    {"block_sort_keys", &ablation::design::block_sort_keys},
    {"block_threads", &ablation::design::block_threads},
    {"merge_block_keys", &ablation::design::merge_block_keys},
    {"warp_split_max_blocks", &ablation::design::warp_split_max_blocks},
    {"max_sequences", &ablation::design::max_sequences},
    {"oversampling", &ablation::design::oversampling},
    {"max_ranked_samples", &ablation::design::max_ranked_samples},
    {"group_capacity", &ablation::design::group_capacity},
    {"group_block_threads", &ablation::design::group_block_threads},
    {"few_blocks", &ablation::design::few_blocks},
    {"few_blocks_threads", &ablation::design::few_blocks_threads},
    {"small_input_blocks", &ablation::design::small_input_blocks},
    {"small_input_min_keys", &ablation::design::small_input_min_keys},
    {"one_block_keys", &ablation::design::one_block_keys},
    {"rank_merge_keys", &ablation::design::rank_merge_keys},
    {"buffer_merge_pairs", &ablation::design::buffer_merge_pairs},
    {"merge_buffer_keys", &ablation::design::merge_buffer_keys},
    {"splitter_positions", &ablation::design::splitter_positions},
    {"groups_on_chip", &ablation::design::groups_on_chip},
    {"split_groups", &ablation::design::split_groups},
}};

/// The presets, in the ablation's order: the paper's algorithm, one idea of ours a rung,
/// version 4 (ablation.cuh's *_for), and "v5", the library's sort with its default policy.
std::vector<std::string> preset_names();

/// What a warpsort run sorts with: the library's policy, or one of the ablation's designs.
struct sort_tuning {
  bool ablation = false;
  policy library;
  ablation::design design;
};

/// The preset for keys of key_bytes bytes (a design, or "v5", the default policy); an
/// input_error naming the presets if `name` is none of them.
sort_tuning preset_tuning(const std::string& name, std::size_t key_bytes);

/// Applies "field=value,..." (fields of policy_fields) to p, in order. Throws
/// warpsort::input_error naming a bad field or value.
policy apply_overrides(policy p, const std::string& overrides);

/// Applies "field=value,..." (design_fields) to d, in order; "preset=NAME" first resets every
/// field to that design's for keys of key_bytes bytes. Throws warpsort::input_error naming a
/// bad field, value or preset.
ablation::design apply_overrides(ablation::design d, const std::string& overrides,
                                 std::size_t key_bytes);

/// default_policy<Key>() with WARPSORT_POLICY applied (checked by plan_for before use).
template <class Key>
policy tuned_policy();

/// What `warpsort sort`, `fuzz` and bench's "warpsort" sort with: tuned_policy, or the design
/// WARPSORT_DESIGN names (version 4's for the key type, then its fields applied).
template <class Key>
sort_tuning tuned_sort();

/// tuned_sort's rule for keys of key_bytes bytes from the variables' values (null: unset):
/// `library` with `policy_overrides` applied, or, with `design_overrides`, version 4's design
/// with them applied.
sort_tuning tuning_from(const policy& library, std::size_t key_bytes, const char* policy_overrides,
                        const char* design_overrides);

}  // namespace warpsort::cli

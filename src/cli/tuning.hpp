// The policy the CLI sorts with: warpsort's default for the key type, with any field
// overridden by the environment variable WARPSORT_POLICY ("field=value,field=value"), so
// tuning sweeps need no rebuild. Results record the policy that ran.
#pragma once

#include <warpsort/policy.hpp>

#include <string>

namespace warpsort::cli {

/// Applies "field=value,..." to p; throws warpsort::input_error naming a bad field or value.
policy apply_overrides(policy p, const std::string& overrides);

/// default_policy<Key>() with WARPSORT_POLICY applied (checked by make_plan before use).
template <class Key>
policy tuned_policy();

}  // namespace warpsort::cli

// Key-type dispatch: a run-time data::key_type to a compile-time Key, over the one list of
// key types (include/warpsort/key_types.hpp), for which warpsort (both orders),
// reference_checker and the baselines are all instantiated.
#pragma once

#include "cli/bench_config.hpp"
#include "data/key_types.hpp"

#include <warpsort/error.hpp>
#include <warpsort/key_types.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpsort::cli {

/// Passed to the dispatched callable: `using Key = typename decltype(tag)::type;`.
template <class Key>
struct key_tag {
  using type = Key;
};

inline std::vector<data::key_type> supported_key_types() { return data::all_key_types(); }

inline std::vector<std::string> supported_key_type_names() {
  std::vector<std::string> names;
  for (data::key_type t : supported_key_types()) names.push_back(data::key_type_name(t));
  return names;
}

/// Throws input_error "key type 'T' is not supported yet" for a type outside the list.
inline void require_supported(data::key_type type) {
  for (data::key_type t : supported_key_types())
    if (t == type) return;
  throw input_error("key type '" + data::key_type_name(type) +
                    "' is not supported yet by the sort (supported: " +
                    join(supported_key_type_names()) + ")");
}

/// Calls f(key_tag<Key>{}) for the Key of `type`; input_error for an unsupported type.
template <class F>
decltype(auto) with_key_type(data::key_type type, F&& f) {
  switch (type) {
#define WARPSORT_CLI_KEY_CASE(name, Key) \
  case data::key_type::name:             \
    return f(key_tag<Key>{});
    WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_CLI_KEY_CASE)
#undef WARPSORT_CLI_KEY_CASE
    default:
      break;
  }
  require_supported(type);  // throws
  throw input_error("unreachable key type");
}

}  // namespace warpsort::cli

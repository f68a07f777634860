#include "tuning.hpp"

#include <warpsort/error.hpp>
#include <warpsort/key_types.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string_view>

namespace warpsort::cli {

std::vector<std::string> preset_names() {
  return {"paper", "onchip_step1", "positions", "tiles", "onchip_step4", "v4", "v5"};
}

policy preset_policy(const std::string& name, std::size_t key_bytes) {
  if (name == "paper") return paper_policy_for(key_bytes);
  if (name == "onchip_step1") return onchip_step1_policy_for(key_bytes);
  if (name == "positions") return positions_policy_for(key_bytes);
  if (name == "tiles") return tiles_policy_for(key_bytes);
  if (name == "onchip_step4") return onchip_step4_policy_for(key_bytes);
  if (name == "v4") return v4_policy_for(key_bytes);
  if (name == "v5") return default_policy_for(key_bytes);
  std::string known;
  for (const std::string& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw input_error("unknown preset '" + name + "': the presets are " + known);
}

policy apply_overrides(policy p, const std::string& overrides, std::size_t key_bytes) {
  std::stringstream list(overrides);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    const std::string text = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (name == "preset") {
      try {
        p = preset_policy(text, key_bytes);
      } catch (const input_error& e) {
        throw input_error("WARPSORT_POLICY: '" + item + "': " + e.what());
      }
      continue;
    }
    long value = 0;
    try {
      std::size_t used = 0;
      value = std::stol(text, &used);
      if (used != text.size() || value < 0 || value > (1L << 30)) throw std::invalid_argument(text);
    } catch (const std::exception&) {
      throw input_error("WARPSORT_POLICY: '" + item + "' needs a non-negative integer value");
    }
    const auto field = std::find_if(policy_fields.begin(), policy_fields.end(),
                                    [&](const policy_field& f) { return name == f.name; });
    if (field == policy_fields.end()) {
      std::string known;
      for (const policy_field& f : policy_fields) {
        if (!known.empty()) known += ", ";
        known += f.name;
      }
      throw input_error("WARPSORT_POLICY: unknown field '" + name + "' (preset, " + known + ")");
    }
    p.*(field->member) = static_cast<int>(value);
  }
  return p;
}

template <class Key>
policy tuned_policy() {
  // read once: the environment does not change while the process runs, and the sort calls
  // inside timed regions must not parse it again
  static const policy tuned = [] {
    const char* env = std::getenv("WARPSORT_POLICY");
    return env ? apply_overrides(default_policy<Key>(), env, sizeof(Key)) : default_policy<Key>();
  }();
  return tuned;
}

#define WARPSORT_INSTANTIATE_TUNED_POLICY(name, Key) template policy tuned_policy<Key>();
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_INSTANTIATE_TUNED_POLICY)
#undef WARPSORT_INSTANTIATE_TUNED_POLICY

}  // namespace warpsort::cli

#include "tuning.hpp"

#include <warpsort/error.hpp>
#include <warpsort/key_types.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sstream>

namespace warpsort::cli {

namespace {

/// The design of a preset of the ladder (not "v5").
bool design_of(const std::string& name, std::size_t key_bytes, ablation::design& d) {
  if (name == "paper") d = ablation::paper_for(key_bytes);
  else if (name == "onchip_step1") d = ablation::onchip_step1_for(key_bytes);
  else if (name == "positions") d = ablation::positions_for(key_bytes);
  else if (name == "tiles") d = ablation::tiles_for(key_bytes);
  else if (name == "onchip_step4") d = ablation::onchip_step4_for(key_bytes);
  else if (name == "v4") d = ablation::v4_for(key_bytes);
  else return false;
  return true;
}

[[noreturn]] void unknown_preset(const std::string& name) {
  std::string known;
  for (const std::string& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw input_error("unknown preset '" + name + "': the presets are " + known);
}

/// Applies "field=value,..." with the fields of `table`; `preset` handles "preset=NAME" (or
/// refuses it).
template <class Tuning, std::size_t N, class Preset>
Tuning apply_fields(Tuning t, const std::string& overrides, const char* variable,
                    const std::array<tuning_field<Tuning>, N>& table, Preset preset) {
  std::stringstream list(overrides);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    const std::string text = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (name == "preset") {
      try {
        preset(t, text);
      } catch (const input_error& e) {
        throw input_error(std::string(variable) + ": '" + item + "': " + e.what());
      }
      continue;
    }
    long value = 0;
    try {
      std::size_t used = 0;
      value = std::stol(text, &used);
      if (used != text.size() || value < 0 || value > (1L << 30)) throw std::invalid_argument(text);
    } catch (const std::exception&) {
      throw input_error(std::string(variable) + ": '" + item + "' needs a non-negative integer value");
    }
    const auto field = std::find_if(table.begin(), table.end(),
                                    [&](const tuning_field<Tuning>& f) { return name == f.name; });
    if (field == table.end()) {
      std::string known;
      for (const tuning_field<Tuning>& f : table) {
        if (!known.empty()) known += ", ";
        known += f.name;
      }
      throw input_error(std::string(variable) + ": unknown field '" + name + "' (" + known + ")");
    }
    t.*(field->member) = static_cast<int>(value);
  }
  return t;
}

}  // namespace

std::vector<std::string> preset_names() {
  return {"paper", "onchip_step1", "positions", "tiles", "onchip_step4", "v4", "v5"};
}

sort_tuning preset_tuning(const std::string& name, std::size_t key_bytes) {
  sort_tuning t;
  if (name == "v5") {
    t.library = default_policy_for(key_bytes);
    return t;
  }
  if (!design_of(name, key_bytes, t.design)) unknown_preset(name);
  t.ablation = true;
  return t;
}

policy apply_overrides(policy p, const std::string& overrides) {
  return apply_fields(p, overrides, "WARPSORT_POLICY", policy_fields, [](policy&, const std::string&) {
    throw input_error("the presets are the ablation's (bench --variants; WARPSORT_DESIGN=preset=NAME)");
  });
}

ablation::design apply_overrides(ablation::design d, const std::string& overrides,
                                 std::size_t key_bytes) {
  return apply_fields(d, overrides, "WARPSORT_DESIGN", design_fields,
                      [&](ablation::design& to, const std::string& name) {
                        if (name == "v5")
                          throw input_error("v5 is the library's sort (WARPSORT_POLICY), not a design");
                        if (!design_of(name, key_bytes, to)) unknown_preset(name);
                      });
}

template <class Key>
policy tuned_policy() {
  return tuned_sort<Key>().library;
}

sort_tuning tuning_from(const policy& library, std::size_t key_bytes, const char* policy_overrides,
                        const char* design_overrides) {
  sort_tuning t;
  t.library = policy_overrides ? apply_overrides(library, policy_overrides) : library;
  if (design_overrides) {
    t.ablation = true;
    t.design = apply_overrides(ablation::v4_for(key_bytes), design_overrides, key_bytes);
  }
  return t;
}

template <class Key>
sort_tuning tuned_sort() {
  // read once: the environment does not change while the process runs, and the sort calls
  // inside timed regions must not parse it again
  static const sort_tuning tuned =
      tuning_from(default_policy<Key>(), sizeof(Key), std::getenv("WARPSORT_POLICY"),
                  std::getenv("WARPSORT_DESIGN"));
  return tuned;
}

#define WARPSORT_INSTANTIATE_TUNED_POLICY(name, Key) \
  template policy tuned_policy<Key>();               \
  template sort_tuning tuned_sort<Key>();
WARPSORT_FOR_EACH_KEY_TYPE(WARPSORT_INSTANTIATE_TUNED_POLICY)
#undef WARPSORT_INSTANTIATE_TUNED_POLICY

}  // namespace warpsort::cli

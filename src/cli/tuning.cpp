#include "tuning.hpp"

#include <warpsort/error.hpp>

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string_view>

namespace warpsort::cli {

policy apply_overrides(policy p, const std::string& overrides) {
  std::stringstream list(overrides);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    const std::string text = eq == std::string::npos ? "" : item.substr(eq + 1);
    long value = 0;
    try {
      std::size_t used = 0;
      value = std::stol(text, &used);
      if (used != text.size() || value < 0 || value > (1L << 30)) throw std::invalid_argument(text);
    } catch (const std::exception&) {
      throw input_error("WARPSORT_POLICY: '" + item + "' needs a non-negative integer value");
    }
    const int v = static_cast<int>(value);
    if (name == "block_threads") p.block_threads = v;
    else if (name == "block_sort_keys") p.block_sort_keys = v;
    else if (name == "merge_block_keys") p.merge_block_keys = v;
    else if (name == "max_sequences") p.max_sequences = v;
    else if (name == "oversampling") p.oversampling = v;
    else if (name == "max_ranked_samples") p.max_ranked_samples = v;
    else if (name == "group_capacity") p.group_capacity = v;
    else if (name == "group_block_threads") p.group_block_threads = v;
    else if (name == "warp_split_max_blocks") p.warp_split_max_blocks = v;
    else if (name == "few_blocks") p.few_blocks = v;
    else if (name == "few_blocks_threads") p.few_blocks_threads = v;
    else if (name == "small_input_blocks") p.small_input_blocks = v;
    else if (name == "small_input_min_keys") p.small_input_min_keys = v;
    else
      throw input_error("WARPSORT_POLICY: unknown field '" + name +
                        "' (block_threads, block_sort_keys, merge_block_keys, max_sequences, "
                        "warp_split_max_blocks, oversampling, max_ranked_samples, group_capacity, "
                        "group_block_threads, few_blocks, few_blocks_threads, small_input_blocks, "
                        "small_input_min_keys)");
  }
  return p;
}

template <class Key>
policy tuned_policy() {
  // read once: the environment does not change while the process runs, and the sort calls
  // inside timed regions must not parse it again
  static const policy tuned = [] {
    const char* env = std::getenv("WARPSORT_POLICY");
    return env ? apply_overrides(default_policy<Key>(), env) : default_policy<Key>();
  }();
  return tuned;
}

template policy tuned_policy<std::uint32_t>();
template policy tuned_policy<std::int32_t>();
template policy tuned_policy<float>();
template policy tuned_policy<std::uint64_t>();
template policy tuned_policy<std::int64_t>();
template policy tuned_policy<double>();

}  // namespace warpsort::cli

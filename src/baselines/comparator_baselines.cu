// The comparator key's baselines: the same sorters as the built-in keys' (cub_merge_sorter.cuh,
// cub_merge_pairs_impl.cuh, thrust_sorter.cuh) with key128_less as their order.
#include "baselines/comparator_baselines.cuh"

#include "baselines/cub_merge_pairs_impl.cuh"
#include "baselines/cub_merge_sorter.cuh"
#include "baselines/thrust_sorter.cuh"
#include "warpsort/error.hpp"

#include <cstdint>

namespace warpsort::baselines {

using data::key128;
using data::key128_less;

bool has_key128_baseline(const std::string& name, bool pairs) {
  return pairs ? name == "cub_merge_pairs" || name == "cub_merge_stable_pairs"
               : name == "cub_merge" || name == "thrust_sort_comparator";
}

namespace {
[[noreturn]] void no_comparator_form(const std::string& name) {
  throw input_error("baseline '" + name + "' has no comparator form: it does not sort " +
                    data::key128_name + " keys");
}
}  // namespace

std::unique_ptr<gpu_sorter<key128>> make_key128_baseline(const std::string& name) {
  if (name == "cub_merge") return std::make_unique<detail::cub_merge_sorter<key128, false, key128_less>>();
  if (name == "thrust_sort_comparator")
    return std::make_unique<detail::thrust_sorter<key128, key128_less>>(name);
  no_comparator_form(name);
}

template <class Value>
std::unique_ptr<gpu_pair_sorter<key128, Value>> make_key128_pair_baseline(const std::string& name) {
  if (name == "cub_merge_pairs")
    return std::make_unique<detail::cub_merge_pairs_sorter<false, key128, Value, key128_less, void>>();
  if (name == "cub_merge_stable_pairs")
    return std::make_unique<detail::cub_merge_pairs_sorter<true, key128, Value, key128_less, void>>();
  no_comparator_form(name);
}

template std::unique_ptr<gpu_pair_sorter<key128, std::uint32_t>> make_key128_pair_baseline(const std::string&);
template std::unique_ptr<gpu_pair_sorter<key128, std::uint64_t>> make_key128_pair_baseline(const std::string&);

}  // namespace warpsort::baselines

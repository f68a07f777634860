#include "cli/bench_config.hpp"

#include "cli/tuning.hpp"
#include "data/key128.hpp"

#include <warpsort/error.hpp>

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>

namespace warpsort::cli {
namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](unsigned char c) { return std::isdigit(c) != 0; });
}

// Sizes above 2^40 keys are far beyond any device; the cap keeps the arithmetic exact.
constexpr int max_exponent = 40;
constexpr std::size_t max_size = std::size_t{1} << max_exponent;

/// The exponent of "2^k", or -1 if `s` is not of that form.
int power_of_two_exponent(const std::string& s, const std::string& whole) {
  if (s.size() < 3 || s[0] != '2' || s[1] != '^') return -1;
  const std::string k = s.substr(2);
  if (!all_digits(k) || k.size() > 3)
    throw input_error("bad size '" + whole + "': the exponent in 2^k must be a number");
  const int e = std::stoi(k);
  if (e > max_exponent)
    throw input_error("bad size '" + whole + "': 2^k is limited to k <= " +
                      std::to_string(max_exponent));
  return e;
}

}  // namespace

std::size_t parse_size(const std::string& text, std::size_t smallest) {
  const std::string s = trim(text);
  if (s.empty()) throw input_error("empty size");
  std::size_t n = 0;
  // "2^a+b" / "2^a-b": a power of two and a decimal offset (sizes just off a power of two).
  const std::size_t sign = s.rfind("2^", 0) == 0 ? s.find_first_of("+-", 2) : std::string::npos;
  if (sign != std::string::npos) {
    const std::string base = trim(s.substr(0, sign)), offset = trim(s.substr(sign + 1));
    const int e = power_of_two_exponent(base, text);
    if (e < 0)
      throw input_error("bad size '" + text + "': expected 2^a+b or 2^a-b (e.g. 2^32+12345)");
    if (!all_digits(offset) || offset.size() > 15)
      throw input_error("bad size '" + text + "': the offset b in 2^a+b / 2^a-b must be an integer");
    const std::size_t power = std::size_t{1} << e, b = static_cast<std::size_t>(std::stoull(offset));
    if (s[sign] == '+') {
      n = power + b;  // power <= 2^40 and b < 10^15: no overflow
    } else {
      if (b > power || (b == power && smallest > 0))
        throw input_error("bad size '" + text + "': sizes must be at least " + std::to_string(smallest));
      n = power - b;
    }
  } else if (const int e = power_of_two_exponent(s, text); e >= 0) {
    n = std::size_t{1} << e;
  } else {
    if (!all_digits(s))
      throw input_error("bad size '" + text +
                        "': expected an integer, 2^k, 2^a+b or 2^a-b (e.g. 1000003, 2^20, 2^32+12345)");
    if (s.size() > 15) throw input_error("bad size '" + text + "': too large");
    n = static_cast<std::size_t>(std::stoull(s));
  }
  if (n < smallest)
    throw input_error("bad size '" + text + "': sizes must be at least " + std::to_string(smallest));
  if (n > max_size) throw input_error("bad size '" + text + "': larger than 2^40");
  return n;
}

std::vector<std::size_t> parse_size_list(const std::string& text, std::size_t smallest) {
  std::vector<std::size_t> sizes;
  auto add = [&](std::size_t n) {
    if (std::find(sizes.begin(), sizes.end(), n) == sizes.end()) sizes.push_back(n);
  };
  for (const std::string& item : split_list(text)) {
    const std::size_t dots = item.find("..");
    if (dots == std::string::npos) {
      add(parse_size(item, smallest));
      continue;
    }
    const std::string lo_text = trim(item.substr(0, dots)), hi_text = trim(item.substr(dots + 2));
    const bool offsets = lo_text.find_first_of("+-") != std::string::npos ||
                         hi_text.find_first_of("+-") != std::string::npos;
    const int lo = offsets ? -1 : power_of_two_exponent(lo_text, item);
    const int hi = offsets ? -1 : power_of_two_exponent(hi_text, item);
    if (lo < 0 || hi < 0)
      throw input_error("bad size range '" + item + "': ranges go between powers of two, e.g. 2^16..2^28");
    if (lo > hi) throw input_error("bad size range '" + item + "': the lower end is above the upper");
    for (int e = lo; e <= hi; ++e) add(parse_size("2^" + std::to_string(e)));
  }
  return sizes;
}

std::string format_size(std::size_t n) {
  if (n >= 2 && (n & (n - 1)) == 0) {
    int e = 0;
    while ((std::size_t{1} << e) != n) ++e;
    return "2^" + std::to_string(e);
  }
  return std::to_string(n);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.empty()) throw input_error("empty item in the list '" + text + "'");
    items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::vector<std::string> parse_name_list(const std::string& text,
                                         const std::vector<std::string>& valid,
                                         const std::string& what) {
  if (trim(text) == "all") return valid;
  std::vector<std::string> names;
  for (const std::string& item : split_list(text)) {
    if (std::find(valid.begin(), valid.end(), item) == valid.end())
      throw input_error("unknown " + what + " '" + item + "'; valid: all, " + join(valid));
    if (std::find(names.begin(), names.end(), item) == names.end()) names.push_back(item);
  }
  return names;
}

void bench_config::check() const {
  if (sizes.empty()) throw input_error("no sizes to benchmark");
  if (distributions.empty()) throw input_error("no distributions to benchmark");
  if (algorithms.empty()) throw input_error("no algorithms to benchmark");
  if (key_types.empty() && !comparator_key) throw input_error("no key types to benchmark");
  if (comparator_key && descending)
    throw input_error("--descending: key type " + data::key128_name +
                      " sorts by its comparator, ascending only");
  if (reps < 1) throw input_error("--reps must be at least 1");
  if (warmup < 0) throw input_error("--warmup must be at least 0");
  if (cpu_reps < 1) throw input_error("--cpu-reps must be at least 1");
}

void parse_bench_key_types(const std::string& text, bench_config& c) {
  c.key_types.clear();
  c.comparator_key = false;
  if (text == "all") {
    c.key_types = data::all_key_types();
    c.comparator_key = true;
    return;
  }
  for (const std::string& name : split_list(text)) {
    if (name == data::key128_name) {
      c.comparator_key = true;
      continue;
    }
    try {
      const data::key_type t = data::parse_key_type(name);
      if (std::find(c.key_types.begin(), c.key_types.end(), t) == c.key_types.end())
        c.key_types.push_back(t);
    } catch (const input_error& e) {
      throw input_error(std::string(e.what()) + ", or " + data::key128_name +
                        " (16 bytes, a comparator)");
    }
  }
}

bench_config default_experiment() {
  bench_config c;
  c.sizes = {std::size_t{1} << 20, std::size_t{1} << 24, std::size_t{1} << 26};
  c.distributions = {"uniform", "sorted", "zero", "randomized_duplicates", "entropy_0.337"};
  c.algorithms = {"warpsort", "cub_merge", "cub_radix", "thrust_sort", "thrust_sort_comparator",
                  "bitonic_textbook"};
  c.algorithm_max_n["bitonic_textbook"] = std::size_t{1} << 24;  // 2^26 would take most of the minute
  c.reps = 5;
  c.out_stem = "default";
  return c;
}

std::vector<std::string> all_algorithm_names(const std::vector<std::string>& gpu_baselines,
                                             const std::vector<std::string>& cpu_baselines) {
  std::vector<std::string> names{"warpsort"};
  names.insert(names.end(), gpu_baselines.begin(), gpu_baselines.end());
  names.insert(names.end(), cpu_baselines.begin(), cpu_baselines.end());
  return names;
}

bool is_warpsort_preset(const std::string& name) {
  return name.rfind("warpsort@", 0) == 0 && name.size() > 9;
}

std::string preset_of(const std::string& name) {
  return is_warpsort_preset(name) ? name.substr(9) : std::string();
}

algorithm_plan plan_algorithms(const std::vector<std::string>& requested,
                               const std::vector<std::string>& gpu_baselines,
                               const std::vector<std::string>& cpu_baselines) {
  auto contains = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  algorithm_plan plan;
  if (contains(requested, "warpsort")) plan.gpu.push_back("warpsort");
  for (const std::string& name : requested)  // warpsort under its presets next, as asked
    if (is_warpsort_preset(name) && !contains(plan.gpu, name)) plan.gpu.push_back(name);
  for (const std::string& name : requested) {
    if (name == "warpsort" || is_warpsort_preset(name)) continue;
    if (contains(gpu_baselines, name)) {
      if (!contains(plan.gpu, name)) plan.gpu.push_back(name);
    } else if (contains(cpu_baselines, name)) {
      if (!contains(plan.cpu, name)) plan.cpu.push_back(name);
    } else {
      throw input_error("unknown algorithm '" + name + "'; valid: all, " +
                        join(all_algorithm_names(gpu_baselines, cpu_baselines)));
    }
  }
  if (!plan.gpu.empty()) {
    for (const char* needed : {"cub_merge", "cub_radix"}) {
      if (!contains(plan.gpu, needed)) {
        plan.gpu.push_back(needed);
        plan.added.push_back(needed);
      }
    }
  }
  return plan;
}

algorithm_plan plan_pair_algorithms(const std::vector<std::string>& requested,
                                    const std::vector<std::string>& pair_baselines) {
  auto contains = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  std::vector<std::string> valid{"warpsort"};
  valid.insert(valid.end(), pair_baselines.begin(), pair_baselines.end());
  algorithm_plan plan;
  if (contains(requested, "warpsort")) plan.gpu.push_back("warpsort");
  for (const std::string& name : requested) {
    if (!contains(valid, name))
      throw input_error("algorithm '" + name + "' does not sort key-value pairs; with --values the "
                        "algorithms are: all, " + join(valid));
    if (name != "warpsort" && !contains(plan.gpu, name)) plan.gpu.push_back(name);
  }
  if (!plan.gpu.empty()) {
    for (const char* needed : {"cub_merge_stable_pairs", "cub_radix_pairs"}) {
      if (!contains(plan.gpu, needed)) {
        plan.gpu.push_back(needed);
        plan.added.push_back(needed);
      }
    }
  }
  return plan;
}

std::vector<std::string> restrict_to_descending(algorithm_plan& plan) {
  auto contains = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  std::vector<std::string> removed, gpu;
  for (const std::string& name : plan.gpu) {
    if (name == "warpsort" || is_warpsort_preset(name) || name == "cub_radix" ||
        name == "cub_merge")
      gpu.push_back(name);
    else
      removed.push_back(name);
  }
  removed.insert(removed.end(), plan.cpu.begin(), plan.cpu.end());
  const bool requested_left = std::any_of(gpu.begin(), gpu.end(), [&](const std::string& name) {
    return !contains(plan.added, name);
  });
  if (!requested_left)
    throw input_error("--descending: none of the requested algorithms (" + join(removed) +
                      ") sorts descending; with --descending the keys-only algorithms are: "
                      "warpsort, cub_radix, cub_merge");
  plan.gpu = std::move(gpu);
  plan.cpu.clear();
  return removed;
}

std::vector<std::string> parse_algorithm_list(const std::string& text, value_type values,
                                              const std::vector<std::string>& keys_names,
                                              const std::vector<std::string>& pair_names) {
  auto contains = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  std::vector<std::string> valid;
  if (values == value_type::none) {
    valid = keys_names;
  } else {
    valid.push_back("warpsort");
    valid.insert(valid.end(), pair_names.begin(), pair_names.end());
  }
  if (trim(text) == "all") return valid;
  std::vector<std::string> names;
  for (const std::string& item : split_list(text)) {
    if (is_warpsort_preset(item)) {  // warpsort@PRESET
      const std::vector<std::string> presets = preset_names();
      if (!contains(presets, preset_of(item)))
        throw input_error("unknown preset in '" + item + "'; the presets are: " + join(presets));
      if (values != value_type::none)
        throw input_error("algorithm '" + item + "': warpsort's presets run keys only (no --values)");
      if (!contains(names, item)) names.push_back(item);
      continue;
    }
    if (!contains(valid, item)) {
      if (values != value_type::none && contains(keys_names, item))
        throw input_error("algorithm '" + item + "' sorts keys only; with --values " +
                          value_type_name(values) + " the algorithms are: all, " + join(valid));
      if (values == value_type::none && contains(pair_names, item))
        throw input_error("algorithm '" + item + "' sorts key-value pairs: give --values uint32 "
                          "or --values uint64 (keys-only algorithms: all, " + join(valid) + ")");
      throw input_error("unknown algorithm '" + item + "'; valid: all, " + join(valid));
    }
    if (!contains(names, item)) names.push_back(item);
  }
  return names;
}

}  // namespace warpsort::cli

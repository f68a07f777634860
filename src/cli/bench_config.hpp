// The benchmark's configuration and the parsing of its command-line lists (sizes, names).
// Pure C++: no CUDA, so the unit tests run anywhere.
#pragma once

#include "cli/value_type.hpp"
#include "data/key_types.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace warpsort::cli {

/// One size: a plain integer ("1000003"), a power of two ("2^20"), or a power of two plus or
/// minus a decimal offset ("2^32+12345", "2^31-1"). Must be in [smallest, 2^40] (smallest: 1,
/// or 0 where sorting nothing is a valid request). Throws warpsort::input_error saying what is
/// wrong.
std::size_t parse_size(const std::string& text, std::size_t smallest = 1);

/// A comma list of sizes and ranges: "2^16..2^20" means every power of two from 2^16 to 2^20
/// (range ends are plain powers of two); "2^20,1000003,2^20+1" and "4096" are plain
/// lists. Duplicates are dropped, order is kept.
std::vector<std::size_t> parse_size_list(const std::string& text, std::size_t smallest = 1);

/// "2^k" for powers of two (k >= 1), the decimal number otherwise.
std::string format_size(std::size_t n);

/// Splits a comma list, trimming blanks around items; empty items are an input_error.
std::vector<std::string> split_list(const std::string& text);

/// A comma list of names, each one of `valid`, or "all" (every valid name, in valid's order).
/// Duplicates are dropped. An unknown name is an input_error naming `what` and the valid names.
std::vector<std::string> parse_name_list(const std::string& text,
                                         const std::vector<std::string>& valid,
                                         const std::string& what);

/// "a, b, c".
std::string join(const std::vector<std::string>& items, const std::string& separator = ", ");

/// Everything `warpsort bench` (and the default experiment) needs to run.
struct bench_config {
  std::vector<std::size_t> sizes;
  std::vector<std::string> distributions;
  std::vector<std::string> algorithms;  // as requested: "warpsort", GPU and CPU baseline names
  std::vector<data::key_type> key_types{data::key_type::uint32};
  /// Also the comparator key (data/key128.hpp: 16 bytes, a lexicographic comparator; ascending
  /// only), after key_types.
  bool comparator_key = false;
  /// none: keys only. uint32 / uint64: every algorithm sorts (key, value) pairs whose values
  /// are the input indices (an argsort); the algorithms are then warpsort (sort_pairs) and the
  /// pair baselines.
  value_type values = value_type::none;
  int reps = 5;
  int warmup = 1;
  std::uint64_t seed = 1;
  std::string out_dir = "results";
  std::string out_stem = "bench";  // writes out_dir/out_stem.csv and .json
  std::size_t cpu_max_n = std::size_t{1} << 24;
  int cpu_reps = 3;
  unsigned threads = 0;  // CPU parallel baselines; 0 = all hardware threads
  bool e2e = true;
  bool quiet = false;
  /// Sort in descending order (warpsort::greater); see restrict_to_descending for which
  /// keys-only algorithms run then.
  bool descending = false;
  /// Per-algorithm size caps (the default experiment runs bitonic_textbook only up to 2^24).
  std::map<std::string, std::size_t> algorithm_max_n;

  /// Throws input_error for counts out of range or empty lists, and for the comparator key
  /// with --descending.
  void check() const;
};

/// --types: a comma list of key type names (data::parse_key_type's, and data::key128_name) or
/// "all" (every built-in type, then the comparator key) into c.key_types and c.comparator_key.
/// An unknown name is an input_error naming the accepted ones.
void parse_bench_key_types(const std::string& text, bench_config& c);

/// The no-argument experiment (about a minute on an H100): 2^20, 2^24, 2^26 keys; uniform,
/// sorted, zero, randomized_duplicates, entropy_0.337; warpsort, cub_merge, cub_radix,
/// thrust_sort, thrust_sort_comparator, and bitonic_textbook up to 2^24; 5 reps; no CPU
/// baselines; results/default.{csv,json}.
bench_config default_experiment();

/// "warpsort@PRESET" (bench --variants PRESET, or --algos warpsort@PRESET): warpsort with a
/// named policy preset (tuning.hpp's preset_names) instead of the tuned policy; keys only.
bool is_warpsort_preset(const std::string& name);
/// PRESET of "warpsort@PRESET" ("" for any other name).
std::string preset_of(const std::string& name);

/// Which algorithms run, by platform, in order.
struct algorithm_plan {
  std::vector<std::string> gpu;    // "warpsort" first if asked, then GPU baselines
  std::vector<std::string> cpu;    // CPU baselines
  std::vector<std::string> added;  // cub_merge / cub_radix run only because the ratios need them
};

/// Splits the requested names by platform. cub_merge and cub_radix are added whenever any GPU
/// algorithm runs (ratio_vs_cub_merge and ratio_vs_cub_radix need them). Unknown names are an
/// input_error.
algorithm_plan plan_algorithms(const std::vector<std::string>& requested,
                               const std::vector<std::string>& gpu_baselines,
                               const std::vector<std::string>& cpu_baselines);

/// Pairs mode (--values): the requested names are "warpsort" and pair baselines;
/// cub_merge_stable_pairs and cub_radix_pairs are added (the ratios need them). Other names are
/// an input_error.
algorithm_plan plan_pair_algorithms(const std::vector<std::string>& requested,
                                    const std::vector<std::string>& pair_baselines);

/// bench --descending, keys only: keeps the algorithms that can sort descending (warpsort,
/// cub_radix, cub_merge) in `plan` and returns the names taken out (every other GPU baseline:
/// their interface sorts ascending only; every CPU baseline). An input_error when none of the
/// requested algorithms is left (only cub_radix / cub_merge added for the ratios would run).
std::vector<std::string> restrict_to_descending(algorithm_plan& plan);

/// --algos: a comma list or "all". Keys only (values none): every name of `keys_names`
/// (all_algorithm_names); with values: "warpsort" and `pair_names`. A keys-only name given
/// with values, or a pair name without, is an input_error that says so and names the valid ones.
std::vector<std::string> parse_algorithm_list(const std::string& text, value_type values,
                                              const std::vector<std::string>& keys_names,
                                              const std::vector<std::string>& pair_names);

/// Every algorithm name the command line accepts: "warpsort", then GPU, then CPU baselines.
std::vector<std::string> all_algorithm_names(const std::vector<std::string>& gpu_baselines,
                                             const std::vector<std::string>& cpu_baselines);

}  // namespace warpsort::cli

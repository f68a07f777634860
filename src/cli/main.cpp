// The `warpsort` command line: parses arguments with CLI11 and dispatches to the subcommands.
// Every error ends here as "warpsort: error: <message>" and exit code 1 (CLI11's own parse
// errors keep CLI11's message and exit code).
#include "baselines/cpu_baselines.hpp"
#include "baselines/gpu_baselines.cuh"
#include "baselines/gpu_pair_baselines.cuh"
#include "cli/bench.hpp"
#include "cli/bench_config.hpp"
#include "cli/commands.hpp"
#ifdef WARPSORT_WITH_DISTRIBUTED
#include "cli/dist.hpp"
#endif
#include "cli/key_dispatch.hpp"
#include "cli/metadata.hpp"
#include "cli/tuning.hpp"
#include "data/distributions.hpp"
#include "data/key128.hpp"

#include <warpsort/error.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

using namespace warpsort;

/// The strings of `warpsort bench`'s options, turned into a bench_config after parsing.
struct bench_arguments {
  std::string sizes = "2^16..2^26";
  std::string dists = "all";
  std::string algos = "all";
  std::string types = "uint32";
  std::string values = "none";
  cli::bench_config config;  // the numeric options are bound directly
  bool no_e2e = false;
  std::string cpu_max_n = "2^24";
  std::string variants;  // warpsort's presets, each run as "warpsort@PRESET"

  cli::bench_config to_config() const {
    cli::bench_config c = config;
    c.sizes = cli::parse_size_list(sizes);
    c.distributions = cli::parse_name_list(dists, data::distribution_names(), "distribution");
    c.values = cli::parse_value_type(values);
    c.algorithms = cli::parse_algorithm_list(
        algos, c.values,
        cli::all_algorithm_names(baselines::gpu_baseline_names(), baselines::cpu_baseline_names()),
        baselines::gpu_pair_baseline_names());
    if (!variants.empty())
      for (const std::string& v : cli::split_list(variants))
        for (const std::string& a : cli::parse_algorithm_list("warpsort@" + v, c.values, {}, {}))
          if (std::find(c.algorithms.begin(), c.algorithms.end(), a) == c.algorithms.end())
            c.algorithms.push_back(a);
    cli::parse_bench_key_types(types, c);
    c.cpu_max_n = cli::parse_size(cpu_max_n);
    c.e2e = !no_e2e;
    return c;
  }
};

void add_bench_options(CLI::App& bench, bench_arguments& a) {
  bench.add_option("--sizes", a.sizes,
                   "sizes: comma list of integers, 2^k, and ranges 2^a..2^b (every power of two)")
      ->capture_default_str();
  bench.add_option("--dists", a.dists,
                   "distributions, comma list or 'all': " + cli::join(data::distribution_names()))
      ->capture_default_str();
  bench.add_option("--algos", a.algos,
                   "algorithms, comma list or 'all': " +
                       cli::join(cli::all_algorithm_names(baselines::gpu_baseline_names(),
                                                          baselines::cpu_baseline_names())) +
                       " (cub_merge and cub_radix always run with any GPU algorithm: the ratios need "
                       "them); with --values: warpsort, " +
                       cli::join(baselines::gpu_pair_baseline_names()) +
                       " (cub_merge_stable_pairs and cub_radix_pairs always run)")
      ->capture_default_str();
  bench.add_option("--variants", a.variants,
                   "the ablation's presets (v5: the library's default policy), comma list, each timed as "
                   "algorithm warpsort@NAME "
                   "beside --algos (keys only): " + cli::join(cli::preset_names()));
  bench.add_option("--values", a.values,
                   "none (keys only), or uint32 / uint64: sort (key, value) pairs whose values are "
                   "the input indices (argsort) with warpsort::sort_pairs and the pair baselines")
      ->capture_default_str();
  bench.add_option("--types", a.types, "key types, comma list or 'all' (supported: " +
                                           cli::join(cli::supported_key_type_names()) + ", " +
                                           data::key128_name +
                                           ": 16 bytes, two uint64 words under a lexicographic "
                                           "comparator, ascending only)")
      ->capture_default_str();
  bench.add_option("--reps", a.config.reps, "timed runs per measurement")->capture_default_str();
  bench.add_option("--warmup", a.config.warmup, "untimed (but validated) runs before them")
      ->capture_default_str();
  bench.add_option("--seed", a.config.seed, "seed of the generated inputs")->capture_default_str();
  bench.add_option("--out", a.config.out_dir, "output directory: writes DIR/bench.csv and DIR/bench.json")
      ->capture_default_str();
  bench.add_option("--cpu-max-n", a.cpu_max_n, "CPU baselines are skipped above this n")
      ->capture_default_str();
  bench.add_option("--cpu-reps", a.config.cpu_reps, "timed runs of each CPU baseline")
      ->capture_default_str();
  bench.add_option("--threads", a.config.threads, "threads of the parallel CPU baselines (0 = all)")
      ->capture_default_str();
  bench.add_flag("--no-e2e", a.no_e2e, "skip the end-to-end (host -> device -> host) timing");
  bench.add_flag("--quiet", a.config.quiet, "no progress lines and no summary table");
  bench.add_flag("--descending", a.config.descending,
                 "sort in descending order (warpsort::greater; the references too). Keys only, it "
                 "runs warpsort, cub_radix (SortKeysDescending) and cub_merge (greater) and skips "
                 "the other baselines; with --values every pair baseline sorts descending");
}

int dispatch(int argc, char** argv) {
  const std::string command = cli::command_line(std::vector<std::string>(argv, argv + argc));
  CLI::App app{"warpsort: GPU Warp Sort (Ye et al., IPDPS 2010) -- benchmarks, sorting, fuzzing, datasets",
               "warpsort"};
  app.require_subcommand(0, 1);
  bench_arguments bench_args;
  CLI::App* bench = app.add_subcommand(
      "bench", "benchmark warpsort against the GPU and CPU baselines; writes CSV and JSON");
  add_bench_options(*bench, bench_args);

  cli::sort_options sort_opts;
  std::string sort_type, sort_n;
  std::uint64_t sort_seed = 1;
  CLI::App* sort = app.add_subcommand(
      "sort", "sort a dataset file (--input) or generated keys (--dist, --n) with warpsort: in place, "
              "timed, validated against thrust::sort and cub::DeviceRadixSort");
  sort->add_option("--input", sort_opts.input, "dataset file (.npy, or raw little-endian keys with --type)");
  sort->add_option("--dist", sort_opts.distribution,
                   "instead of --input: generate the keys on the host, distribution: " +
                       cli::join(data::distribution_names()));
  CLI::Option* n_opt = sort->add_option(
      "--n", sort_n, "with --dist: number of keys (integer, 2^k, 2^a+b or 2^a-b, e.g. 2^32+12345)");
  CLI::Option* seed_opt = sort->add_option("--seed", sort_seed, "with --dist: seed (default 1)");
  sort->add_option("--output", sort_opts.output, "write the sorted keys here (.npy keeps the dtype)");
  CLI::Option* type_opt = sort->add_option(
      "--type", sort_type, "key type (raw files: required; --dist: default uint32; supported: " +
                               cli::join(cli::supported_key_type_names()) + ")");
  sort->add_flag("--descending", sort_opts.descending, "sort in descending order");
  sort->add_flag("--out-of-place", sort_opts.out_of_place,
                 "sort into a second buffer poisoned with 0xA5 (as `warpsort fuzz` does) instead of in place");
  sort->add_option("--values", sort_opts.values,
                   "none (keys only), or uint32 / uint64: argsort, sorting (key, index) pairs with "
                   "warpsort::sort_pairs (n < 2^32); validated against CUB's stable pair sorts")
      ->capture_default_str();
  sort->add_option("--reps", sort_opts.reps, "timed runs (each on a fresh upload)")->capture_default_str();
  sort->add_option("--warmup", sort_opts.warmup, "untimed runs first")->capture_default_str();

  cli::fuzz_options fuzz_opts;
  std::uint64_t fuzz_seed = 0;
  CLI::App* fuzz = app.add_subcommand(
      "fuzz", "differential fuzzing: random cases (key type, n, distribution, order, seed) sorted "
              "by warpsort and checked against thrust::sort and cub::DeviceRadixSort; one case in three "
              "sorts (key, index) pairs with sort_pairs, checked against CUB's stable pair sorts");
  fuzz->add_option("--seconds", fuzz_opts.seconds, "run for this many seconds")->required();
  CLI::Option* fuzz_seed_opt =
      fuzz->add_option("--seed", fuzz_seed, "seed of the case generator (default: from the clock, printed)");
  fuzz->add_option("--max-n", fuzz_opts.max_n, "largest n drawn (integer, 2^k, 2^a+b or 2^a-b)")
      ->capture_default_str();
  // Debug: proves that failures are reported (the first case with n >= 1 fails).
  fuzz->add_flag("--inject-failure", fuzz_opts.inject_failure,
                 "corrupt one output key before validation")
      ->group("");

  cli::generate_options gen_opts;
  CLI::App* generate = app.add_subcommand("generate", "write a dataset file (CPU only)");
  generate->add_option("--dist", gen_opts.distribution,
                       "distribution: " + cli::join(data::distribution_names()))
      ->required();
  generate->add_option("--n", gen_opts.n, "number of keys (integer, 2^k, 2^a+b or 2^a-b)")->required();
  generate->add_option("--seed", gen_opts.seed, "seed")->capture_default_str();
  generate->add_option("--output", gen_opts.output, "file to write (.npy, else raw)")->required();
  generate->add_option("--type", gen_opts.type,
                       "key type: uint32, int32, float32, uint64, int64, float64")
      ->capture_default_str();

  CLI::App* info = app.add_subcommand("info", "the build, the default policy and the CUDA devices");

  cli::components_options comp_opts;
  std::string comp_n = "2^28";
  CLI::App* components = app.add_subcommand(
      "components", "time the sort's parts on their own against a copy pass (uint32, uniform)");
  components->add_option("--n", comp_n, "number of keys (at least 2^20)")->capture_default_str();
  components->add_option("--reps", comp_opts.reps, "timed runs per part")->capture_default_str();
  components->add_option("--out", comp_opts.out, "also write the numbers to this JSON file");
#ifdef WARPSORT_WITH_DISTRIBUTED
  cli::dist_options dist_opts;
  dist_opts.self.assign(argv, argv + argc);
  CLI::App* dist = cli::add_dist_command(app, dist_opts);
#endif
  // After the subcommands, which would otherwise inherit it.
  app.footer(
      "Without a subcommand: the default experiment (about a minute on an H100): n = 2^20, 2^24, "
      "2^26; uniform, sorted, zero, randomized_duplicates, entropy_0.337; warpsort, cub_merge, "
      "cub_radix, thrust_sort, thrust_sort_comparator (and bitonic_textbook up to 2^24); 5 reps; "
      "writes results/default.csv and results/default.json.");


  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (*bench) return cli::run_bench(bench_args.to_config(), command);
  if (*sort) {
    if (*type_opt) sort_opts.type = sort_type;
    if (*n_opt) sort_opts.n = sort_n;
    if (*seed_opt) sort_opts.seed = sort_seed;
    return cli::run_sort(sort_opts);
  }
  if (*fuzz) {
    if (*fuzz_seed_opt) fuzz_opts.seed = fuzz_seed;
    return cli::run_fuzz(fuzz_opts);
  }
  if (*generate) return cli::run_generate(gen_opts);
  if (*info) return cli::run_info();
#ifdef WARPSORT_WITH_DISTRIBUTED
  if (*dist) return cli::run_dist(dist_opts);
#endif
  if (*components) {
    comp_opts.n = cli::parse_size(comp_n);
    return cli::run_components(comp_opts);
  }
  return cli::run_bench(cli::default_experiment(), command);
}

int fail(const char* message) {
  std::fflush(stdout);
  fmt::print(stderr, "warpsort: error: {}\n", message);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return dispatch(argc, argv);
  } catch (const warpsort::input_error& e) {
    return fail(e.what());
  } catch (const warpsort::cuda_error& e) {
    return fail(e.what());
  } catch (const std::exception& e) {
    return fail(e.what());
  } catch (...) {
    return fail("unknown exception");
  }
}

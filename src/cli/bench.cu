// The benchmark runner. The protocol (see results.cpp's method_description for the wording
// that goes into the JSON): per (key type, distribution, n) the keys are generated once on the
// host, uploaded once to a pristine device buffer, and both references are computed once; each
// algorithm then allocates its temporary storage, runs warm-ups and timed runs on a work buffer
// restored from the pristine copy before every run, and every run's output is validated.
// With --values (pairs mode) the same per (key type, distribution, n) for (key, index) pairs:
// pristine keys and values, one stable reference (warpsort::pair_reference_checker),
// warpsort::sort_pairs and the pair baselines; no end-to-end or CPU runs. Keys and pairs run
// through the same code: workload.cuh.
// With --descending everything (warpsort, the references) uses warpsort::greater: keys only,
// warpsort and CUB's descending sorts (baselines/cub_descending.cuh) run; pairs, every pair
// baseline.
#include "tuning.hpp"
#include "cli/bench.hpp"

#include "baselines/cpu_baselines.hpp"
#include "baselines/gpu_baselines.cuh"
#include "baselines/gpu_pair_baselines.cuh"
#include "cli/gpu_timing.cuh"
#include "cli/host_check.hpp"
#include "cli/key128_workload.cuh"
#include "cli/key_dispatch.hpp"
#include "cli/memory_check.hpp"
#include "cli/metadata.hpp"
#include "cli/metrics.hpp"
#include "cli/results.hpp"
#include "cli/workload.cuh"
#include "data/distributions.hpp"
#include "host/device_buffer.hpp"

#include <warpsort/warpsort.cuh>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <type_traits>

namespace warpsort::cli {
namespace {

using steady = std::chrono::steady_clock;

/// Device temporary bytes an algorithm needs for n items of workload W (for the memory check).
template <class W>
std::size_t temp_bytes_of(const std::string& algorithm, std::size_t n) {
  if (algorithm == "warpsort") return W::temp_bytes(n);
  if (is_warpsort_preset(algorithm)) {
    const sort_tuning t = preset_tuning(preset_of(algorithm), sizeof(typename W::key_type));
    return W::temp_bytes(n, &t);
  }
  return typename W::baseline(algorithm).temp_bytes(n);
}

/// What one (key type, distribution, n) provides to every algorithm run on it.
template <class W>
struct bench_input {
  using Key = typename W::key_type;
  std::string label;                // "uint32 uniform 2^24"
  std::string dist;
  std::size_t n = 0;
  std::vector<Key> keys;            // host keys (keys alone: the end-to-end source, the CPU input)
  typename W::buffers pristine;     // never sorted
  typename W::buffers work;         // restored from pristine before every run
  std::unique_ptr<typename W::checker> checker;
  // Keys alone, for end-to-end and CPU runs:
  std::vector<Key> reference;       // the thrust::sort reference on the host
  std::vector<Key> pageable_out;    // end-to-end buffers, allocated before timing
  pinned_buffer<Key> pinned_in, pinned_out;
};

class bench_runner {
 public:
  bench_runner(const bench_config& config, algorithm_plan plan)
      : config_(config), plan_(std::move(plan)), start_(steady::now()) {
    const std::size_t key_types = config.key_types.size() + (config.comparator_key ? 1 : 0);
    total_ = key_types * config.distributions.size() * config.sizes.size() *
             (plan_.gpu.size() + plan_.cpu.size());
  }

  void run() {
    const auto run_workload = [&](auto w) {
      for (const std::string& dist : config_.distributions)
        for (std::size_t n : config_.sizes) run_input<decltype(w)>(dist, n);
    };
    for (data::key_type type : config_.key_types)
      with_workload(type, config_.descending, config_.values, run_workload);
    if (config_.comparator_key) {
      if (config_.values == value_type::none)
        run_workload(key128_workload<no_values>{});
      else
        with_value_type(config_.values, [&](auto vtag) {
          run_workload(key128_workload<typename decltype(vtag)::type>{});
        });
    }
  }

  std::vector<result_row>& rows() { return rows_; }
  std::vector<std::string>& notes() { return notes_; }
  int failed_rows() const { return failed_rows_; }

 private:
  void note(const std::string& text) {
    if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(text);
  }

  void progress(const std::string& what, const std::string& outcome) {
    ++done_;
    if (config_.quiet) return;
    const double elapsed = std::chrono::duration<double>(steady::now() - start_).count();
    fmt::print(stderr, "[{}/{} +{:.1f}s] {}: {}\n", done_, total_, elapsed, what, outcome);
  }

  /// Prints every failed run loudly and marks the row.
  void report_failures(const std::string& what, const std::vector<std::string>& failures,
                       result_row& row) {
    if (failures.empty()) return;
    row.validated = false;
    ++failed_rows_;
    for (const std::string& f : failures)
      fmt::print(stderr, "warpsort: VALIDATION FAILED: {}: {}\n", what, f);
  }

  void finish_row(result_row& row, const std::string& what) {
    rows_.push_back(row);
    progress(what, fmt::format("{:.4f} ms ({:.3f} Gkeys/s) {}", row.median_ms,
                               row.keys_per_s / 1e9, row.validated ? "ok" : "VALIDATION FAILED"));
  }

  result_row new_row(const std::string& algorithm, const std::string& platform,
                     const std::string& type, const std::string& dist, std::size_t n) const {
    result_row row;
    row.algorithm = algorithm;
    row.platform = platform;
    row.key_type = type;
    row.distribution = dist;
    row.n = n;
    return row;
  }

  /// Bandwidth counts keys, and values for pairs.
  template <class W>
  void set_times(result_row& row, const std::vector<double>& times_ms) {
    const run_summary s = summarize(times_ms);
    row.reps = static_cast<int>(times_ms.size());
    row.median_ms = s.median_ms;
    row.min_ms = s.min_ms;
    row.max_ms = s.max_ms;
    row.keys_per_s = keys_per_second(row.n, s.median_ms);
    row.bandwidth_gbs = bandwidth_gbs(row.n, W::item_bytes, s.median_ms);
  }

  /// "uint32 uniform 2^20", with " descending" appended under --descending.
  std::string input_label(const std::string& type, const std::string& dist, std::size_t n) const {
    return fmt::format("{} {} {}{}", type, dist, format_size(n), config_.descending ? " descending" : "");
  }

  template <class W>
  void run_input(const std::string& dist, std::size_t n);
  template <class W>
  void run_gpu(const std::string& algorithm, bench_input<W>& in, cudaStream_t stream);
  template <class W>
  void run_cpu(const std::string& algorithm, const bench_input<W>& in);
  template <class W, class Sort>
  void measure_gpu(Sort&& sort, bool stable, bench_input<W>& in, cudaStream_t stream,
                   result_row& row, std::vector<std::string>& failures);

  const bench_config& config_;
  const algorithm_plan plan_;
  const steady::time_point start_;
  std::size_t total_ = 0, done_ = 0;
  std::vector<result_row> rows_;
  std::vector<std::string> notes_;
  int failed_rows_ = 0;
  cuda_stream stream_;
};

template <class W>
void bench_runner::run_input(const std::string& dist, std::size_t n) {
  using Key = typename W::key_type;
  const std::string label = input_label(W::type_name(), dist, n);

  // Which algorithms run at this n.
  std::vector<std::string> gpu, cpu, capped;
  for (const std::string& a : plan_.gpu) {
    const auto cap = config_.algorithm_max_n.find(a);
    if (cap != config_.algorithm_max_n.end() && n > cap->second) {
      progress(a + " " + label, "skipped (runs only up to n=" + format_size(cap->second) + ")");
      note(a + " runs only up to n=" + format_size(cap->second) + " in this experiment");
    } else if (!W::runs(a)) {
      progress(a + " " + label, "skipped (it does not sort " + W::type_name() + ")");
      note(a + " does not sort " + W::type_name() + " (no comparator form): skipped");
    } else if (W::has_values && a == "warpsort" && n > max_pairs) {
      progress(a + " " + label, "skipped (sort_pairs takes at most 2^32 - 1 pairs)");
      note("warpsort::sort_pairs takes at most 2^32 - 1 pairs: warpsort skipped at n=" + format_size(n));
    } else {
      gpu.push_back(a);
    }
  }
  for (const std::string& a : plan_.cpu) {  // keys alone: the pairs plan has no CPU algorithms
    if (!W::host_runs) {
      progress(a + " " + label, "skipped (the CPU baselines sort the built-in key types)");
    } else if (n > config_.cpu_max_n) {
      progress(a + " " + label, "skipped (n above --cpu-max-n)");
      capped.push_back(a);
    } else {
      cpu.push_back(a);
    }
  }
  if (!capped.empty())
    note(fmt::format("CPU baselines ({}) skipped at n={} (above --cpu-max-n={})", join(capped),
                     format_size(n), format_size(config_.cpu_max_n)));
  if (gpu.empty() && cpu.empty()) return;

  // Memory, before allocating anything for this n: an n that does not fit is skipped.
  const bool end_to_end = !W::has_values && W::host_runs && config_.e2e && !gpu.empty();
  try {
    std::size_t largest_temp = 0;
    for (const std::string& a : gpu) largest_temp = std::max(largest_temp, temp_bytes_of<W>(a, n));
    if constexpr (W::has_values) {
      require_device_memory(n, pairs_device_bytes_needed(n, sizeof(Key), sizeof(typename W::value_t),
                                                         largest_temp));
      require_host_memory(n, n * sizeof(Key) + (std::size_t{256} << 20));
    } else {
      require_device_memory(
          n, device_bytes_needed(n, sizeof(Key), largest_temp, std::is_floating_point_v<Key>));
      require_host_memory(n, host_bytes_needed(n, sizeof(Key), end_to_end, !cpu.empty()));
    }
  } catch (const input_error& e) {
    note("skipped " + label + ": " + e.what());
    fmt::print(stderr, "warpsort: skipping {}: {}\n", label, e.what());
    for (const auto& a : gpu) progress(a + " " + label, "skipped (does not fit in memory)");
    for (const auto& a : cpu) progress(a + " " + label, "skipped (does not fit in memory)");
    return;
  }

  const cudaStream_t stream = stream_.get();
  bench_input<W> in;
  in.label = label;
  in.dist = dist;
  in.n = n;
  in.keys = W::generate(dist, config_.seed, n);
  in.pristine = typename W::buffers(n);
  W::load(in.pristine, in.keys.data(), n, stream);
  // The references (built and checked once) before the work buffers: their check needs the room.
  in.checker = std::make_unique<typename W::checker>(in.pristine, n, stream);
  in.work = typename W::buffers(n);
  if constexpr (!W::has_values && W::host_runs) {
    if (end_to_end || !cpu.empty()) {
      in.reference.resize(n);
      download(in.reference.data(), in.checker->sorted_keys(), n, stream);
    }
    if (end_to_end) {
      in.pageable_out.assign(n, Key{});
      in.pinned_in = pinned_buffer<Key>(n);
      in.pinned_out = pinned_buffer<Key>(n);
      std::copy(in.keys.begin(), in.keys.end(), in.pinned_in.get());
      std::fill(in.pinned_out.get(), in.pinned_out.get() + n, Key{});
    }
  }

  // An algorithm that refuses this input (input_error) is skipped with a note; CUDA errors stop
  // the sweep (the context may be unusable).
  auto run_or_skip = [&](const std::string& a, auto&& run_one) {
    try {
      run_one();
    } catch (const input_error& e) {
      note("skipped " + a + " " + label + ": " + e.what());
      fmt::print(stderr, "warpsort: skipping {} {}: {}\n", a, label, e.what());
      progress(a + " " + label, "skipped (see notes)");
    }
  };
  for (const std::string& a : gpu) run_or_skip(a, [&] { run_gpu<W>(a, in, stream); });
  if constexpr (!W::has_values && W::host_runs)
    for (const std::string& a : cpu) run_or_skip(a, [&] { run_cpu<W>(a, in); });
}

/// The device-time runs of one algorithm (sort() sorts in.work in place), then, for keys with
/// --e2e, the end-to-end runs from pageable and from pinned host memory.
template <class W, class Sort>
void bench_runner::measure_gpu(Sort&& sort, bool stable, bench_input<W>& in, cudaStream_t stream,
                               result_row& row, std::vector<std::string>& failures) {
  const std::size_t n = in.n;
  const device_runs runs = time_device_runs([&] { W::copy(in.work, in.pristine, n, stream); }, sort,
                                            [&] { return in.checker->check(in.work, stable); },
                                            config_.warmup, config_.reps, stream);
  set_times<W>(row, runs.times_ms);
  failures.insert(failures.end(), runs.failures.begin(), runs.failures.end());
  if constexpr (!W::has_values && W::host_runs) {
    using Key = typename W::key_type;
    if (!config_.e2e) return;
    const Key* reference = in.reference.data();
    const std::function<std::string(const Key*)> check = [reference, n](const Key* result) {
      return host_mismatch_message(reference, result, n, "the reference (thrust::sort)");
    };
    Key* const d_work = in.work.keys.get();
    const device_runs pageable = time_end_to_end(sort, in.keys.data(), in.pageable_out.data(), d_work,
                                                 n, config_.warmup, config_.reps, check, stream);
    const device_runs pinned = time_end_to_end(sort, in.pinned_in.get(), in.pinned_out.get(), d_work,
                                               n, config_.warmup, config_.reps, check, stream);
    row.e2e_pageable_ms = median(pageable.times_ms);
    row.e2e_pinned_ms = median(pinned.times_ms);
    for (const auto* r : {&pageable, &pinned})
      failures.insert(failures.end(), r->failures.begin(), r->failures.end());
  }
}

template <class W>
void bench_runner::run_gpu(const std::string& algorithm, bench_input<W>& in, cudaStream_t stream) {
  const std::size_t n = in.n;
  const std::string what = algorithm + " " + in.label;
  result_row row = new_row(algorithm, "gpu", W::type_name(), in.dist, n);
  std::vector<std::string> failures;

  if (algorithm == "warpsort" || is_warpsort_preset(algorithm)) {
    // warpsort@PRESET: the preset for this key type, else the tuned policy
    const bool preset = is_warpsort_preset(algorithm);
    const sort_tuning tuning =
        preset ? preset_tuning(preset_of(algorithm), sizeof(typename W::key_type)) : sort_tuning{};
    const sort_tuning* const chosen = preset ? &tuning : nullptr;
    const std::size_t temp_bytes = W::temp_bytes(n, chosen);
    // Allocated before timing (at least 1 byte: a null d_temp would make the sort a size query).
    const detail::device_buffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
    auto sort = [&](stage_times* times) {
      std::size_t bytes = temp_bytes;
      W::sort(temp.get(), bytes, in.work, in.work, n, stream, times, chosen);
    };
    // Headline runs: no stage timing, so no extra events or synchronization inside the sort.
    // warpsort's pairs are stable, so they are checked exactly.
    measure_gpu<W>([&] { sort(nullptr); }, true, in, stream, row, failures);
    // Step breakdown: a separate set of runs with stage_times (validated too).
    std::vector<stage_times> steps;
    const device_runs step_runs = time_device_runs(
        [&] { W::copy(in.work, in.pristine, n, stream); },
        [&] {
          stage_times t;
          sort(&t);
          steps.push_back(t);
        },
        [&] { return in.checker->check(in.work, true); }, 0, config_.reps, stream);
    failures.insert(failures.end(), step_runs.failures.begin(), step_runs.failures.end());
    auto step_median = [&](float stage_times::*field) {
      std::vector<double> v;
      for (const auto& t : steps) v.push_back(t.*field);
      return median(v);
    };
    row.step1_ms = step_median(&stage_times::sort_chunks_ms);
    row.step2_ms = step_median(&stage_times::merge_sequences_ms);
    row.step3_ms = step_median(&stage_times::split_ms);
    row.step4_ms = step_median(&stage_times::merge_groups_ms);
    if (n > 0)
      row.footprint_bytes_per_key =
          static_cast<double>(n * W::item_bytes + temp_bytes) / static_cast<double>(n);
  } else {
    // Keys under --descending: cub_radix / cub_merge are CUB's descending sorts
    // (baselines/cub_descending.cuh); pairs: every pair baseline takes the order.
    typename W::baseline sorter(algorithm);
    sorter.prepare(n);  // temporary storage allocated before timing
    measure_gpu<W>([&] { sorter.sort(in.work, n, stream); }, sorter.stable(), in, stream, row,
                   failures);
  }
  report_failures(what, failures, row);
  finish_row(row, what);
}

template <class W>
void bench_runner::run_cpu(const std::string& algorithm, const bench_input<W>& in) {
  using Key = typename W::key_type;
  const std::size_t n = in.n;
  const std::string what = algorithm + " " + in.label;
  result_row row = new_row(algorithm, "cpu", W::type_name(), in.dist, n);
  std::vector<double> times;
  std::vector<std::string> failures;
  std::vector<Key> work(n);
  for (int run = 1; run <= config_.cpu_reps; ++run) {
    std::copy(in.keys.begin(), in.keys.end(), work.begin());  // a fresh copy, not timed
    const auto start = steady::now();
    baselines::cpu_sort<Key>(algorithm, work.data(), n, config_.threads);
    const auto stop = steady::now();
    times.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    const std::string problem =
        host_mismatch_message(in.reference.data(), work.data(), n, "the reference (thrust::sort)");
    if (!problem.empty()) failures.push_back("run " + std::to_string(run) + ": " + problem);
  }
  set_times<W>(row, times);
  report_failures(what, failures, row);
  finish_row(row, what);
}

/// out_dir/out_stem, to which ".csv" and ".json" are appended.
std::string output_stem(const bench_config& config) {
  return (std::filesystem::path(config.out_dir) / config.out_stem).string();
}

void write_results(const bench_config& config, const nlohmann::json& metadata,
                   std::vector<result_row>& rows, const std::vector<std::string>& notes) {
  fill_ratios(rows);
  const std::string stem = output_stem(config);
  write_csv(stem + ".csv", rows);
  write_json(stem + ".json", metadata,
             method_description(config.warmup, config.reps, config.cpu_reps, config.e2e, config.values),
             notes, rows);
}

}  // namespace

int run_bench(const bench_config& config, const std::string& command) {
  config.check();
  for (data::key_type t : config.key_types) require_supported(t);
  const bool pairs = config.values != value_type::none;
  algorithm_plan plan =
      pairs ? plan_pair_algorithms(config.algorithms, baselines::gpu_pair_baseline_names())
            : plan_algorithms(config.algorithms, baselines::gpu_baseline_names(),
                              baselines::cpu_baseline_names());
  // Descending, keys only: the other baselines sort ascending only (an input_error, before the
  // device, when nothing requested is left).
  const std::vector<std::string> not_descending =
      config.descending && !pairs ? restrict_to_descending(plan) : std::vector<std::string>{};
  // Even CPU-only runs need the device: the references are thrust::sort and CUB on the GPU.
  if (const device_inventory inv = query_devices(); !inv.unavailable.empty())
    throw cuda_error(cudaErrorNoDevice, inv.unavailable);

  nlohmann::json metadata = run_metadata(command, config.seed);
  std::vector<std::string> sizes;
  for (std::size_t n : config.sizes) sizes.push_back(format_size(n));
  std::vector<std::string> types;
  for (data::key_type t : config.key_types)
    types.push_back(pair_type_name(data::key_type_name(t), config.values));
  if (config.comparator_key) types.push_back(pair_type_name(data::key128_name, config.values));
  metadata["config"] = {{"sizes", sizes},
                        {"distributions", config.distributions},
                        {"key_types", types},
                        {"algorithms_requested", config.algorithms},
                        {"gpu_algorithms", plan.gpu},
                        {"cpu_algorithms", plan.cpu},
                        {"added_for_ratios", plan.added},
                        {"reps", config.reps},
                        {"warmup", config.warmup},
                        {"cpu_reps", config.cpu_reps},
                        {"cpu_max_n", config.cpu_max_n},
                        {"cpu_threads", config.threads},
                        {"values", value_type_name(config.values)},
                        {"end_to_end", config.e2e && !pairs},
                        {"descending", config.descending}};

  bench_runner runner(config, plan);
  if (!plan.added.empty())
    runner.notes().push_back(join(plan.added) + " ran although not listed: the ratio columns need " +
                             (pairs ? "cub_merge_stable_pairs and cub_radix_pairs" : "cub_merge and cub_radix"));
  if (pairs) {
    runner.notes().push_back(
        "pairs (--values " + value_type_name(config.values) + "): values are the input indices "
        "(argsort); ratio_vs_cub_merge is against cub::DeviceMergeSort::StableSortPairs "
        "(cub_merge_stable_pairs), ratio_vs_cub_radix against cub::DeviceRadixSort::SortPairs "
        "(cub_radix_pairs); bandwidth counts keys and values");
    if (config.e2e) runner.notes().push_back("end-to-end timing is not measured for pairs (e2e columns empty)");
  }
  if (config.descending) {
    runner.notes().push_back(
        pairs ? "descending (--descending): warpsort::sort_pairs and the stable reference use "
                "warpsort::greater; every pair baseline sorts descending"
              : "descending (--descending): warpsort and the references use warpsort::greater; "
                "cub_radix is cub::DeviceRadixSort::SortKeysDescending, cub_merge "
                "cub::DeviceMergeSort::SortKeys with warpsort::greater");
    if (!not_descending.empty())
      runner.notes().push_back("skipped with --descending (they sort ascending only): " +
                               join(not_descending));
  }
  try {
    runner.run();
  } catch (const std::exception& e) {
    // Keep what was measured: write it, marked as aborted, then let the error reach main.
    runner.notes().push_back(std::string("ABORTED: ") + e.what());
    try {
      write_results(config, metadata, runner.rows(), runner.notes());
      fmt::print(stderr, "warpsort: partial results written to {}.csv and .json\n", output_stem(config));
    } catch (const std::exception&) {
    }
    throw;
  }
  write_results(config, metadata, runner.rows(), runner.notes());
  if (!config.quiet) print_summary(stdout, runner.rows(), runner.notes(), config.descending);
  fmt::print("\nwrote {0}.csv and {0}.json ({1} rows)\n", output_stem(config), runner.rows().size());
  if (runner.failed_rows() > 0) {
    fmt::print(stderr, "warpsort: VALIDATION FAILED in {} row(s); see above and validated=false\n",
               runner.failed_rows());
    return 1;
  }
  return 0;
}

}  // namespace warpsort::cli

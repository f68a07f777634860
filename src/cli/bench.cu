// The benchmark runner. The protocol (see results.cpp's method_description for the wording
// that goes into the JSON): per (key type, distribution, n) the keys are generated once on the
// host, uploaded once to a pristine device buffer, and both references are computed once; each
// algorithm then allocates its temporary storage, runs warm-ups and timed runs on a work buffer
// restored from the pristine copy before every run, and every run's output is validated.
// With --values (pairs mode) the same per (key type, distribution, n) for (key, index) pairs:
// pristine keys and values, one stable reference (pair_check.cuh), warpsort::sort_pairs and the
// pair baselines; no end-to-end or CPU runs.
// With --descending everything (warpsort, the references) uses warpsort::greater: keys only,
// warpsort and CUB's descending sorts (baselines/cub_descending.cuh) run; pairs, every pair
// baseline.
#include "tuning.hpp"
#include "cli/bench.hpp"

#include "baselines/cpu_baselines.hpp"
#include "baselines/cub_descending.cuh"
#include "baselines/gpu_baselines.cuh"
#include "baselines/gpu_pair_baselines.cuh"
#include "cli/gpu_timing.cuh"
#include "cli/host_check.hpp"
#include "cli/key_dispatch.hpp"
#include "cli/memory_check.hpp"
#include "cli/metadata.hpp"
#include "cli/metrics.hpp"
#include "cli/pair_check.cuh"
#include "cli/results.hpp"
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

/// Device temporary bytes an algorithm needs for n keys (for the memory check).
template <class Key, class Comp>
std::size_t temp_bytes_of(const std::string& algorithm, std::size_t n) {
  if (algorithm == "warpsort") {
    std::size_t bytes = 0;
    sort_keys<Key, Comp>(nullptr, bytes, nullptr, nullptr, n, Comp{}, 0, tuned_policy<Key>());
    return bytes;
  }
  return baselines::make_keys_sorter<Key>(algorithm, order_traits<Key, Comp>::descending)->temp_bytes(n);
}

/// What one (key type, distribution, n) provides to every algorithm run on it; Comp is the order.
template <class Key, class Comp>
struct bench_input {
  std::string label;                   // "uint32 uniform 2^24"
  std::string dist;
  std::size_t n = 0;
  std::vector<Key> keys;               // host keys (also the pageable end-to-end source)
  detail::device_buffer<Key> pristine; // never sorted
  detail::device_buffer<Key> work;     // restored from pristine before every run
  std::unique_ptr<reference_checker<Key, Comp>> checker;
  std::vector<Key> reference;          // the thrust::sort reference on the host (e2e, CPU)
  std::vector<Key> pageable_out;       // end-to-end buffers, allocated before timing
  pinned_buffer<Key> pinned_in, pinned_out;
};

/// Device temporary bytes a pairs algorithm needs for n pairs (as its size query returns).
template <class Key, class Value, class Comp>
std::size_t pair_temp_bytes_of(const std::string& algorithm, std::size_t n) {
  if (algorithm == "warpsort") return warpsort_pair_temp_bytes<Key, Value, Comp>(n);
  return baselines::make_gpu_pair_baseline<Key, Value>(algorithm)->temp_bytes(n);
}

/// What one (key type, distribution, n) provides to every pairs algorithm run on it.
template <class Key, class Value, class Comp>
struct bench_pair_input {
  std::string label;  // "uint32+uint32 uniform 2^24"
  std::string type;   // "uint32+uint32"
  std::string dist;
  std::size_t n = 0;
  detail::device_buffer<Key> pristine_keys;      // never sorted
  detail::device_buffer<Value> pristine_values;  // 0..n-1, never sorted
  detail::device_buffer<Key> work_keys;          // restored from the pristine copies before every run
  detail::device_buffer<Value> work_values;
  std::unique_ptr<pair_checker<Key, Value, Comp>> checker;
};

/// Sorts the pairs (d_keys, d_values) in place on a stream; everything it needs is allocated
/// beforehand.
template <class Key, class Value>
using pair_sort_fn = std::function<void(Key* d_keys, Value* d_values, cudaStream_t stream)>;

/// time_device_runs for pairs: for each of `warmup` + `reps` runs, restore the work keys AND
/// values from the pristine copies (not timed), record an event, sort, record an event, then
/// check the output (`stable`: against the stable reference exactly).
template <class Key, class Value, class Comp>
device_runs time_pair_runs(const pair_sort_fn<Key, Value>& sort, bench_pair_input<Key, Value, Comp>& in,
                           bool stable, int warmup, int reps, cudaStream_t stream) {
  device_runs runs;
  event_timer timer;
  const std::size_t n = in.n;
  for (int run = 0; run < warmup + reps; ++run) {
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(in.work_keys.get(), in.pristine_keys.get(), n * sizeof(Key),
                                        cudaMemcpyDeviceToDevice, stream));
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(in.work_values.get(), in.pristine_values.get(),
                                        n * sizeof(Value), cudaMemcpyDeviceToDevice, stream));
    timer.start(stream);
    sort(in.work_keys.get(), in.work_values.get(), stream);
    const float ms = timer.stop(stream);
    const bool timed = run >= warmup;
    if (timed) runs.times_ms.push_back(ms);
    const std::string problem = in.checker->check(in.work_keys.get(), in.work_values.get(), stable);
    if (!problem.empty())
      runs.failures.push_back((timed ? "timed run " + std::to_string(run - warmup + 1)
                                     : "warm-up run " + std::to_string(run + 1)) +
                              ": " + problem);
  }
  return runs;
}

class bench_runner {
 public:
  bench_runner(const bench_config& config, algorithm_plan plan)
      : config_(config), plan_(std::move(plan)), start_(steady::now()) {
    total_ = config.key_types.size() * config.distributions.size() * config.sizes.size() *
             (plan_.gpu.size() + plan_.cpu.size());
  }

  void run() {
    for (data::key_type type : config_.key_types)
      with_key_and_order(type, config_.descending, [&](auto tag, auto comp) {
        using Key = typename decltype(tag)::type;
        using Comp = decltype(comp);
        if (config_.values == value_type::none) {
          for (const std::string& dist : config_.distributions)
            for (std::size_t n : config_.sizes) run_input<Key, Comp>(dist, n);
          return;
        }
        with_value_type(config_.values, [&](auto vtag) {
          using Value = typename decltype(vtag)::type;
          for (const std::string& dist : config_.distributions)
            for (std::size_t n : config_.sizes) run_pair_input<Key, Value, Comp>(dist, n);
        });
      });
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

  /// Value = void: keys only; else bandwidth counts keys and values.
  template <class Key, class Value = void>
  void set_times(result_row& row, const std::vector<double>& times_ms) {
    const run_summary s = summarize(times_ms);
    row.reps = static_cast<int>(times_ms.size());
    row.median_ms = s.median_ms;
    row.min_ms = s.min_ms;
    row.max_ms = s.max_ms;
    row.keys_per_s = keys_per_second(row.n, s.median_ms);
    std::size_t item_bytes = sizeof(Key);
    if constexpr (!std::is_void_v<Value>) item_bytes += sizeof(Value);
    row.bandwidth_gbs = bandwidth_gbs(row.n, item_bytes, s.median_ms);
  }

  /// "uint32 uniform 2^20", with " descending" appended under --descending.
  std::string input_label(const std::string& type, const std::string& dist, std::size_t n) const {
    return fmt::format("{} {} {}{}", type, dist, format_size(n), config_.descending ? " descending" : "");
  }

  template <class Key, class Value, class Comp>
  void run_pair_input(const std::string& dist, std::size_t n);
  template <class Key, class Value, class Comp>
  void run_pair_gpu(const std::string& algorithm, bench_pair_input<Key, Value, Comp>& in,
                    cudaStream_t stream);

  template <class Key, class Comp>
  void run_input(const std::string& dist, std::size_t n);
  template <class Key, class Comp>
  void run_gpu(const std::string& algorithm, bench_input<Key, Comp>& in, cudaStream_t stream);
  template <class Key, class Comp>
  void run_cpu(const std::string& algorithm, const bench_input<Key, Comp>& in);
  template <class Key, class Comp>
  void measure_gpu(const device_sort_fn<Key>& sort, bench_input<Key, Comp>& in, cudaStream_t stream,
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

template <class Key, class Comp>
void bench_runner::run_input(const std::string& dist, std::size_t n) {
  const std::string type = data::key_type_name(data::key_type_of<Key>());
  const std::string label = input_label(type, dist, n);

  // Which algorithms run at this n.
  std::vector<std::string> gpu, cpu, capped;
  for (const std::string& a : plan_.gpu) {
    const auto cap = config_.algorithm_max_n.find(a);
    if (cap != config_.algorithm_max_n.end() && n > cap->second) {
      progress(a + " " + label, "skipped (runs only up to n=" + format_size(cap->second) + ")");
      note(a + " runs only up to n=" + format_size(cap->second) + " in this experiment");
    } else {
      gpu.push_back(a);
    }
  }
  for (const std::string& a : plan_.cpu) {
    if (n > config_.cpu_max_n) {
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
  const bool end_to_end = config_.e2e && !gpu.empty();
  try {
    std::size_t largest_temp = 0;
    for (const std::string& a : gpu)
      largest_temp = std::max(largest_temp, temp_bytes_of<Key, Comp>(a, n));
    require_device_memory(n, device_bytes_needed(n, sizeof(Key), largest_temp, std::is_floating_point_v<Key>));
    require_host_memory(n, host_bytes_needed(n, sizeof(Key), end_to_end, !cpu.empty()));
  } catch (const input_error& e) {
    note("skipped " + label + ": " + e.what());
    fmt::print(stderr, "warpsort: skipping {}: {}\n", label, e.what());
    for (const auto& a : gpu) progress(a + " " + label, "skipped (does not fit in memory)");
    for (const auto& a : cpu) progress(a + " " + label, "skipped (does not fit in memory)");
    return;
  }

  const cudaStream_t stream = stream_.get();
  bench_input<Key, Comp> in;
  in.label = label;
  in.dist = dist;
  in.n = n;
  in.keys = data::generate<Key>(dist, config_.seed, n);
  in.pristine = detail::device_buffer<Key>(n);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(in.pristine.get(), in.keys.data(), n * sizeof(Key),
                                      cudaMemcpyHostToDevice, stream));
  in.checker = std::make_unique<reference_checker<Key, Comp>>(in.pristine.get(), n, Comp{}, stream);
  in.work = detail::device_buffer<Key>(n);
  if (end_to_end || !cpu.empty()) {
    in.reference.resize(n);
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(in.reference.data(), in.checker->sorted(), n * sizeof(Key),
                                        cudaMemcpyDeviceToHost, stream));
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  if (end_to_end) {
    in.pageable_out.assign(n, Key{});
    in.pinned_in = pinned_buffer<Key>(n);
    in.pinned_out = pinned_buffer<Key>(n);
    std::copy(in.keys.begin(), in.keys.end(), in.pinned_in.get());
    std::fill(in.pinned_out.get(), in.pinned_out.get() + n, Key{});
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
  for (const std::string& a : gpu) run_or_skip(a, [&] { run_gpu<Key, Comp>(a, in, stream); });
  for (const std::string& a : cpu) run_or_skip(a, [&] { run_cpu<Key, Comp>(a, in); });
}

template <class Key, class Comp>
void bench_runner::measure_gpu(const device_sort_fn<Key>& sort, bench_input<Key, Comp>& in,
                               cudaStream_t stream, result_row& row,
                               std::vector<std::string>& failures) {
  const std::size_t n = in.n;
  device_runs runs = time_device_runs<Key>(sort, in.pristine.get(), in.work.get(), n,
                                           config_.warmup, config_.reps, *in.checker, stream);
  set_times<Key>(row, runs.times_ms);
  failures.insert(failures.end(), runs.failures.begin(), runs.failures.end());
  if (!config_.e2e) return;

  const Key* reference = in.reference.data();
  const std::function<std::string(const Key*)> check = [reference, n](const Key* result) {
    return host_mismatch_message(reference, result, n, "the reference (thrust::sort)");
  };
  device_runs pageable = time_end_to_end<Key>(sort, in.keys.data(), in.pageable_out.data(),
                                              in.work.get(), n, config_.warmup, config_.reps,
                                              check, stream);
  device_runs pinned = time_end_to_end<Key>(sort, in.pinned_in.get(), in.pinned_out.get(),
                                            in.work.get(), n, config_.warmup, config_.reps, check,
                                            stream);
  row.e2e_pageable_ms = median(pageable.times_ms);
  row.e2e_pinned_ms = median(pinned.times_ms);
  for (const auto* r : {&pageable, &pinned})
    failures.insert(failures.end(), r->failures.begin(), r->failures.end());
}

template <class Key, class Comp>
void bench_runner::run_gpu(const std::string& algorithm, bench_input<Key, Comp>& in, cudaStream_t stream) {
  const std::size_t n = in.n;
  const std::string what = algorithm + " " + in.label;
  result_row row = new_row(algorithm, "gpu", data::key_type_name(data::key_type_of<Key>()),
                           in.dist, n);
  std::vector<std::string> failures;

  if (algorithm == "warpsort") {
    using order = Comp;
    std::size_t temp_bytes = 0;
    sort_keys<Key, order>(nullptr, temp_bytes, in.work.get(), in.work.get(), n, order{}, 0,
                          tuned_policy<Key>());
    // Allocated before timing (at least 1 byte: a null d_temp would make sort_keys a size query).
    const detail::device_buffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
    // Headline runs: no stage timing, so no extra events or synchronization inside the sort.
    const device_sort_fn<Key> sort = [&](Key* d_keys, cudaStream_t s) {
      std::size_t bytes = temp_bytes;
      sort_keys<Key, order>(temp.get(), bytes, d_keys, d_keys, n, order{}, s, tuned_policy<Key>());
    };
    measure_gpu<Key, Comp>(sort, in, stream, row, failures);
    // Step breakdown: a separate set of runs with stage_times (validated too).
    std::vector<stage_times> steps;
    const device_sort_fn<Key> sort_with_steps = [&](Key* d_keys, cudaStream_t s) {
      std::size_t bytes = temp_bytes;
      stage_times t;
      sort_keys<Key, order>(temp.get(), bytes, d_keys, d_keys, n, order{}, s, tuned_policy<Key>(), &t);
      steps.push_back(t);
    };
    const device_runs step_runs = time_device_runs<Key>(sort_with_steps, in.pristine.get(),
                                                        in.work.get(), n, 0, config_.reps,
                                                        *in.checker, stream);
    failures.insert(failures.end(), step_runs.failures.begin(), step_runs.failures.end());
    auto step_median = [&](float stage_times::*field) {
      std::vector<double> v;
      for (const auto& t : steps) v.push_back(t.*field);
      return median(v);
    };
    row.step1_ms = step_median(&stage_times::sort_chunks_ms);
    row.step2_ms = step_median(&stage_times::merge_pairs_ms);
    row.step3_ms = step_median(&stage_times::split_ms);
    row.step4_ms = step_median(&stage_times::merge_groups_ms);
    if (n > 0)
      row.footprint_bytes_per_key =
          static_cast<double>(n * sizeof(Key) + temp_bytes) / static_cast<double>(n);
  } else {
    // Descending: cub_radix / cub_merge are CUB's descending sorts
    // (baselines/cub_descending.cuh).
    std::unique_ptr<baselines::gpu_sorter<Key>> sorter =
        baselines::make_keys_sorter<Key>(algorithm, order_traits<Key, Comp>::descending);
    sorter->prepare(n);  // temporary storage allocated before timing
    const device_sort_fn<Key> sort = [&](Key* d_keys, cudaStream_t s) { sorter->sort(d_keys, n, s); };
    measure_gpu<Key, Comp>(sort, in, stream, row, failures);
  }
  report_failures(what, failures, row);
  finish_row(row, what);
}

template <class Key, class Comp>
void bench_runner::run_cpu(const std::string& algorithm, const bench_input<Key, Comp>& in) {
  const std::size_t n = in.n;
  const std::string what = algorithm + " " + in.label;
  result_row row = new_row(algorithm, "cpu", data::key_type_name(data::key_type_of<Key>()),
                           in.dist, n);
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
  set_times<Key>(row, times);
  report_failures(what, failures, row);
  finish_row(row, what);
}

template <class Key, class Value, class Comp>
void bench_runner::run_pair_input(const std::string& dist, std::size_t n) {
  const std::string type = pair_type_name(data::key_type_name(data::key_type_of<Key>()), config_.values);
  const std::string label = input_label(type, dist, n);

  std::vector<std::string> gpu;
  for (const std::string& a : plan_.gpu) {
    const auto cap = config_.algorithm_max_n.find(a);
    if (cap != config_.algorithm_max_n.end() && n > cap->second) {
      progress(a + " " + label, "skipped (runs only up to n=" + format_size(cap->second) + ")");
      note(a + " runs only up to n=" + format_size(cap->second) + " in this experiment");
    } else if (a == "warpsort" && n > max_pairs) {
      progress(a + " " + label, "skipped (sort_pairs takes at most 2^32 - 1 pairs)");
      note("warpsort::sort_pairs takes at most 2^32 - 1 pairs: warpsort skipped at n=" + format_size(n));
    } else {
      gpu.push_back(a);
    }
  }
  if (gpu.empty()) return;

  // Memory, before allocating anything for this n: an n that does not fit is skipped.
  try {
    std::size_t largest_temp = 0;
    for (const std::string& a : gpu)
      largest_temp = std::max(largest_temp, pair_temp_bytes_of<Key, Value, Comp>(a, n));
    require_device_memory(n, pairs_device_bytes_needed(n, sizeof(Key), sizeof(Value), largest_temp));
    require_host_memory(n, n * sizeof(Key) + (std::size_t{256} << 20));
  } catch (const input_error& e) {
    note("skipped " + label + ": " + e.what());
    fmt::print(stderr, "warpsort: skipping {}: {}\n", label, e.what());
    for (const auto& a : gpu) progress(a + " " + label, "skipped (does not fit in memory)");
    return;
  }

  const cudaStream_t stream = stream_.get();
  bench_pair_input<Key, Value, Comp> in;
  in.label = label;
  in.type = type;
  in.dist = dist;
  in.n = n;
  {
    const std::vector<Key> keys = data::generate<Key>(dist, config_.seed, n);
    in.pristine_keys = detail::device_buffer<Key>(n);
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(in.pristine_keys.get(), keys.data(), n * sizeof(Key),
                                        cudaMemcpyHostToDevice, stream));
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(stream));  // before `keys` goes
  }
  in.pristine_values = detail::device_buffer<Value>(n);
  fill_indices(in.pristine_values.get(), n, stream);
  // The reference (built and checked once) before the work buffers: its check needs the room.
  in.checker = std::make_unique<pair_checker<Key, Value, Comp>>(in.pristine_keys.get(),
                                                          in.pristine_values.get(), n, stream);
  in.work_keys = detail::device_buffer<Key>(n);
  in.work_values = detail::device_buffer<Value>(n);

  for (const std::string& a : gpu) {
    try {
      run_pair_gpu<Key, Value, Comp>(a, in, stream);
    } catch (const input_error& e) {
      note("skipped " + a + " " + label + ": " + e.what());
      fmt::print(stderr, "warpsort: skipping {} {}: {}\n", a, label, e.what());
      progress(a + " " + label, "skipped (see notes)");
    }
  }
}

template <class Key, class Value, class Comp>
void bench_runner::run_pair_gpu(const std::string& algorithm, bench_pair_input<Key, Value, Comp>& in,
                                cudaStream_t stream) {
  const std::size_t n = in.n;
  const std::string what = algorithm + " " + in.label;
  result_row row = new_row(algorithm, "gpu", in.type, in.dist, n);
  std::vector<std::string> failures;
  auto add_failures = [&](const device_runs& runs) {
    failures.insert(failures.end(), runs.failures.begin(), runs.failures.end());
  };

  if (algorithm == "warpsort") {
    using order = Comp;
    const std::size_t temp_bytes = warpsort_pair_temp_bytes<Key, Value, order>(n);
    // Allocated before timing (at least 1 byte: a null d_temp would make sort_pairs a size query).
    const detail::device_buffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
    // Headline runs: no stage timing.
    const pair_sort_fn<Key, Value> sort = [&](Key* k, Value* v, cudaStream_t s) {
      std::size_t bytes = temp_bytes;
      sort_pairs<Key, Value, order>(temp.get(), bytes, k, k, v, v, n, order{}, s,
                                    tuned_policy<Key>());
    };
    const device_runs runs = time_pair_runs<Key, Value, Comp>(sort, in, true, config_.warmup, config_.reps, stream);
    set_times<Key, Value>(row, runs.times_ms);
    add_failures(runs);
    // Step breakdown: a separate set of runs with stage_times (validated too).
    std::vector<stage_times> steps;
    const pair_sort_fn<Key, Value> sort_with_steps = [&](Key* k, Value* v, cudaStream_t s) {
      std::size_t bytes = temp_bytes;
      stage_times t;
      sort_pairs<Key, Value, order>(temp.get(), bytes, k, k, v, v, n, order{}, s,
                                    tuned_policy<Key>(), &t);
      steps.push_back(t);
    };
    add_failures(time_pair_runs<Key, Value, Comp>(sort_with_steps, in, true, 0, config_.reps, stream));
    auto step_median = [&](float stage_times::*field) {
      std::vector<double> v;
      for (const auto& t : steps) v.push_back(t.*field);
      return median(v);
    };
    row.step1_ms = step_median(&stage_times::sort_chunks_ms);
    row.step2_ms = step_median(&stage_times::merge_pairs_ms);
    row.step3_ms = step_median(&stage_times::split_ms);
    row.step4_ms = step_median(&stage_times::merge_groups_ms);
    if (n > 0)
      row.footprint_bytes_per_key =
          static_cast<double>(n * (sizeof(Key) + sizeof(Value)) + temp_bytes) / static_cast<double>(n);
  } else {
    std::unique_ptr<baselines::gpu_pair_sorter<Key, Value>> sorter =
        baselines::make_gpu_pair_baseline<Key, Value>(algorithm);
    sorter->prepare(n);  // temporary storage allocated before timing
    const pair_sort_fn<Key, Value> sort = [&](Key* k, Value* v, cudaStream_t s) {
      sorter->sort(k, v, n, order_traits<Key, Comp>::descending, s);
    };
    const device_runs runs =
        time_pair_runs<Key, Value, Comp>(sort, in, sorter->stable(), config_.warmup, config_.reps, stream);
    set_times<Key, Value>(row, runs.times_ms);
    add_failures(runs);
  }
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

// `warpsort sort`: sort a dataset file, or keys generated on the host, with warpsort; time,
// validate, and write the result. Memory-lean so that inputs near the device's capacity fit:
// one device buffer sorted in place plus warpsort's temporary storage while sorting; the
// temporary storage freed and the input uploaded again only for validation (see
// sort_device_bytes_needed for the estimate checked before anything is allocated).
#include "tuning.hpp"
#include "cli/bench_config.hpp"
#include "cli/commands.hpp"
#include "cli/gpu_timing.cuh"
#include "cli/key_dispatch.hpp"
#include "cli/memory_check.hpp"
#include "cli/metadata.hpp"
#include "cli/metrics.hpp"
#include "cli/workload.cuh"
#include "data/dataset_io.hpp"
#include "data/distributions.hpp"
#include "host/device_buffer.hpp"

#include <warpsort/warpsort.cuh>

#include <cuda_profiler_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <filesystem>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace warpsort::cli {
namespace {

/// The device and the room on it, checked before anything is allocated or generated.
struct device_check {
  std::string device_name;
  std::size_t temp_bytes = 0;
  std::size_t needed_bytes = 0;
  std::size_t free_bytes = 0;
};

template <class W>
device_check check_device(std::size_t n, bool out_of_place) {
  const device_inventory inv = query_devices();
  if (!inv.unavailable.empty()) throw cuda_error(cudaErrorNoDevice, inv.unavailable);
  device_check d;
  int current = 0;
  WARPSORT_CUDA_CHECK(cudaGetDevice(&current));
  for (const auto& dev : inv.devices)
    if (dev.index == current) d.device_name = dev.name;
  d.temp_bytes = W::temp_bytes(n);
  d.needed_bytes = W::sort_device_bytes(n, d.temp_bytes, out_of_place);
  require_device_memory(n, d.needed_bytes);
  d.free_bytes = device_bytes_free();
  return d;
}

/// n < 2^32 for --values, checked before anything else (warpsort::sort_pairs' limit).
void require_pair_count(std::size_t n) {
  if (n > max_pairs)
    throw input_error(fmt::format("--values: warpsort::sort_pairs sorts at most 2^32 - 1 = {} pairs; "
                                  "n = {} is too many (sort keys only, without --values)",
                                  max_pairs, n));
}

/// FILE.values.EXT for --output FILE.EXT (the sorted values of a --values run).
std::string values_path(const std::string& output) {
  const std::filesystem::path p(output);
  std::filesystem::path v = p;
  v.replace_filename(p.stem().string() + ".values" + p.extension().string());
  return v.string();
}

/// Version 4's pairwise plan in words (the small-input path, or one of the ablation's designs).
std::string pairwise_line(const ablation::pairwise_plan& p) {
  std::string line = fmt::format(
      "{} chunks of {} keys sorted and merged on chip into blocks of {} keys (step 1); {} merge "
      "round(s) (step 2) -> L = {} sequence(s) of {} keys",
      p.chunks, policy::chunk_keys, p.sequence_keys >> p.pairwise_rounds, p.pairwise_rounds,
      p.sequences, p.sequence_keys);
  if (p.has_groups())
    line += fmt::format("; split (step 3): sample stride s = {}, M = {} samples -> S = {} groups "
                        "of at most {} keys (step 4)",
                        p.sample_stride, p.samples, p.groups, p.group_bound);
  else
    line += "; no split or group merge (one sequence)";
  return line;
}

/// The plan in words: the rounds of steps 3 and 4, or the small-input path's pairwise merges.
std::string plan_line(const sized_plan& s) {
  if (s.n == 0) return "nothing to sort (n = 0)";
  if (s.pairwise)
    return "version 4's pairwise path: " +
           pairwise_line(ablation::make_plan(s.n, ablation::small_input_design(s.n, s.key_bytes)));
  const sort_plan& p = s.plan;
  std::string line = fmt::format(
      "{} chunks of {} keys sorted on chip into blocks of {} keys (step 1); {} round(s) of "
      "sampling, splitting and merging sets of sequences (steps 3 and 4; the rounds before the "
      "last are timed as step 2)",
      p.chunks, policy::chunk_keys, s.tuning.block_sort_keys, p.round_count);
  for (int r = 0; r < p.round_count; ++r) {
    const merge_round& m = p.rounds[r];
    line += fmt::format("; round {}: {} sequence(s) of {} keys in {} set(s) of k = {}, {} groups",
                        r + 1, m.sequences, m.sequence_keys, m.sets, m.set_sequences, m.groups);
  }
  return line;
}

/// The runs of one `warpsort sort`, each from prepare() (untimed): o.warmup warm-ups, one run
/// with stage_times (events between the steps), then o.reps runs timed by CUDA events around the
/// sort call alone. The step-timed run is also the one sort a profiler started with
/// --profile-from-start off sees (scripts/profile_kernels.sh).
struct sort_runs {
  stage_times steps;
  std::vector<double> times_ms;
};

template <class Prepare, class Sort>
sort_runs run_sorts(const sort_options& o, cudaStream_t s, Prepare prepare, Sort sort) {
  for (int w = 0; w < o.warmup; ++w) {
    prepare();
    sort(nullptr);
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  sort_runs runs;
  prepare();
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  WARPSORT_CUDA_CHECK(cudaProfilerStart());
  sort(&runs.steps);
  WARPSORT_CUDA_CHECK(cudaStreamSynchronize(s));
  WARPSORT_CUDA_CHECK(cudaProfilerStop());
  event_timer timer;
  for (int r = 0; r < o.reps; ++r) {
    prepare();
    timer.start(s);
    sort(nullptr);
    runs.times_ms.push_back(timer.stop(s));
  }
  return runs;
}

/// The timing lines both sorts print: the median (min, max) and the four steps.
void print_runs(const char* what, const char* rate, std::size_t n, const sort_runs& runs) {
  const run_summary t = summarize(runs.times_ms);
  fmt::print("{}: median {:.4f} ms (min {:.4f}, max {:.4f}) over {} run(s): {:.3f} {}\n", what,
             t.median_ms, t.min_ms, t.max_ms, runs.times_ms.size(),
             keys_per_second(n, t.median_ms) / 1e9, rate);
  const stage_times& st = runs.steps;
  fmt::print("steps (ms, one run with stage_times): 1 sort_chunks {:.4f} | 2 merge_sequences {:.4f} | "
             "3 split {:.4f} | 4 merge_groups {:.4f}\n",
             st.sort_chunks_ms, st.merge_sequences_ms, st.split_ms, st.merge_groups_ms);
}

/// Sorts the n host keys (with --values, as pairs whose values are the indices: an argsort) on
/// the device; h_keys ends up holding the sorted keys if --output is given. Returns the exit
/// code.
template <class W>
int sort_host_keys(typename W::key_type* h_keys, std::size_t n, const std::string& source,
                   const sort_options& o, const device_check& dev) {
  using Key = typename W::key_type;
  const data::key_type type = data::key_type_of<Key>();
  const sized_plan plan = plan_for(n, sizeof(Key), tuned_policy<Key>(), device_limits_of());
  const char* items = W::has_values ? "pairs" : "keys";
  std::string values;
  if constexpr (W::has_values)
    values = ", values " + data::key_type_name(data::key_type_of<typename W::value_t>()) +
             " (the input indices: argsort)";
  fmt::print("input: {}\n", source);
  const std::string power = format_size(n);
  fmt::print("n: {}{}, type {}{}, order {}, {}\n", n,
             power == std::to_string(n) ? std::string() : " (" + power + ")", data::key_type_name(type),
             values,
             o.descending ? "descending" : "ascending",
             o.out_of_place ? fmt::format("out of place (output {} poisoned 0xA5 before each run)",
                                          W::has_values ? "keys and values" : "buffer")
                            : std::string("in place"));
  const sort_tuning tuned = tuned_sort<Key>();
  if (tuned.ablation) {
    fmt::print("plan (WARPSORT_DESIGN, one of the ablation's designs): {}\n",
               n == 0 ? std::string("nothing to sort (n = 0)")
                      : pairwise_line(ablation::make_plan(n, ablation::sized_for(tuned.design, n))));
  } else {
    fmt::print("plan{}: {}\n", W::has_values ? " (of the keys; pairs sort as wider items)" : "",
               plan_line(plan));
    std::string chosen = plan.describe();  // a line a choice, indented under the heading
    for (std::size_t at = chosen.find('\n'); at != std::string::npos && at + 1 < chosen.size();
         at = chosen.find('\n', at + 3))
      chosen.replace(at, 1, "\n  ");
    fmt::print("plan_for chose:\n  {}", chosen);
  }
  fmt::print("device: {}: needs at most {} (estimate), {} free\n", dev.device_name,
             format_gib(dev.needed_bytes), format_gib(dev.free_bytes));
  std::fflush(stdout);

  cuda_stream stream;
  const cudaStream_t s = stream.get();
  const std::size_t temp_bytes = dev.temp_bytes;
  typename W::buffers input(n);
  typename W::buffers output(o.out_of_place ? n : 0);
  const typename W::buffers& out = o.out_of_place ? output : input;
  // At least 1 byte: a null d_temp would make the sort a size query.
  detail::device_buffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));

  // Every run starts from a fresh input (and poisoned output and temporary storage), untimed.
  auto prepare = [&] {
    W::load(input, h_keys, n, s);
    if (o.out_of_place) W::poison(output, n, s);
    poison(temp.get(), temp_bytes, s);
  };
  auto sort = [&](stage_times* times) {
    std::size_t bytes = temp_bytes;
    W::sort(temp.get(), bytes, input, out, n, s, times);
  };
  const sort_runs runs = run_sorts(o, s, prepare, sort);
  temp = detail::device_buffer<unsigned char>();  // freed before the references need the room
  print_runs(W::has_values ? "warpsort (sort_pairs)" : "warpsort",
             W::has_values ? "Gpairs/s" : "Gkeys/s", n, runs);
  // The device memory of the sort itself: the items (in place; out of place, input and output)
  // plus warpsort's temporary storage.
  const std::size_t buffers = o.out_of_place ? 2 : 1;
  const std::string item_size =
      W::has_values ? fmt::format("({} + {}) B", sizeof(Key), sizeof(typename W::value_t))
                    : fmt::format("{} B", sizeof(Key));
  if (n > 0)
    fmt::print("footprint: {:.4f} bytes/{} = ({}{} {} x {} + {} B temporary storage) / n "
               "({} plus warpsort's temporary storage)\n",
               static_cast<double>(buffers * n * W::item_bytes + temp_bytes) / static_cast<double>(n),
               W::has_values ? "pair" : "key", o.out_of_place ? "2 x " : "", n, items, item_size,
               temp_bytes,
               o.out_of_place ? (W::has_values ? "input and output keys and values"
                                               : "input and output buffers")
                              : (W::has_values ? "keys and values sorted in place"
                                               : "keys sorted in place"));
  else
    fmt::print("footprint: n/a (n = 0; {} B temporary storage)\n", temp_bytes);
  std::fflush(stdout);

  // The last timed run's output, against the references of the input.
  const std::string problem = W::validate(h_keys, o.out_of_place ? &input : nullptr, out, n, s);
  if (problem.empty()) {
    if constexpr (W::has_values)
      fmt::print("validation: valid: equal to cub::DeviceRadixSort::SortPairs and "
                 "cub::DeviceMergeSort::StableSortPairs (keys under the order's equivalence, "
                 "values exactly: stable; the last timed run's output)\n");
    else
      fmt::print("validation: valid: equal to thrust::sort and cub::DeviceRadixSort (the last "
                 "timed run's output{})\n",
                 std::is_floating_point_v<Key> ? "; same multiset of bit patterns as the input" : "");
  } else {
    std::fflush(stdout);
    fmt::print(stderr, "warpsort: VALIDATION FAILED: {}\n", problem);
  }

  if (!o.output.empty()) {
    download(h_keys, out.keys.get(), n, s);  // the input is no longer needed on the host
    data::write_dataset(o.output, type, h_keys, n);
    std::string written = o.output;
    if constexpr (W::has_values) {
      using Value = typename W::value_t;
      std::vector<Value> h_values(n);
      download(h_values.data(), out.values.get(), n, s);
      const std::string vpath = values_path(o.output);
      data::write_dataset(vpath, data::key_type_of<Value>(), h_values.data(), n);
      written += " (keys) and " + vpath + " (values)";
    }
    fmt::print("wrote {}{}\n", written, problem.empty() ? "" : " (this output did NOT validate)");
  }
  return problem.empty() ? 0 : 1;
}

/// Sorts keys, or (--values) pairs whose values are the indices: checks the device first, then
/// calls host_keys() for the n host keys (a file's, or generated only once the device check
/// has passed).
template <class W>
int sort_items(std::size_t n, const std::string& source, const sort_options& o,
               const std::function<typename W::key_type*()>& host_keys) {
  const device_check dev = check_device<W>(n, o.out_of_place);
  return sort_host_keys<W>(host_keys(), n, source, o, dev);
}

int sort_file(const sort_options& o) {
  if (!o.distribution.empty() || o.n || o.seed)
    throw input_error("--n and --seed go with --dist (generated input), not with --input");
  std::optional<data::key_type> type;
  if (o.type) type = data::parse_key_type(*o.type);
  // The file first: a bad file must fail before the device is touched.
  const value_type values = parse_value_type(o.values);
  data::dataset ds = data::read_dataset(o.input, type);
  require_supported(ds.type);
  if (values != value_type::none) require_pair_count(ds.n);
  return with_workload(ds.type, o.descending, values, [&](auto w) {
    using W = decltype(w);
    return sort_items<W>(ds.n, o.input, o, [&] { return ds.keys<typename W::key_type>(); });
  });
}

int sort_generated(const sort_options& o) {
  // Every argument is checked before the device is touched.
  if (!data::is_distribution(o.distribution))
    throw input_error("unknown distribution '" + o.distribution +
                      "'; valid: " + join(data::distribution_names()));
  if (!o.n) throw input_error("--dist needs --n N (an integer, 2^k, 2^a+b or 2^a-b)");
  // 0 is accepted here (fuzz draws it) although not as a benchmark size.
  const std::size_t n = *o.n == "0" ? 0 : parse_size(*o.n);
  const data::key_type type = data::parse_key_type(o.type.value_or("uint32"));
  require_supported(type);
  const value_type values = parse_value_type(o.values);
  if (values != value_type::none) require_pair_count(n);
  const std::uint64_t seed = o.seed.value_or(1);
  return with_workload(type, o.descending, values, [&](auto w) {
    using W = decltype(w);
    using Key = typename W::key_type;
    // The host holds the keys (and, with --output and --values, the downloaded values).
    require_host_memory(n, n * (sizeof(Key) + (o.output.empty() ? 0 : value_bytes(values))) +
                               (std::size_t{256} << 20));
    // Not value-initialized: at 2^32 keys, zeroing would cost seconds before generate() runs.
    std::unique_ptr<Key[]> keys;
    return sort_items<W>(
        n, fmt::format("generated: --dist {} --seed {}", o.distribution, seed), o, [&] {
          keys.reset(new Key[n]);
          data::generate<Key>(o.distribution, seed, keys.get(), n);  // the call fuzz makes
          return keys.get();
        });
  });
}

}  // namespace

int run_sort(const sort_options& o) {
  if (o.reps < 1) throw input_error("--reps must be at least 1");
  if (o.warmup < 0) throw input_error("--warmup must be at least 0");
  const bool file = !o.input.empty(), generated = !o.distribution.empty();
  if (file && generated)
    throw input_error("give either --input FILE or --dist D --n N (generated keys), not both");
  if (!file && !generated)
    throw input_error("no input: give --input FILE, or --dist D --n N [--seed S] [--type T]");
  return file ? sort_file(o) : sort_generated(o);
}

}  // namespace warpsort::cli

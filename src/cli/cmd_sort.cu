// `warpsort sort`: sort a dataset file with warpsort, validate, time, and write the result.
#include "cli/commands.hpp"
#include "cli/bench_config.hpp"
#include "cli/gpu_timing.cuh"
#include "cli/key_dispatch.hpp"
#include "cli/memory_check.hpp"
#include "cli/metadata.hpp"
#include "cli/metrics.hpp"
#include "data/dataset_io.hpp"
#include "host/device_buffer.hpp"

#include <warpsort/warpsort.cuh>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <type_traits>
#include <vector>

namespace warpsort::cli {
namespace {

template <class Key, class Comp>
int sort_dataset(data::dataset& ds, const sort_options& o) {
  const std::size_t n = ds.n;
  const char* order_name = o.descending ? "descending" : "ascending";
  fmt::print("input: {} ({} {} keys), order {}\n", o.input, n, data::key_type_name(ds.type), order_name);
  if (n == 0) {
    fmt::print("nothing to sort\n");
    if (!o.output.empty()) data::write_dataset(o.output, ds.type, ds.bytes.data(), 0);
    return 0;
  }

  // The device, and room on it, before allocating anything.
  const device_inventory inv = query_devices();
  if (!inv.unavailable.empty()) throw cuda_error(cudaErrorNoDevice, inv.unavailable);
  std::size_t temp_bytes = 0;
  sort_keys<Key, Comp>(nullptr, temp_bytes, nullptr, nullptr, n);
  require_device_memory(n, device_bytes_needed(n, sizeof(Key), temp_bytes, std::is_floating_point_v<Key>));

  cuda_stream stream;
  const cudaStream_t s = stream.get();
  const detail::device_buffer<Key> pristine(n), work(n);
  WARPSORT_CUDA_CHECK(cudaMemcpyAsync(pristine.get(), ds.keys<Key>(), n * sizeof(Key),
                                      cudaMemcpyHostToDevice, s));
  const reference_checker<Key, Comp> checker(pristine.get(), n, Comp{}, s);
  // At least 1 byte: a null d_temp would make sort_keys a size query.
  const detail::device_buffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));

  // Headline runs without stage timing, then a set with it for the step breakdown (as bench).
  const device_sort_fn<Key> sort = [&](Key* d_keys, cudaStream_t st) {
    std::size_t bytes = temp_bytes;
    sort_keys<Key, Comp>(temp.get(), bytes, d_keys, d_keys, n, Comp{}, st);
  };
  const device_runs runs =
      time_device_runs<Key, Comp>(sort, pristine.get(), work.get(), n, o.warmup, o.reps, checker, s);
  std::vector<double> step_ms[4];
  const device_sort_fn<Key> sort_with_steps = [&](Key* d_keys, cudaStream_t st) {
    std::size_t bytes = temp_bytes;
    stage_times t;
    sort_keys<Key, Comp>(temp.get(), bytes, d_keys, d_keys, n, Comp{}, st, default_policy<Key>(), &t);
    step_ms[0].push_back(t.sort_chunks_ms);
    step_ms[1].push_back(t.merge_pairs_ms);
    step_ms[2].push_back(t.split_ms);
    step_ms[3].push_back(t.merge_groups_ms);
  };
  const device_runs step_runs =
      time_device_runs<Key, Comp>(sort_with_steps, pristine.get(), work.get(), n, 0, o.reps, checker, s);

  const run_summary t = summarize(runs.times_ms);
  fmt::print("device: {}\n", inv.devices.empty() ? "?" : inv.devices.front().name);
  fmt::print("warpsort: median {:.4f} ms (min {:.4f}, max {:.4f}) over {} run(s): {:.3f} Gkeys/s\n",
             t.median_ms, t.min_ms, t.max_ms, runs.times_ms.size(),
             keys_per_second(n, t.median_ms) / 1e9);
  fmt::print("steps (median ms): 1 sort_chunks {:.4f} | 2 merge_pairs {:.4f} | 3 split {:.4f} | "
             "4 merge_groups {:.4f}\n",
             median(step_ms[0]), median(step_ms[1]), median(step_ms[2]), median(step_ms[3]));

  std::vector<std::string> failures = runs.failures;
  failures.insert(failures.end(), step_runs.failures.begin(), step_runs.failures.end());
  if (failures.empty()) {
    fmt::print("validation: {} (all {} runs)\n", checker.check(work.get()).message(),
               o.warmup + 2 * o.reps);
  } else {
    for (const auto& f : failures) fmt::print(stderr, "warpsort: VALIDATION FAILED: {}\n", f);
  }

  if (!o.output.empty()) {
    // work holds the last run's output, validated above.
    WARPSORT_CUDA_CHECK(cudaMemcpyAsync(ds.keys<Key>(), work.get(), n * sizeof(Key),
                                        cudaMemcpyDeviceToHost, s));
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(s));
    data::write_dataset(o.output, ds.type, ds.bytes.data(), n);
    fmt::print("wrote {}{}\n", o.output, failures.empty() ? "" : " (this output did NOT validate)");
  }
  return failures.empty() ? 0 : 1;
}

}  // namespace

int run_sort(const sort_options& o) {
  if (o.reps < 1) throw input_error("--reps must be at least 1");
  if (o.warmup < 0) throw input_error("--warmup must be at least 0");
  std::optional<data::key_type> type;
  if (o.type) type = data::parse_key_type(*o.type);
  // The file first: a bad file must fail before the device is touched.
  data::dataset ds = data::read_dataset(o.input, type);
  require_supported(ds.type);
  return with_key_type(ds.type, [&](auto tag) {
    using Key = typename decltype(tag)::type;
    return o.descending ? sort_dataset<Key, warpsort::greater<Key>>(ds, o)
                        : sort_dataset<Key, warpsort::less<Key>>(ds, o);
  });
}

}  // namespace warpsort::cli

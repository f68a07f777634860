// `warpsort fuzz`: differential fuzzing. Random cases (fuzz_case.hpp) are sorted by warpsort,
// out of place into an output buffer poisoned with 0xA5 (one case in four in place), with
// poisoned temporary storage, and checked with validate_against_references (thrust::sort,
// cub::DeviceRadixSort, and for floats the multiset of bit patterns); out of place, the input
// buffer must also come back unchanged. The first failure prints the case and the
// `warpsort sort` command that reproduces it, and ends the run with status 1. One case in three
// sorts (key, index) pairs with sort_pairs instead (uint32 or uint64 values), validated with
// validate_pairs_against_references (cub::DeviceRadixSort::SortPairs and
// cub::DeviceMergeSort::StableSortPairs: keys under equivalence, values exactly). Keys and
// pairs run through the same code (workload.cuh), as in `warpsort sort`.
#include "cli/bench_config.hpp"
#include "cli/commands.hpp"
#include "cli/fuzz_case.hpp"
#include "cli/gpu_timing.cuh"
#include "cli/key_dispatch.hpp"
#include "cli/memory_check.hpp"
#include "cli/metadata.hpp"
#include "cli/workload.cuh"
#include "data/distributions.hpp"
#include "host/device_buffer.hpp"

#include <warpsort/warpsort.cuh>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <vector>

namespace warpsort::cli {
namespace {

using steady = std::chrono::steady_clock;

/// Runs one case (keys, or pairs whose values are the indices); returns an empty string when
/// warpsort's output is valid, else what is wrong. With `inject` (n >= 1), flips the low bit of
/// the middle output key before validating.
template <class W>
std::string run_case(const fuzz_case& c, bool inject, cudaStream_t s) {
  const std::size_t n = c.n;
  std::vector<typename W::key_type> h_keys(n);
  data::generate(c.distribution, c.seed, h_keys.data(), n);  // the call `sort --dist` makes

  typename W::buffers input(n);
  typename W::buffers output(c.out_of_place ? n : 0);
  typename W::buffers& out = c.out_of_place ? output : input;
  {
    std::size_t temp_bytes = W::temp_bytes(n);
    // At least 1 byte: a null d_temp would make the sort a size query.
    const detail::device_buffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
    W::load(input, h_keys.data(), n, s);
    if (c.out_of_place) W::poison(output, n, s);
    poison(temp.get(), temp_bytes, s);
    W::sort(temp.get(), temp_bytes, input, out, n, s);
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(s));
    WARPSORT_CUDA_CHECK(cudaGetLastError());
  }  // temporary storage freed before validation, as `warpsort sort` does
  if (inject) W::corrupt(out, n / 2, s);
  return W::validate(h_keys.data(), c.out_of_place ? &input : nullptr, out, n, s);
}

/// The largest device need of any case up to max_n: 8-byte float keys, out of place, the
/// largest temporary storage of any key type and order.
std::size_t fuzz_device_bytes_needed(std::size_t max_n) {
  // Pair cases: n < 2^32, 8-byte keys and values, out of place.
  const std::size_t max_pair_n = std::min(max_n, max_pairs);
  std::size_t largest_temp = 0, largest_pair_temp = 0;
  for (data::key_type t : supported_key_types())
    for (bool descending : {false, true}) {
      with_workload(t, descending, value_type::none,
                    [&](auto w) { largest_temp = std::max(largest_temp, decltype(w)::temp_bytes(max_n)); });
      with_workload(t, descending, value_type::uint64, [&](auto w) {
        largest_pair_temp = std::max(largest_pair_temp, decltype(w)::temp_bytes(max_pair_n));
      });
    }
  return std::max(sort_device_bytes_needed(max_n, 8, largest_temp, true, true),
                  sort_pairs_device_bytes_needed(max_pair_n, 8, 8, largest_pair_temp, true));
}

}  // namespace

int run_fuzz(const fuzz_options& o) {
  if (!(o.seconds > 0) || !std::isfinite(o.seconds)) throw input_error("--seconds must be positive");
  const std::size_t max_n = parse_size(o.max_n);
  const std::uint64_t seed0 = o.seed ? *o.seed : clock_seed();
  // Every case needs the device: the references are thrust::sort and CUB.
  const device_inventory inv = query_devices();
  if (!inv.unavailable.empty()) throw cuda_error(cudaErrorNoDevice, inv.unavailable);
  require_device_memory(max_n, fuzz_device_bytes_needed(max_n));

  fmt::print("fuzz: seed {} (repeat with: warpsort fuzz --seconds {} --seed {}{}), max n {}, "
             "{} s{}\n",
             seed0, o.seconds, seed0, o.max_n == "2^22" ? "" : " --max-n " + o.max_n, max_n,
             o.seconds, o.inject_failure ? ", --inject-failure (the first case with n >= 1 fails)" : "");
  std::fflush(stdout);

  fuzz_rng rng(seed0);
  cuda_stream stream;
  const auto start = steady::now();
  auto elapsed = [&] { return std::chrono::duration<double>(steady::now() - start).count(); };
  double next_progress = 5;
  std::size_t cases = 0, largest = 0;
  std::map<std::string, std::size_t> by_type;
  std::size_t pair_cases = 0;
  bool injected = false;
  while (elapsed() < o.seconds) {
    const fuzz_case c = draw_fuzz_case(rng, max_n);
    const bool inject = o.inject_failure && !injected && c.n >= 1;
    injected = injected || inject;
    std::string problem;
    try {
      problem = with_workload(c.type, c.descending, c.values, [&](auto w) {
        return run_case<decltype(w)>(c, inject, stream.get());
      });
    } catch (const std::exception& e) {
      problem = std::string("error: ") + e.what();
    }
    ++cases;
    if (problem.empty()) {
      largest = std::max(largest, c.n);
      ++by_type[data::key_type_name(c.type)];
      pair_cases += c.values != value_type::none;
    } else {
      std::fflush(stdout);
      fmt::print(stderr, "fuzz: FAILED case {} after {:.1f} s: {}\n", cases, elapsed(), describe(c));
      fmt::print(stderr, "fuzz: {}\n", problem);
      if (inject)
        fmt::print(stderr, "fuzz: (this failure was injected by --inject-failure: the command "
                           "below sorts the case without the corruption)\n");
      fmt::print(stderr, "fuzz: reproduce with: {}\n", repro_command(c));
      fmt::print(stderr, "fuzz: {} case(s), 1 failure (run seed {})\n", cases, seed0);
      return 1;
    }
    if (elapsed() >= next_progress) {
      fmt::print(stderr, "fuzz: {} cases after {:.0f} s, largest n {}\n", cases, elapsed(), largest);
      next_progress = elapsed() + 5;
    }
  }
  std::vector<std::string> counts;
  for (const auto& [type, count] : by_type) counts.push_back(fmt::format("{} {}", type, count));
  fmt::print("fuzz: {} cases, 0 failures, largest n {} ({:.1f} s, seed {}; by key type: {}; {} "
             "of them key-value pairs)\n",
             cases, largest, elapsed(), seed0, counts.empty() ? std::string("none") : join(counts),
             pair_cases);
  return 0;
}

}  // namespace warpsort::cli

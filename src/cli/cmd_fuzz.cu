// `warpsort fuzz`: differential fuzzing. Random cases (fuzz_case.hpp) are sorted by warpsort,
// out of place into an output buffer poisoned with 0xA5 (one case in four in place), with
// poisoned temporary storage, and checked with validate_against_references (thrust::sort,
// cub::DeviceRadixSort, and for floats the multiset of bit patterns); out of place, the input
// buffer must also come back unchanged. The first failure prints the case and the
// `warpsort sort` command that reproduces it, and ends the run with status 1. One case in three
// sorts (key, index) pairs with sort_pairs instead (uint32 or uint64 values), validated with
// validate_pairs_against_references (cub::DeviceRadixSort::SortPairs and
// cub::DeviceMergeSort::StableSortPairs: keys under equivalence, values exactly).
#include "cli/bench_config.hpp"
#include "cli/commands.hpp"
#include "cli/fuzz_case.hpp"
#include "cli/gpu_timing.cuh"
#include "cli/key_dispatch.hpp"
#include "cli/memory_check.hpp"
#include "cli/metadata.hpp"
#include "cli/sort_run.cuh"
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

/// Runs one case; returns an empty string when warpsort's output is valid, else what is wrong.
/// With `inject` (n >= 1), flips the low bit of the middle output key before validating.
template <class Key, class Comp>
std::string run_case(const fuzz_case& c, bool inject, cudaStream_t s) {
  const std::size_t n = c.n;
  std::vector<Key> h_keys(n);
  data::generate<Key>(c.distribution, c.seed, h_keys.data(), n);  // the call `sort --dist` makes

  detail::device_buffer<Key> keys(n);
  detail::device_buffer<Key> output(c.out_of_place ? n : 0);
  Key* const d_in = keys.get();
  Key* const d_out = c.out_of_place ? output.get() : keys.get();
  {
    std::size_t temp_bytes = warpsort_temp_bytes<Key, Comp>(n);
    // At least 1 byte: a null d_temp would make sort_keys a size query.
    const detail::device_buffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
    upload(d_in, h_keys.data(), n, s);
    if (c.out_of_place) poison(d_out, n * sizeof(Key), s);
    poison(temp.get(), temp_bytes, s);
    sort_keys<Key, Comp>(temp.get(), temp_bytes, d_in, d_out, n, Comp{}, s);
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(s));
    WARPSORT_CUDA_CHECK(cudaGetLastError());
  }  // temporary storage freed before validation, as `warpsort sort` does
  if (inject) corrupt_key(d_out, n / 2, s);
  return validate_sorted<Key, Comp>(h_keys.data(), c.out_of_place ? d_in : nullptr, d_out, n, s);
}

/// A pairs case: (key, index) pairs sorted by sort_pairs, out of place into poisoned key and
/// value buffers (or in place), with poisoned temporary storage; validated with
/// validate_pairs_against_references. With `inject` (n >= 1), flips the low bit of the middle
/// output key.
template <class Key, class Value, class Comp>
std::string run_pair_case(const fuzz_case& c, bool inject, cudaStream_t s) {
  const std::size_t n = c.n;
  std::vector<Key> h_keys(n);
  data::generate<Key>(c.distribution, c.seed, h_keys.data(), n);  // the call `sort --dist` makes

  detail::device_buffer<Key> keys(n);
  detail::device_buffer<Value> values(n);
  detail::device_buffer<Key> out_keys(c.out_of_place ? n : 0);
  detail::device_buffer<Value> out_values(c.out_of_place ? n : 0);
  Key* const d_kin = keys.get();
  Value* const d_vin = values.get();
  Key* const d_kout = c.out_of_place ? out_keys.get() : keys.get();
  Value* const d_vout = c.out_of_place ? out_values.get() : values.get();
  {
    std::size_t temp_bytes = warpsort_pair_temp_bytes<Key, Value, Comp>(n);
    // At least 1 byte: a null d_temp would make sort_pairs a size query.
    const detail::device_buffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
    upload(d_kin, h_keys.data(), n, s);
    fill_indices(d_vin, n, s);
    if (c.out_of_place) {
      poison(d_kout, n * sizeof(Key), s);
      poison(d_vout, n * sizeof(Value), s);
    }
    poison(temp.get(), temp_bytes, s);
    sort_pairs<Key, Value, Comp>(temp.get(), temp_bytes, d_kin, d_kout, d_vin, d_vout, n, Comp{}, s);
    WARPSORT_CUDA_CHECK(cudaStreamSynchronize(s));
    WARPSORT_CUDA_CHECK(cudaGetLastError());
  }  // temporary storage freed before validation, as `warpsort sort --values` does
  if (inject) corrupt_key(d_kout, n / 2, s);
  return validate_sorted_pairs<Key, Value, Comp>(h_keys.data(), c.out_of_place ? d_kin : nullptr,
                                                 c.out_of_place ? d_vin : nullptr, d_kout, d_vout,
                                                 n, s);
}

/// The largest device need of any case up to max_n: 8-byte float keys, out of place, the
/// largest temporary storage of any key type and order.
std::size_t fuzz_device_bytes_needed(std::size_t max_n) {
  std::size_t largest_temp = 0;
  for (data::key_type t : supported_key_types())
    with_key_type(t, [&](auto tag) {
      using Key = typename decltype(tag)::type;
      largest_temp = std::max({largest_temp, warpsort_temp_bytes<Key, warpsort::less<Key>>(max_n),
                               warpsort_temp_bytes<Key, warpsort::greater<Key>>(max_n)});
    });
  // Pair cases: n < 2^32, 8-byte keys and values, out of place.
  const std::size_t max_pair_n = std::min(max_n, max_pairs);
  std::size_t largest_pair_temp = 0;
  for (data::key_type t : supported_key_types())
    with_key_type(t, [&](auto tag) {
      using Key = typename decltype(tag)::type;
      largest_pair_temp = std::max(
          {largest_pair_temp,
           warpsort_pair_temp_bytes<Key, std::uint64_t, warpsort::less<Key>>(max_pair_n),
           warpsort_pair_temp_bytes<Key, std::uint64_t, warpsort::greater<Key>>(max_pair_n)});
    });
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
      problem = with_key_and_order(c.type, c.descending, [&](auto tag, auto comp) {
        using Key = typename decltype(tag)::type;
        using Comp = decltype(comp);
        if (c.values == value_type::none) return run_case<Key, Comp>(c, inject, stream.get());
        return with_value_type(c.values, [&](auto vtag) {
          using Value = typename decltype(vtag)::type;
          return run_pair_case<Key, Value, Comp>(c, inject, stream.get());
        });
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

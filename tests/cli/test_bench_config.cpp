// Size and name list parsing, the algorithm plan, the default experiment, and the metrics.
#include "cli/bench_config.hpp"
#include "cli/host_check.hpp"
#include "cli/key_dispatch.hpp"
#include "cli/memory_check.hpp"
#include "cli/metrics.hpp"

#include <warpsort/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace warpsort::cli;
using warpsort::input_error;
using sizes = std::vector<std::size_t>;

/// The message of the input_error `f` throws (fails the test if it throws nothing).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const input_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected warpsort::input_error";
  return {};
}

TEST(ParseSize, IntegersAndPowersOfTwo) {
  EXPECT_EQ(parse_size("1"), 1u);
  EXPECT_EQ(parse_size("1000003"), 1000003u);
  EXPECT_EQ(parse_size(" 42 "), 42u);
  EXPECT_EQ(parse_size("2^0"), 1u);
  EXPECT_EQ(parse_size("2^20"), std::size_t{1} << 20);
  EXPECT_EQ(parse_size("2^40"), std::size_t{1} << 40);
}

TEST(ParseSize, RejectsGarbage) {
  for (const char* bad : {"", " ", "0", "abc", "12abc", "-5", "1e6", "2^", "2^x", "2^41", "3^4",
                          "2^-1", "99999999999999999999", "0x10", "1.5"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_size(bad), input_error);
  }
  EXPECT_NE(error_of([] { parse_size("abc"); }).find("abc"), std::string::npos);
}

TEST(ParseSize, PowerOfTwoPlusOrMinusAnOffset) {
  constexpr std::size_t one = 1;
  EXPECT_EQ(parse_size("2^32+12345"), (one << 32) + 12345);
  EXPECT_EQ(parse_size("2^31+7"), (one << 31) + 7);
  EXPECT_EQ(parse_size("2^31-1"), (one << 31) - 1);
  EXPECT_EQ(parse_size("2^10-1023"), 1u);
  EXPECT_EQ(parse_size("2^0+0"), 1u);
  EXPECT_EQ(parse_size("2^20-0"), one << 20);
  EXPECT_EQ(parse_size(" 2^16 + 3 "), (one << 16) + 3);  // blanks around the sign
  EXPECT_EQ(parse_size("2^39+549755813888"), one << 40);  // exactly the limit
  EXPECT_EQ(parse_size_list("2^20-1,2^20,2^20+1"), (sizes{(one << 20) - 1, one << 20, (one << 20) + 1}));
}

TEST(ParseSize, RejectsBadOffsets) {
  for (const char* bad : {"2^10-1024", "2^10-2000", "2^3+", "2^3-", "2^3+x", "2^3++1", "2^3+-1",
                          "2^3+1-1", "2^3+1.5", "2^+3", "2^x+1", "2^41+1", "2^40+1",
                          "2^3+1000000000000000", "3^4+1", "+5", "2^3*2", "1+2"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_size(bad), input_error);
  }
  EXPECT_NE(error_of([] { parse_size("2^10-1024"); }).find("at least 1"), std::string::npos);
  EXPECT_NE(error_of([] { parse_size("2^40+1"); }).find("larger than 2^40"), std::string::npos);
  EXPECT_NE(error_of([] { parse_size("2^3+x"); }).find("2^3+x"), std::string::npos);
  // Ranges stay between plain powers of two.
  EXPECT_THROW(parse_size_list("2^10+1..2^12"), input_error);
  EXPECT_THROW(parse_size_list("2^10..2^12-1"), input_error);
}

TEST(ParseSizeList, RangesListsAndDuplicates) {
  EXPECT_EQ(parse_size_list("2^16..2^20"),
            (sizes{1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20}));
  EXPECT_EQ(parse_size_list("1000,2^10"), (sizes{1000, 1024}));
  EXPECT_EQ(parse_size_list("2^20,1000003"), (sizes{1u << 20, 1000003}));
  EXPECT_EQ(parse_size_list("4096"), (sizes{4096}));
  EXPECT_EQ(parse_size_list("2^10, 1024 ,2^10..2^11"), (sizes{1024, 2048}));
  EXPECT_EQ(parse_size_list("2^5..2^5"), (sizes{32}));
}

TEST(ParseSizeList, RejectsGarbage) {
  for (const char* bad : {"", ",", "2^10,,2^11", "2^10,", "2^20..2^16", "1000..2000", "2^10..",
                          "..2^10", "2^10..2^x", "garbage", "2^16...2^20"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_size_list(bad), input_error);
  }
}

TEST(FormatSize, PowersOfTwoAsExponents) {
  EXPECT_EQ(format_size(1u << 24), "2^24");
  EXPECT_EQ(format_size(2), "2^1");
  EXPECT_EQ(format_size(1), "1");
  EXPECT_EQ(format_size(1000003), "1000003");
}

TEST(NameList, AllDuplicatesAndUnknownNames) {
  const std::vector<std::string> valid{"uniform", "zero", "sorted"};
  EXPECT_EQ(parse_name_list("all", valid, "distribution"), valid);
  EXPECT_EQ(parse_name_list("zero, uniform,zero", valid, "distribution"),
            (std::vector<std::string>{"zero", "uniform"}));
  const std::string message = error_of([&] { parse_name_list("uniform,nosuch", valid, "distribution"); });
  EXPECT_NE(message.find("unknown distribution 'nosuch'"), std::string::npos) << message;
  EXPECT_NE(message.find("uniform, zero, sorted"), std::string::npos) << message;
  EXPECT_THROW(parse_name_list("", valid, "distribution"), input_error);
}

TEST(SplitList, TrimsAndRejectsEmptyItems) {
  EXPECT_EQ(split_list(" a, b ,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_THROW(split_list("a,,b"), input_error);
  EXPECT_EQ(join({"a", "b"}), "a, b");
}

const std::vector<std::string> gpu_names{"cub_radix", "cub_merge", "thrust_sort"};
const std::vector<std::string> cpu_names{"std_sort", "tbb_parallel_sort"};

TEST(PlanAlgorithms, AddsCubForTheRatios) {
  const algorithm_plan p = plan_algorithms({"thrust_sort", "warpsort", "std_sort"}, gpu_names, cpu_names);
  EXPECT_EQ(p.gpu, (std::vector<std::string>{"warpsort", "thrust_sort", "cub_merge", "cub_radix"}));
  EXPECT_EQ(p.cpu, (std::vector<std::string>{"std_sort"}));
  EXPECT_EQ(p.added, (std::vector<std::string>{"cub_merge", "cub_radix"}));
}

TEST(PlanAlgorithms, ListedCubIsNotAddedAndCpuOnlyAddsNothing) {
  const algorithm_plan listed = plan_algorithms({"warpsort", "cub_merge", "cub_radix"}, gpu_names, cpu_names);
  EXPECT_EQ(listed.gpu, (std::vector<std::string>{"warpsort", "cub_merge", "cub_radix"}));
  EXPECT_TRUE(listed.added.empty());
  const algorithm_plan cpu_only = plan_algorithms({"std_sort"}, gpu_names, cpu_names);
  EXPECT_TRUE(cpu_only.gpu.empty());
  EXPECT_TRUE(cpu_only.added.empty());
  EXPECT_THROW(plan_algorithms({"nosuch"}, gpu_names, cpu_names), input_error);
}

TEST(PlanAlgorithms, DescendingKeepsOnlyWhatSortsDescending) {
  algorithm_plan p = plan_algorithms({"thrust_sort", "warpsort", "std_sort"}, gpu_names, cpu_names);
  EXPECT_EQ(restrict_to_descending(p), (std::vector<std::string>{"thrust_sort", "std_sort"}));
  EXPECT_EQ(p.gpu, (std::vector<std::string>{"warpsort", "cub_merge", "cub_radix"}));
  EXPECT_TRUE(p.cpu.empty());
  // Only the CUB sorts added for the ratios would be left: an error naming what cannot run.
  for (const std::vector<std::string>& requested :
       {std::vector<std::string>{"thrust_sort"}, std::vector<std::string>{"std_sort"}}) {
    algorithm_plan only = plan_algorithms(requested, gpu_names, cpu_names);
    try {
      restrict_to_descending(only);
      ADD_FAILURE() << "expected an input_error for " << requested[0];
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find(requested[0]), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("descending"), std::string::npos) << e.what();
    }
  }
  algorithm_plan radix = plan_algorithms({"cub_radix", "thrust_sort"}, gpu_names, cpu_names);
  EXPECT_EQ(restrict_to_descending(radix), (std::vector<std::string>{"thrust_sort"}));
  EXPECT_EQ(radix.gpu, (std::vector<std::string>{"cub_radix", "cub_merge"}));
}

TEST(AllAlgorithmNames, WarpsortThenGpuThenCpu) {
  EXPECT_EQ(all_algorithm_names(gpu_names, cpu_names),
            (std::vector<std::string>{"warpsort", "cub_radix", "cub_merge", "thrust_sort",
                                      "std_sort", "tbb_parallel_sort"}));
}

TEST(BenchConfig, DefaultExperimentIsTheShortRun) {
  const bench_config c = default_experiment();
  EXPECT_NO_THROW(c.check());
  EXPECT_EQ(c.sizes, (sizes{1u << 20, 1u << 24, 1u << 26}));
  EXPECT_EQ(c.distributions, (std::vector<std::string>{"uniform", "sorted", "zero",
                                                       "randomized_duplicates", "entropy_0.337"}));
  EXPECT_EQ(c.out_stem, "default");
  EXPECT_EQ(c.reps, 5);
  EXPECT_EQ(c.algorithm_max_n.at("bitonic_textbook"), std::size_t{1} << 24);
  for (const auto& a : c.algorithms) EXPECT_EQ(a.rfind("cpu_", 0), std::string::npos) << a;
}

TEST(BenchConfig, CheckRejectsBadCounts) {
  bench_config c = default_experiment();
  c.reps = 0;
  EXPECT_THROW(c.check(), input_error);
  c = default_experiment();
  c.warmup = -1;
  EXPECT_THROW(c.check(), input_error);
  c = default_experiment();
  c.sizes.clear();
  EXPECT_THROW(c.check(), input_error);
}

TEST(BenchConfig, KeyTypesTakeTheComparatorKey) {
  using warpsort::data::key_type;
  bench_config c;
  parse_bench_key_types("uint32, key128,float64,uint32", c);
  EXPECT_EQ(c.key_types, (std::vector<key_type>{key_type::uint32, key_type::float64}));
  EXPECT_TRUE(c.comparator_key);
  parse_bench_key_types("int64", c);  // parsing again starts afresh
  EXPECT_EQ(c.key_types, (std::vector<key_type>{key_type::int64}));
  EXPECT_FALSE(c.comparator_key);
  parse_bench_key_types("all", c);
  EXPECT_EQ(c.key_types, warpsort::data::all_key_types());
  EXPECT_TRUE(c.comparator_key);
  const std::string bad = error_of([&] { parse_bench_key_types("uint32,int128", c); });
  EXPECT_NE(bad.find("int128"), std::string::npos) << bad;
  EXPECT_NE(bad.find("key128"), std::string::npos) << bad;
}

TEST(BenchConfig, TheComparatorKeyAloneOrAscendingOnly) {
  bench_config c = default_experiment();
  parse_bench_key_types("key128", c);
  EXPECT_TRUE(c.key_types.empty());
  EXPECT_NO_THROW(c.check());  // the comparator key alone is something to run
  c.descending = true;
  EXPECT_NE(error_of([&] { c.check(); }).find("ascending only"), std::string::npos);
  c.comparator_key = false;
  EXPECT_NE(error_of([&] { c.check(); }).find("no key types"), std::string::npos);
}

TEST(Metrics, MedianMinMax) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_THROW(median({}), std::invalid_argument);
  const run_summary s = summarize({5, 1, 9, 3, 7});
  EXPECT_DOUBLE_EQ(s.median_ms, 5);
  EXPECT_DOUBLE_EQ(s.min_ms, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 9);
}

TEST(Metrics, ThroughputBandwidthAndRatio) {
  EXPECT_DOUBLE_EQ(keys_per_second(1'000'000, 1.0), 1e9);
  // 2^20 uint32 keys in 1 ms: 2 * 4 MiB read + write = 8388608 bytes per ms = 8.388608 GB/s.
  EXPECT_NEAR(bandwidth_gbs(1u << 20, 4, 1.0), 8.388608, 1e-9);
  EXPECT_DOUBLE_EQ(bandwidth_gbs(1000, 8, 2.0), 2.0 * 1000 * 8 / 2e-3 / 1e9);
  EXPECT_DOUBLE_EQ(speed_ratio(3.0, 1.5), 2.0);  // twice as fast as the baseline
  EXPECT_TRUE(std::isinf(speed_ratio(1.0, 0.0)));
  EXPECT_TRUE(std::isinf(keys_per_second(10, 0.0)));
}

TEST(KeyDispatch, EverySupportedTypeReachesItsKey) {
  EXPECT_EQ(with_key_type(warpsort::data::key_type::uint32,
                          [](auto tag) { return sizeof(typename decltype(tag)::type); }),
            4u);
  ASSERT_FALSE(supported_key_types().empty());
  for (warpsort::data::key_type t : supported_key_types()) {
    SCOPED_TRACE(warpsort::data::key_type_name(t));
    EXPECT_NO_THROW(require_supported(t));
    const bool same = with_key_type(t, [&](auto tag) {
      using Key = typename decltype(tag)::type;
      return warpsort::data::key_type_of<Key>() == t &&
             sizeof(Key) == warpsort::data::key_type_size(t);
    });
    EXPECT_TRUE(same);
  }
  EXPECT_EQ(supported_key_type_names().size(), supported_key_types().size());
}

TEST(HostCheck, FirstMismatch) {
  const std::vector<std::uint32_t> ref{1, 2, 3, 4}, same{1, 2, 3, 4}, other{1, 2, 5, 4};
  EXPECT_FALSE(first_mismatch(ref.data(), same.data(), ref.size()));
  EXPECT_EQ(first_mismatch(ref.data(), other.data(), ref.size()), std::optional<std::size_t>(2));
  EXPECT_EQ(host_mismatch_message(ref.data(), other.data(), ref.size(), "ref"),
            "mismatch against ref at index 2: expected 3, got 5");
  EXPECT_EQ(host_mismatch_message(ref.data(), same.data(), ref.size(), "ref"), "");
}

TEST(MemoryCheck, EstimatesCoverEveryBuffer) {
  const std::size_t n = std::size_t{1} << 28, keys = n * 4;
  EXPECT_GE(device_bytes_needed(n, 4, 0, false), 5 * keys);         // checker construction peak
  EXPECT_GE(device_bytes_needed(n, 4, 3 * keys, false), 7 * keys);  // 4 buffers + a large temp
  EXPECT_GE(device_bytes_needed(n, 4, 3 * keys, true), 10 * keys);  // floats: 3 more in check()
  EXPECT_GT(host_bytes_needed(n, 4, true, true), host_bytes_needed(n, 4, false, false));
  EXPECT_EQ(format_gib(std::size_t{3} << 29), "1.50 GiB");
}

TEST(MemoryCheck, SortCommandIsAboutFourKeysPerKey) {
  constexpr std::size_t GiB = std::size_t{1} << 30;
  // Sorting: keys + temp; validating (temp freed): input + sorted + the validator's 2 n
  // (floats 3 n). Plus 64 MiB + keys / 8.
  const std::size_t n = (std::size_t{1} << 32) + 12345, keys = n * 4, temp = keys + n / 32;
  const std::size_t slack = (std::size_t{64} << 20) + keys / 8;
  EXPECT_EQ(sort_device_bytes_needed(n, 4, temp, false, false), 4 * keys + slack);
  EXPECT_EQ(sort_device_bytes_needed(n, 4, temp, true, false), 5 * keys + slack);
  EXPECT_EQ(sort_device_bytes_needed(n, 4, temp, false, true), 4 * keys + slack);  // 2 + temp < 4
  EXPECT_EQ(sort_device_bytes_needed(n, 4, 5 * keys, false, false), 6 * keys + slack);  // huge temp
  EXPECT_EQ(sort_device_bytes_needed(n, 4, 5 * keys, false, true), 7 * keys + slack);
  // The targets: 2^32+12345 uint32 and 2^31+7 uint64 fit an 80 GB H100 (about 79 GiB free).
  EXPECT_LT(sort_device_bytes_needed(n, 4, temp, false, false), 70 * GiB);
  const std::size_t n64 = (std::size_t{1} << 31) + 7;
  EXPECT_LT(sort_device_bytes_needed(n64, 8, n64 * 8 + n64 / 16, false, false), 70 * GiB);
  EXPECT_LT(sort_device_bytes_needed(n, 4, temp, false, false), device_bytes_needed(n, 4, temp, false));
  EXPECT_EQ(sort_device_bytes_needed(0, 4, 0, false, false), std::size_t{64} << 20);
}

}  // namespace

// ---- key-value pairs (--values) ----
namespace {

const std::vector<std::string> keys_names{"warpsort", "cub_radix", "cub_merge", "std_sort"};
const std::vector<std::string> pair_names{"cub_radix_pairs", "cub_merge_pairs", "cub_merge_stable_pairs"};

TEST(ValueType, ParseNamesAndBytes) {
  EXPECT_EQ(parse_value_type("none"), value_type::none);
  EXPECT_EQ(parse_value_type("uint32"), value_type::uint32);
  EXPECT_EQ(parse_value_type("uint64"), value_type::uint64);
  const std::string e = error_of([] { parse_value_type("int8"); });
  EXPECT_NE(e.find("'int8'"), std::string::npos) << e;
  EXPECT_NE(e.find("none, uint32, uint64"), std::string::npos) << e;
  EXPECT_EQ(value_bytes(value_type::uint64), 8u);
  EXPECT_EQ(pair_type_name("float32", value_type::uint32), "float32+uint32");
  EXPECT_EQ(pair_type_name("float32", value_type::none), "float32");
  EXPECT_EQ(max_pairs, std::size_t{0xffffffffu});
}

TEST(AlgorithmList, KeysOnlyAndPairsNames) {
  EXPECT_EQ(parse_algorithm_list("all", value_type::none, keys_names, pair_names), keys_names);
  EXPECT_EQ(parse_algorithm_list("all", value_type::uint32, keys_names, pair_names),
            (std::vector<std::string>{"warpsort", "cub_radix_pairs", "cub_merge_pairs",
                                      "cub_merge_stable_pairs"}));
  EXPECT_EQ(parse_algorithm_list("warpsort, cub_merge_pairs,warpsort", value_type::uint64, keys_names,
                                 pair_names),
            (std::vector<std::string>{"warpsort", "cub_merge_pairs"}));
  std::string e = error_of([] { parse_algorithm_list("warpsort,cub_merge", value_type::uint32, keys_names, pair_names); });
  EXPECT_NE(e.find("'cub_merge' sorts keys only"), std::string::npos) << e;
  EXPECT_NE(e.find("cub_merge_stable_pairs"), std::string::npos) << e;
  e = error_of([] { parse_algorithm_list("cub_radix_pairs", value_type::none, keys_names, pair_names); });
  EXPECT_NE(e.find("--values"), std::string::npos) << e;
  e = error_of([] { parse_algorithm_list("nosuch", value_type::uint32, keys_names, pair_names); });
  EXPECT_NE(e.find("unknown algorithm 'nosuch'"), std::string::npos) << e;
}

TEST(PlanPairAlgorithms, AddsTheStableMergeAndRadixPairSorts) {
  const algorithm_plan p = plan_pair_algorithms({"cub_merge_pairs", "warpsort"}, pair_names);
  EXPECT_EQ(p.gpu, (std::vector<std::string>{"warpsort", "cub_merge_pairs", "cub_merge_stable_pairs",
                                             "cub_radix_pairs"}));
  EXPECT_EQ(p.added, (std::vector<std::string>{"cub_merge_stable_pairs", "cub_radix_pairs"}));
  EXPECT_TRUE(p.cpu.empty());
  const algorithm_plan all = plan_pair_algorithms(
      {"warpsort", "cub_radix_pairs", "cub_merge_pairs", "cub_merge_stable_pairs"}, pair_names);
  EXPECT_EQ(all.gpu.size(), 4u);
  EXPECT_TRUE(all.added.empty());
  EXPECT_THROW(plan_pair_algorithms({"cub_merge"}, pair_names), input_error);
}

TEST(MemoryCheck, PairsCountKeysAndValues) {
  const std::size_t n = std::size_t{1} << 26, slack = (std::size_t{64} << 20);
  const std::size_t pairs = n * (4 + 8);
  // Running: pristine, work and reference pairs plus the largest temporary storage.
  EXPECT_GE(pairs_device_bytes_needed(n, 4, 8, 5 * pairs), 3 * pairs + 5 * pairs);
  // Reference construction and check: 4 P (8-byte keys, 4-byte values: above 3 P + the
  // permutation check's 2 n values).
  EXPECT_EQ(pairs_device_bytes_needed(n, 8, 4, 0), 4 * pairs + pairs / 8 + slack);
  // 8-byte values: the permutation check's copies (3 P + 2 n 8) exceed 4 P.
  EXPECT_EQ(pairs_device_bytes_needed(n, 4, 8, 0), 3 * pairs + 2 * n * 8 + pairs / 8 + slack);
  // sort --values: in place P + temp, out of place 2 P + temp, validation 4 P.
  EXPECT_EQ(sort_pairs_device_bytes_needed(n, 4, 8, 0, false), 4 * pairs + pairs / 8 + slack);
  EXPECT_EQ(sort_pairs_device_bytes_needed(n, 4, 8, 3 * pairs, true), 5 * pairs + pairs / 8 + slack);
}

}  // namespace

// bench --variants / --algos warpsort@PRESET: warpsort under a named preset, keys only, planned
// after plain warpsort and before the baselines; unknown presets name the valid ones.
TEST(AlgorithmList, WarpsortPresets) {
  EXPECT_TRUE(is_warpsort_preset("warpsort@paper"));
  EXPECT_FALSE(is_warpsort_preset("warpsort@"));
  EXPECT_FALSE(is_warpsort_preset("warpsort"));
  EXPECT_EQ(preset_of("warpsort@tiles"), "tiles");
  EXPECT_EQ(parse_algorithm_list("warpsort@paper,cub_merge,warpsort@v5,warpsort@paper",
                                 value_type::none, keys_names, pair_names),
            (std::vector<std::string>{"warpsort@paper", "cub_merge", "warpsort@v5"}));
  std::string e = error_of([] { parse_algorithm_list("warpsort@v3", value_type::none, keys_names, pair_names); });
  EXPECT_NE(e.find("paper, onchip_step1, positions, tiles, onchip_step4, v4, v5"), std::string::npos) << e;
  e = error_of([] { parse_algorithm_list("warpsort@paper", value_type::uint32, keys_names, pair_names); });
  EXPECT_NE(e.find("keys only"), std::string::npos) << e;
  const algorithm_plan p =
      plan_algorithms({"thrust_sort", "warpsort@paper", "warpsort", "warpsort@v4"}, gpu_names, cpu_names);
  EXPECT_EQ(p.gpu, (std::vector<std::string>{"warpsort", "warpsort@paper", "warpsort@v4",
                                             "thrust_sort", "cub_merge", "cub_radix"}));
  algorithm_plan down = plan_algorithms({"warpsort@paper", "thrust_sort"}, gpu_names, cpu_names);
  EXPECT_EQ(restrict_to_descending(down), (std::vector<std::string>{"thrust_sort"}));
  EXPECT_EQ(down.gpu, (std::vector<std::string>{"warpsort@paper", "cub_merge", "cub_radix"}));
}

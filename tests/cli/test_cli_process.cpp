// The built `warpsort` binary, run as a process. Error paths and `generate` need no GPU (CI);
// the bench and sort round trips skip without one.
#include "cli/results.hpp"
#include "common/gpu_test.hpp"
#include "data/dataset_io.hpp"
#include "data/distributions.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using warpsort::data::key_type;

struct process_result {
  int exit_code = -1;   // -1: killed by a signal (a crash)
  std::string output;   // stdout and stderr together
};

/// The environment variable's value, or `built_in` (the build tree's path) when it is unset:
/// the binaries can then run where the build tree is not (a GPU machine given packed binaries).
std::string path_from_env(const char* variable, const char* built_in) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? value : built_in;
}

/// The `warpsort` binary under test (WARPSORT_CLI_BINARY overrides the built one).
std::string cli_binary() { return path_from_env("WARPSORT_CLI_BINARY", WARPSORT_CLI_BINARY); }

/// Where the tests write their files (WARPSORT_CLI_TEST_DIR overrides).
std::string cli_test_dir() { return path_from_env("WARPSORT_CLI_TEST_DIR", WARPSORT_CLI_TEST_DIR); }

/// Runs `warpsort <args>` (args already shell-quoted where needed) in the test directory.
process_result run_warpsort(const std::string& args) {
  const std::string command =
      "cd '" + cli_test_dir() + "' && '" + cli_binary() + "' " + args + " 2>&1";
  process_result r;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    ADD_FAILURE() << "popen failed for: " << command;
    return r;
  }
  char buffer[4096];
  std::size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, got);
  const int status = pclose(pipe);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

/// A clean per-test directory; paths in tests are relative to it.
class CliProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(cli_test_dir());
    fs::create_directories(dir_);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    sub_ = std::string(info->name());
    fs::remove_all(dir_ / sub_);
    fs::create_directories(dir_ / sub_);
  }
  std::string path(const std::string& name) const { return (dir_ / sub_ / name).string(); }
  fs::path dir_;
  std::string sub_;
};

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "expected \"" << (needle) << "\" in:\n" << (haystack)

/// A failing command: exit code 1 (not a crash) and the standard error prefix.
void expect_clean_error(const process_result& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "warpsort: error: ");
  EXPECT_CONTAINS(r.output, needle);
}

TEST_F(CliProcess, HelpListsTheSubcommands) {
  const process_result r = run_warpsort("--help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* sub : {"bench", "sort", "fuzz", "generate", "info"}) EXPECT_CONTAINS(r.output, sub);
}

TEST_F(CliProcess, GenerateWritesTheDistributionAsNpy) {
  const process_result r =
      run_warpsort("generate --dist uniform --n 2^12 --seed 3 --output " + path("u.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const warpsort::data::dataset ds = warpsort::data::read_npy(path("u.npy"));
  EXPECT_EQ(ds.type, key_type::uint32);
  ASSERT_EQ(ds.n, 4096u);
  const std::vector<std::uint32_t> expected = warpsort::data::generate<std::uint32_t>("uniform", 3, 4096);
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), ds.keys<std::uint32_t>()));
}

TEST_F(CliProcess, GenerateOtherTypesAndRawFiles) {
  ASSERT_EQ(run_warpsort("generate --dist sorted --n 1000 --type float64 --output " + path("f.npy")).exit_code, 0);
  EXPECT_EQ(warpsort::data::read_npy(path("f.npy")).type, key_type::float64);
  ASSERT_EQ(run_warpsort("generate --dist zero --n 100 --output " + path("z.bin")).exit_code, 0);
  EXPECT_EQ(fs::file_size(path("z.bin")), 400u);
}

TEST_F(CliProcess, GenerateUnknownDistributionNamesTheValidOnes) {
  const process_result r = run_warpsort("generate --dist nosuch --n 10 --output " + path("x.npy"));
  expect_clean_error(r, "nosuch");
  for (const std::string& name : warpsort::data::distribution_names()) EXPECT_CONTAINS(r.output, name);
  EXPECT_FALSE(fs::exists(path("x.npy")));
}

TEST_F(CliProcess, GenerateBadSizeAndMissingOptions) {
  expect_clean_error(run_warpsort("generate --dist uniform --n 12abc --output " + path("x.npy")), "12abc");
  expect_clean_error(run_warpsort("generate --dist uniform --n 0 --output " + path("x.npy")), "at least 1");
  expect_clean_error(run_warpsort("generate --dist uniform --n 10 --type int128 --output " + path("x.npy")), "int128");
  const process_result missing = run_warpsort("generate --dist uniform");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.exit_code, -1);
  EXPECT_CONTAINS(missing.output, "--n");
}

TEST_F(CliProcess, SortMissingFileFailsBeforeTheDevice) {
  const process_result r = run_warpsort("sort --input /nonexistent.npy");
  expect_clean_error(r, "/nonexistent.npy");
  EXPECT_CONTAINS(r.output, "No such file");
  EXPECT_EQ(r.output.find("CUDA"), std::string::npos) << r.output;
}

TEST_F(CliProcess, SortTruncatedNpy) {
  ASSERT_EQ(run_warpsort("generate --dist uniform --n 1000 --output " + path("t.npy")).exit_code, 0);
  fs::resize_file(path("t.npy"), fs::file_size(path("t.npy")) - 10);
  const process_result r = run_warpsort("sort --input " + path("t.npy"));
  expect_clean_error(r, "truncated");
  EXPECT_EQ(r.output.find("CUDA"), std::string::npos) << r.output;
}

TEST_F(CliProcess, SortTwoDimensionalNpy) {
  // A version 1.0 .npy of shape (2, 3), uint32: header padded so the data starts at byte 128.
  std::string header = "{'descr': '<u4', 'fortran_order': False, 'shape': (2, 3), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::ofstream out(path("m.npy"), std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out << header;
  const std::uint32_t keys[6] = {5, 4, 3, 2, 1, 0};
  out.write(reinterpret_cast<const char*>(keys), sizeof keys);
  out.close();
  const process_result r = run_warpsort("sort --input " + path("m.npy"));
  expect_clean_error(r, "2-D");
}

TEST_F(CliProcess, SortRawFileNeedsAType) {
  ASSERT_EQ(run_warpsort("generate --dist uniform --n 100 --output " + path("r.bin")).exit_code, 0);
  expect_clean_error(run_warpsort("sort --input " + path("r.bin")), "key type");
}

TEST_F(CliProcess, UnknownSubcommandAndOption) {
  for (const char* args : {"frobnicate", "bench --bogus", "sort --input x.npy --bogus", "info extra",
                           "fuzz --seconds 1 --bogus", "fuzz"}) {
    const process_result r = run_warpsort(args);
    EXPECT_NE(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_NE(r.exit_code, -1) << args << " crashed\n" << r.output;
  }
}

TEST_F(CliProcess, SortTakesExactlyOneInput) {
  const process_result both = run_warpsort("sort --input " + path("x.npy") + " --dist uniform --n 10");
  expect_clean_error(both, "not both");
  EXPECT_CONTAINS(both.output, "--input");
  EXPECT_CONTAINS(both.output, "--dist");
  expect_clean_error(run_warpsort("sort"), "no input");
  expect_clean_error(run_warpsort("sort --dist uniform"), "--n");
  expect_clean_error(run_warpsort("sort --input " + path("x.npy") + " --seed 3"), "--dist");
  expect_clean_error(run_warpsort("sort --input " + path("x.npy") + " --n 10"), "--dist");
}

TEST_F(CliProcess, SortGeneratedArgumentErrorsComeBeforeTheDevice) {
  const process_result r = run_warpsort("sort --dist nosuch --n 10");
  expect_clean_error(r, "unknown distribution 'nosuch'");
  for (const std::string& name : warpsort::data::distribution_names()) EXPECT_CONTAINS(r.output, name);
  EXPECT_EQ(r.output.find("CUDA"), std::string::npos) << r.output;
  for (const auto& [args, needle] : std::vector<std::pair<std::string, std::string>>{
           {"sort --dist uniform --n 2^x", "2^x"},
           {"sort --dist uniform --n 2^10-1024", "at least 1"},
           {"sort --dist uniform --n 2^41+1", "2^41+1"},
           {"sort --dist uniform --n 10 --type int128", "int128"},
           {"sort --dist uniform --n 10 --reps 0", "--reps"}}) {
    SCOPED_TRACE(args);
    const process_result e = run_warpsort(args);
    expect_clean_error(e, needle);
    EXPECT_EQ(e.output.find("CUDA"), std::string::npos) << e.output;
  }
}

TEST_F(CliProcess, FuzzArgumentErrorsComeBeforeTheDevice) {
  expect_clean_error(run_warpsort("fuzz --seconds 0"), "--seconds");
  expect_clean_error(run_warpsort("fuzz --seconds -1"), "--seconds");
  expect_clean_error(run_warpsort("fuzz --seconds 1 --max-n 2^x"), "2^x");
  // --inject-failure is a hidden debug flag.
  const process_result help = run_warpsort("fuzz --help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_CONTAINS(help.output, "--seconds");
  EXPECT_EQ(help.output.find("inject"), std::string::npos) << help.output;
}

TEST_F(CliProcess, WithoutAGpuSortAndFuzzSaySo) {
  if (warpsort::testing::gpu_unavailable_reason().empty()) GTEST_SKIP() << "a GPU is present";
  const process_result fuzz = run_warpsort("fuzz --seconds 1");
  EXPECT_NE(fuzz.exit_code, 0) << fuzz.output;
  expect_clean_error(fuzz, "no CUDA device is available");
  expect_clean_error(run_warpsort("fuzz --seconds 1 --seed 1 --inject-failure"), "no CUDA device is available");
  expect_clean_error(run_warpsort("sort --dist uniform --n 2^20+1"), "no CUDA device is available");
}

TEST_F(CliProcess, BenchArgumentErrorsComeBeforeTheDevice) {
  expect_clean_error(run_warpsort("bench --sizes 2^x"), "2^x");
  expect_clean_error(run_warpsort("bench --dists nosuch"), "unknown distribution 'nosuch'");
  expect_clean_error(run_warpsort("bench --algos nosuch"), "unknown algorithm 'nosuch'");
  expect_clean_error(run_warpsort("bench --types int128"), "int128");
  expect_clean_error(run_warpsort("bench --types key128 --descending --sizes 2^10"),
                     "ascending only");  // the comparator key's order is its comparator's
  expect_clean_error(run_warpsort("bench --reps 0"), "--reps");
}

TEST_F(CliProcess, BenchDescendingWithOnlyAscendingAlgorithmsFailsBeforeTheDevice) {
  for (const char* algos : {"thrust_sort", "bitonic_textbook,std_sort"}) {
    SCOPED_TRACE(algos);
    const process_result r =
        run_warpsort(std::string("bench --descending --sizes 2^10 --dists uniform --algos ") + algos +
                     " --out " + path("out"));
    expect_clean_error(r, "sorts descending");
    EXPECT_CONTAINS(r.output, std::string(algos).substr(0, std::string(algos).find(',')));
    EXPECT_EQ(r.output.find("CUDA"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(path("out/bench.csv")));
  }
}

TEST_F(CliProcess, PairsArgumentErrorsComeBeforeTheDevice) {
  for (const auto& [args, needle] : std::vector<std::pair<std::string, std::string>>{
           {"bench --values int8", "unknown value type 'int8'"},
           {"bench --values uint32 --algos warpsort,cub_merge", "'cub_merge' sorts keys only"},
           {"bench --values uint64 --algos std_sort", "'std_sort' sorts keys only"},
           {"bench --algos cub_radix_pairs", "--values"},
           {"sort --dist uniform --n 10 --values int8", "unknown value type 'int8'"},
           {"sort --dist uniform --n 2^32 --values uint32", "at most 2^32 - 1"},
           {"sort --dist uniform --n 2^32+12345 --values uint64 --out-of-place", "at most 2^32 - 1"}}) {
    SCOPED_TRACE(args);
    const process_result e = run_warpsort(args);
    expect_clean_error(e, needle);
    EXPECT_EQ(e.output.find("CUDA"), std::string::npos) << e.output;
  }
  // The valid names are listed with the keys-only error.
  const process_result r = run_warpsort("bench --values uint32 --algos cub_merge");
  for (const char* name : {"warpsort", "cub_radix_pairs", "cub_merge_pairs", "cub_merge_stable_pairs"})
    EXPECT_CONTAINS(r.output, name);
}

TEST_F(CliProcess, WithoutAGpuInfoAndBenchSaySo) {
  if (warpsort::testing::gpu_unavailable_reason().empty()) GTEST_SKIP() << "a GPU is present";
  const process_result info = run_warpsort("info");
  expect_clean_error(info, "no CUDA device is available");
  EXPECT_CONTAINS(info.output, "git commit");  // the build part is printed first
  EXPECT_CONTAINS(info.output, "CCCL");
  expect_clean_error(run_warpsort("bench --sizes 2^10 --dists uniform --algos warpsort"),
                     "no CUDA device is available");
  expect_clean_error(
      run_warpsort("bench --descending --sizes 2^10 --dists uniform --algos warpsort,thrust_sort"),
      "no CUDA device is available");
}

// ---- GPU ----

TEST_F(CliProcess, InfoDescribesTheDevice) {
  WARPSORT_REQUIRE_GPU();
  const process_result r = run_warpsort("info");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* text : {"device 0", "SMs:", "compute capability:", "git commit", "CCCL"})
    EXPECT_CONTAINS(r.output, text);
}

TEST_F(CliProcess, TinyBenchWritesValidatedCsvAndJson) {
  WARPSORT_REQUIRE_GPU();
  const process_result r = run_warpsort(
      "bench --sizes 2^10,1000 --dists uniform,zero --algos warpsort,cub_merge,cub_radix --reps 2 "
      "--out " + path("out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;

  std::ifstream csv(path("out/bench.csv"));
  std::string header, line;
  ASSERT_TRUE(std::getline(csv, header));
  EXPECT_EQ(header, warpsort::cli::csv_header());
  int rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 19) << line;
    EXPECT_EQ(line.substr(line.rfind(',') + 1), "true") << line;
  }
  EXPECT_EQ(rows, 2 * 2 * 3);  // sizes x distributions x algorithms

  std::ifstream in(path("out/bench.json"));
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_EQ(doc["results"].size(), 12u);
  EXPECT_FALSE(doc["metadata"]["gpu"].is_null());
  EXPECT_EQ(doc["metadata"]["seed"], 1);
  for (const auto& row : doc["results"]) {
    EXPECT_EQ(row["validated"], true);
    EXPECT_EQ(row["reps"], 2);
    EXPECT_FALSE(row["ratio_vs_cub_merge"].is_null());
    EXPECT_FALSE(row["e2e_pinned_ms"].is_null());
    EXPECT_EQ(row["step1_ms"].is_null(), row["algorithm"] != "warpsort");
  }
}

TEST_F(CliProcess, SortRoundTripAscendingAndDescending) {
  WARPSORT_REQUIRE_GPU();
  ASSERT_EQ(run_warpsort("generate --dist uniform --n 100003 --seed 5 --output " + path("in.npy")).exit_code, 0);
  const process_result up = run_warpsort("sort --input " + path("in.npy") + " --output " + path("up.npy") + " --reps 2");
  ASSERT_EQ(up.exit_code, 0) << up.output;
  EXPECT_CONTAINS(up.output, "valid");
  const process_result down = run_warpsort("sort --descending --input " + path("in.npy") + " --output " +
                                           path("down.npy") + " --reps 2");
  ASSERT_EQ(down.exit_code, 0) << down.output;

  const auto in = warpsort::data::read_npy(path("in.npy"));
  std::vector<std::uint32_t> expected(in.keys<std::uint32_t>(), in.keys<std::uint32_t>() + in.n);
  std::sort(expected.begin(), expected.end());
  const auto sorted = warpsort::data::read_npy(path("up.npy"));
  ASSERT_EQ(sorted.type, key_type::uint32);
  ASSERT_EQ(sorted.n, expected.size());
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), sorted.keys<std::uint32_t>()));
  const auto reversed = warpsort::data::read_npy(path("down.npy"));
  ASSERT_EQ(reversed.n, expected.size());
  EXPECT_TRUE(std::equal(expected.rbegin(), expected.rend(), reversed.keys<std::uint32_t>()));
}

TEST_F(CliProcess, BenchEveryKeyType) {
  WARPSORT_REQUIRE_GPU();
  const process_result r = run_warpsort(
      "bench --sizes 1000 --dists gaussian --algos warpsort --types all --reps 1 --no-e2e --quiet "
      "--out " + path("out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(path("out/bench.json"));
  const nlohmann::json doc = nlohmann::json::parse(in);
  // six key types x (warpsort, cub_merge, cub_radix), and the comparator key's warpsort and
  // cub_merge (no radix sort takes its comparator)
  EXPECT_EQ(doc["results"].size(), 6u * 3u + 2u);
  int comparator_rows = 0;
  for (const auto& row : doc["results"]) {
    EXPECT_EQ(row["validated"], true) << row.dump();
    EXPECT_TRUE(row["e2e_pinned_ms"].is_null());
    if (row["key_type"] == "key128") {
      ++comparator_rows;
      EXPECT_NE(row["algorithm"], "cub_radix") << row.dump();
    }
  }
  EXPECT_EQ(comparator_rows, 2);
}

TEST_F(CliProcess, TinyComparatorKeyBenchKeysAndPairs) {
  WARPSORT_REQUIRE_GPU();
  // keys: warpsort, CUB's merge sort and thrust::sort with the comparator; cub_radix is added for
  // the ratios and skipped with a note
  const process_result keys = run_warpsort(
      "bench --types key128 --sizes 1000,2^12,2^17+3 --dists uniform,zero,sorted --algos "
      "warpsort,cub_merge,thrust_sort_comparator --reps 2 --out " + path("keys"));
  ASSERT_EQ(keys.exit_code, 0) << keys.output;
  // pairs, both value widths: warpsort and CUB's two merge sorts of pairs
  for (const char* values : {"uint32", "uint64"}) {
    const process_result pairs = run_warpsort(
        std::string("bench --types key128 --values ") + values +
        " --sizes 1000,2^12,2^17+3 --dists uniform,zero,sorted --algos "
        "warpsort,cub_merge_pairs,cub_merge_stable_pairs --reps 2 --out " + path(std::string("pairs_") + values));
    ASSERT_EQ(pairs.exit_code, 0) << pairs.output;
  }
  for (const std::string dir : {"keys", "pairs_uint32", "pairs_uint64"}) {
    std::ifstream in(path(dir + "/bench.json"));
    const nlohmann::json doc = nlohmann::json::parse(in);
    const std::string type = dir == "keys" ? "key128" : dir == "pairs_uint32" ? "key128+uint32" : "key128+uint64";
    ASSERT_EQ(doc["results"].size(), 3u * 3u * 3u) << dir;  // sizes x distributions x algorithms
    std::set<std::string> algorithms;
    for (const auto& row : doc["results"]) {
      algorithms.insert(row["algorithm"].get<std::string>());
      EXPECT_EQ(row["key_type"], type) << row.dump();
      EXPECT_EQ(row["validated"], true) << row.dump();
      EXPECT_FALSE(row["ratio_vs_cub_merge"].is_null()) << row.dump();
      EXPECT_TRUE(row["ratio_vs_cub_radix"].is_null()) << row.dump();
      EXPECT_EQ(row["step1_ms"].is_null(), row["algorithm"] != "warpsort");
    }
    EXPECT_EQ(algorithms.count("warpsort"), 1u) << dir;
    EXPECT_EQ(algorithms.count("cub_radix") + algorithms.count("cub_radix_pairs"), 0u) << dir;
    EXPECT_NE(doc["notes"].dump().find("no comparator form"), std::string::npos) << dir;
  }
}

/// The key files hold the same multiset of keys, bit pattern by bit pattern: an output that
/// dropped, duplicated or altered a key differs, however well sorted. Reports the first
/// difference of the two sorted lists of patterns.
template <class Word>
void expect_same_bit_patterns(const unsigned char* a, const unsigned char* b, std::size_t n) {
  std::vector<Word> wa(n), wb(n);
  if (n) {
    std::memcpy(wa.data(), a, n * sizeof(Word));
    std::memcpy(wb.data(), b, n * sizeof(Word));
  }
  std::sort(wa.begin(), wa.end());
  std::sort(wb.begin(), wb.end());
  const auto diff = std::mismatch(wa.begin(), wa.end(), wb.begin());
  EXPECT_TRUE(diff.first == wa.end())
      << "the output is not a permutation of the input: the " << (diff.first - wa.begin())
      << "-th smallest bit pattern is 0x" << std::hex << +*diff.first << " in the input, 0x"
      << +*diff.second << " in the output" << std::dec;
}

void expect_same_multiset(const warpsort::data::dataset& input,
                          const warpsort::data::dataset& output) {
  ASSERT_EQ(input.type, output.type);
  ASSERT_EQ(input.n, output.n);
  ASSERT_EQ(input.bytes.size(), output.bytes.size());
  const std::size_t width = input.n ? input.bytes.size() / input.n : 0;
  if (width == 4)
    expect_same_bit_patterns<std::uint32_t>(input.bytes.data(), output.bytes.data(), input.n);
  else if (width == 8)
    expect_same_bit_patterns<std::uint64_t>(input.bytes.data(), output.bytes.data(), input.n);
  else
    ADD_FAILURE() << "keys of " << width << " bytes";
}

TEST_F(CliProcess, SortRoundTripOtherKeyTypes) {
  WARPSORT_REQUIRE_GPU();
  for (const char* type : {"int32", "float32", "int64", "float64"}) {
    SCOPED_TRACE(type);
    const std::string in = path(std::string("in_") + type + ".npy"), out = path(std::string("out_") + type + ".npy");
    ASSERT_EQ(run_warpsort("generate --dist gaussian --n 5000 --type " + std::string(type) + " --output " + in).exit_code, 0);
    const process_result r = run_warpsort("sort --input " + in + " --output " + out + " --reps 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto input = warpsort::data::read_npy(in);
    const auto sorted = warpsort::data::read_npy(out);
    EXPECT_EQ(sorted.type, input.type);
    ASSERT_EQ(sorted.n, input.n);
    ASSERT_EQ(sorted.bytes.size(), input.bytes.size());
    if (input.type == key_type::float32) {
      EXPECT_TRUE(std::is_sorted(sorted.keys<float>(), sorted.keys<float>() + sorted.n));
    } else if (input.type == key_type::float64) {
      EXPECT_TRUE(std::is_sorted(sorted.keys<double>(), sorted.keys<double>() + sorted.n));
    } else if (input.type == key_type::int32) {
      EXPECT_TRUE(std::is_sorted(sorted.keys<std::int32_t>(), sorted.keys<std::int32_t>() + sorted.n));
    } else {
      EXPECT_TRUE(std::is_sorted(sorted.keys<std::int64_t>(), sorted.keys<std::int64_t>() + sorted.n));
    }
    // sorted is not enough: the output must be the input's keys, each as often (bit for bit)
    expect_same_multiset(input, sorted);
  }
}

}  // namespace

// ---- GPU: sort of generated keys and the fuzzer ----
namespace {

/// The number in "fuzz: N cases, 0 failures" (-1 if absent).
long fuzz_cases(const std::string& output) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex("fuzz: ([0-9]+) cases, 0 failures"))) return -1;
  return std::stol(m[1].str());
}

TEST_F(CliProcess, SortGeneratedValidatesAndPrintsTheFootprint) {
  WARPSORT_REQUIRE_GPU();
  const std::size_t n = 100003;
  const process_result r = run_warpsort("sort --dist uniform --n 100003 --type float64 --descending "
                                        "--output " + path("down.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* text : {"n: 100003", "float64", "descending", "in place", "plan:", "round(s)",
                           "groups", "median", "Gkeys/s", "1 sort_chunks", "4 merge_groups",
                           "footprint: ", " bytes/key", "validation: valid"})
    EXPECT_CONTAINS(r.output, text);
  // The same generator call as data::generate<double>("uniform", 1, ...), sorted descending.
  std::vector<double> expected = warpsort::data::generate<double>("uniform", 1, n);
  std::sort(expected.begin(), expected.end(), [](double a, double b) { return b < a; });
  const auto sorted = warpsort::data::read_npy(path("down.npy"));
  ASSERT_EQ(sorted.type, key_type::float64);
  ASSERT_EQ(sorted.n, n);
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), sorted.keys<double>()));
}

TEST_F(CliProcess, SortGeneratedSizeFormsOutOfPlaceAndEmpty) {
  WARPSORT_REQUIRE_GPU();
  const process_result r = run_warpsort("sort --dist entropy_0.337 --n 2^16+1 --seed 9 --type int64 "
                                        "--out-of-place --reps 3 --warmup 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "n: 65537");
  EXPECT_CONTAINS(r.output, "out of place");
  EXPECT_CONTAINS(r.output, "over 3 run(s)");
  EXPECT_CONTAINS(r.output, "validation: valid");
  const process_result empty = run_warpsort("sort --dist uniform --n 0");
  EXPECT_EQ(empty.exit_code, 0) << empty.output;
  EXPECT_CONTAINS(empty.output, "validation: valid");
}

TEST_F(CliProcess, TinyPairsBenchWritesValidatedRows) {
  WARPSORT_REQUIRE_GPU();
  const process_result r = run_warpsort(
      "bench --values uint32 --sizes 1000,2^12 --dists uniform,zero --reps 2 --out " + path("out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(path("out/bench.json"));
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_EQ(doc["results"].size(), 2u * 2u * 4u);  // sizes x distributions x algorithms
  std::set<std::string> algorithms;
  for (const auto& row : doc["results"]) {
    algorithms.insert(row["algorithm"].get<std::string>());
    EXPECT_EQ(row["key_type"], "uint32+uint32") << row.dump();
    EXPECT_EQ(row["validated"], true) << row.dump();
    EXPECT_EQ(row["reps"], 2);
    EXPECT_FALSE(row["ratio_vs_cub_merge"].is_null()) << row.dump();
    EXPECT_FALSE(row["ratio_vs_cub_radix"].is_null()) << row.dump();
    EXPECT_TRUE(row["e2e_pinned_ms"].is_null()) << row.dump();
    EXPECT_EQ(row["step1_ms"].is_null(), row["algorithm"] != "warpsort");
  }
  EXPECT_EQ(algorithms, (std::set<std::string>{"warpsort", "cub_radix_pairs", "cub_merge_pairs",
                                               "cub_merge_stable_pairs"}));
  EXPECT_NE(doc["method"]["ratios"].get<std::string>().find("StableSortPairs"), std::string::npos);
  std::ifstream csv(path("out/bench.csv"));
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  int rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    EXPECT_NE(line.find(",uint32+uint32,"), std::string::npos) << line;
    EXPECT_EQ(line.substr(line.rfind(',') + 1), "true") << line;
  }
  EXPECT_EQ(rows, 16);
}

TEST_F(CliProcess, TinyDescendingBenchKeysAndPairs) {
  WARPSORT_REQUIRE_GPU();
  // Keys: thrust_sort sorts ascending only, so it is skipped with a note.
  const process_result keys = run_warpsort(
      "bench --descending --sizes 2^10,1000 --dists uniform,zero --algos warpsort,thrust_sort "
      "--reps 2 --out " + path("keys"));
  ASSERT_EQ(keys.exit_code, 0) << keys.output;
  EXPECT_CONTAINS(keys.output, "uint32 uniform n=2^10 descending");
  EXPECT_CONTAINS(keys.output, "skipped with --descending");
  // Pairs: every pair baseline sorts descending.
  const process_result pairs = run_warpsort(
      "bench --descending --values uint32 --sizes 1000,2^12 --dists uniform,zero --reps 2 --out " +
      path("pairs"));
  ASSERT_EQ(pairs.exit_code, 0) << pairs.output;
  EXPECT_CONTAINS(pairs.output, "uint32+uint32 zero n=2^12 descending");

  for (const auto& [dir, expected] : std::vector<std::pair<std::string, std::set<std::string>>>{
           {"keys", {"warpsort", "cub_merge", "cub_radix"}},
           {"pairs", {"warpsort", "cub_radix_pairs", "cub_merge_pairs", "cub_merge_stable_pairs"}}}) {
    SCOPED_TRACE(dir);
    std::ifstream in(path(dir + "/bench.json"));
    const nlohmann::json doc = nlohmann::json::parse(in);
    EXPECT_EQ(doc["metadata"]["config"]["descending"], true);
    ASSERT_EQ(doc["results"].size(), 2u * 2u * expected.size());
    std::set<std::string> algorithms;
    for (const auto& row : doc["results"]) {
      algorithms.insert(row["algorithm"].get<std::string>());
      EXPECT_EQ(row["validated"], true) << row.dump();
      EXPECT_TRUE(row["distribution"] == "uniform" || row["distribution"] == "zero") << row.dump();
      EXPECT_FALSE(row["ratio_vs_cub_merge"].is_null()) << row.dump();
      EXPECT_FALSE(row["ratio_vs_cub_radix"].is_null()) << row.dump();
    }
    EXPECT_EQ(algorithms, expected);
    std::ifstream csv(path(dir + "/bench.csv"));
    std::string header, line;
    ASSERT_TRUE(std::getline(csv, header));
    EXPECT_EQ(header, warpsort::cli::csv_header());
    while (std::getline(csv, line)) EXPECT_EQ(line.substr(line.rfind(',') + 1), "true") << line;
  }
}

TEST_F(CliProcess, SortGeneratedPairsValidatesAndWritesStableIndices) {
  WARPSORT_REQUIRE_GPU();
  const std::size_t n = 100003;
  const process_result r = run_warpsort("sort --dist randomized_duplicates --n 100003 --type float32 "
                                        "--values uint64 --output " + path("p.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* text : {"n: 100003", "values uint64", "Gpairs/s", "1 sort_chunks", "bytes/pair",
                           "validation: valid", "StableSortPairs"})
    EXPECT_CONTAINS(r.output, text);
  const std::vector<float> input = warpsort::data::generate<float>("randomized_duplicates", 1, n);
  const auto keys = warpsort::data::read_npy(path("p.npy"));
  const auto values = warpsort::data::read_npy(path("p.values.npy"));
  ASSERT_EQ(keys.type, key_type::float32);
  ASSERT_EQ(values.type, key_type::uint64);
  ASSERT_EQ(keys.n, n);
  ASSERT_EQ(values.n, n);
  const float* k = keys.keys<float>();
  const std::uint64_t* v = values.keys<std::uint64_t>();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_LT(v[i], n);
    ASSERT_EQ(k[i], input[v[i]]) << i;
    if (i > 0) {
      ASSERT_LE(k[i - 1], k[i]) << i;
      if (k[i - 1] == k[i]) ASSERT_LT(v[i - 1], v[i]) << "not stable at " << i;
    }
  }
  // Out of place, uint32 values, descending.
  const process_result down = run_warpsort("sort --dist randomized_duplicates --n 100003 --type float32 "
                                           "--values uint32 --out-of-place --descending --reps 2");
  ASSERT_EQ(down.exit_code, 0) << down.output;
  EXPECT_CONTAINS(down.output, "validation: valid");
}

TEST_F(CliProcess, FuzzRunsCleanCases) {
  WARPSORT_REQUIRE_GPU();
  const process_result r = run_warpsort("fuzz --seconds 5 --seed 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "seed 1");
  EXPECT_GT(fuzz_cases(r.output), 0) << r.output;
  EXPECT_CONTAINS(r.output, "largest n");
  // About one case in three sorts key-value pairs.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex("([0-9]+) of them key-value pairs"))) << r.output;
  EXPECT_GT(std::stol(m[1].str()), 0) << r.output;
}

TEST_F(CliProcess, FuzzReportsAnInjectedFailureWithAReproCommand) {
  WARPSORT_REQUIRE_GPU();
  const process_result r = run_warpsort("fuzz --seconds 5 --seed 1 --inject-failure");
  ASSERT_EQ(r.exit_code, 1) << r.output;
  EXPECT_CONTAINS(r.output, "FAILED");
  EXPECT_CONTAINS(r.output, "mismatch");
  EXPECT_EQ(fuzz_cases(r.output), -1) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex("warpsort (sort --dist [^\\n]*)"))) << r.output;
  // The repro command runs the same case without the corruption: it must pass.
  const process_result repro = run_warpsort(m[1].str());
  EXPECT_EQ(repro.exit_code, 0) << m[1].str() << "\n" << repro.output;
  EXPECT_CONTAINS(repro.output, "validation: valid");
}

#ifdef WARPSORT_CLI_HAS_DIST
// `warpsort dist`: bad arguments are refused once by the launcher, before any rank starts (no
// GPU needed); the runs across GPUs skip with the reason on a machine of fewer.

/// How many times `needle` occurs in `text`.
std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

TEST_F(CliProcess, DistRefusesBadArgumentsOnceBeforeAnyRank) {
  for (const auto& [args, needle] : std::vector<std::pair<std::string, std::string>>{
           {"dist --gpus 2 --sizes 2^x", "2^x"},
           {"dist --gpus 2 --sizes 2^20 --reps 0", "--reps 0"},
           {"dist --gpus 2 --sizes 2^20 --dists nosuch", "nosuch"},
           {"dist --gpus 2 --sizes 2^20 --type int128", "int128"},
           {"dist --gpus 2 --sizes 2^20 --timeout -3", "--timeout"},
           {"dist --gpus 2 --sizes 2^20 --stall-rank 1", "--stall-phase"},
           {"dist --gpus 2 --sizes 2^20 --stall-rank 1 --stall-phase nowhere", "nowhere"},
           {"dist --gpus 2 --sizes 2^20 --stall-rank 5 --stall-phase exchange", "--stall-rank 5"},
           {"dist --gpus -1 --sizes 2^20", "--gpus -1"}}) {
    const process_result r = run_warpsort(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_EQ(occurrences(r.output, "warpsort: error: "), 1u) << args << "\n" << r.output;
    EXPECT_CONTAINS(r.output, needle);
  }
}

/// GPUs on this machine (0 without a usable device).
int gpu_count() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return devices;
}

#define WARPSORT_REQUIRE_GPUS(k)                                                              \
  do {                                                                                        \
    WARPSORT_REQUIRE_GPU();                                                                   \
    if (gpu_count() < (k))                                                                    \
      GTEST_SKIP() << "needs " << (k) << " GPUs (one a rank); this machine has " << gpu_count(); \
  } while (0)

/// Processes whose command line holds `marker` (a rank left behind would hold it).
std::vector<std::string> processes_with(const std::string& marker) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find("warpsort") != std::string::npos && cmdline.find(marker) != std::string::npos)
      found.push_back(name + ": " + cmdline);
  }
  return found;
}

/// Seconds `f` takes.
template <class F>
double seconds_of(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(CliProcess, DistSortsEveryTotalThatHungOnTwoGpus) {
  WARPSORT_REQUIRE_GPUS(2);
  // 3 mod 8 on two ranks, fewer keys than ranks, none at all: each once hung
  const process_result r = run_warpsort(
      "dist --gpus 2 --sizes 0,1,2,3,11,19,4099,8195 --reps 1 --warmup 0 --timeout 60");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(occurrences(r.output, "| valid"), 8u) << r.output;
}

TEST_F(CliProcess, DistRecordsEveryRanksPhases) {
  WARPSORT_REQUIRE_GPUS(2);
  // the exchange in parts (never gathered), so the merge phase has a last part
  const process_result r = run_warpsort("dist --gpus 2 --sizes 2^20,2^22 --reps 2 --warmup 1 "
                                        "--no-baseline --gather never --timeout 60 --out " +
                                        path("dist"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(path("dist/dist.json"));
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_EQ(doc["results"].size(), 2u);
  for (const auto& record : doc["results"]) {
    ASSERT_EQ(record["ranks"].size(), 2u) << record.dump();
    for (const auto& rank : record["ranks"]) {
      for (const char* phase : {"ms", "local_sort_ms", "splitters_ms", "exchange_ms", "merge_ms"})
        EXPECT_GT(rank[phase].get<double>(), 0.0) << phase << ": " << record.dump();
      EXPECT_GT(rank["last_part_merge_ms"].get<double>(), 0.0) << record.dump();
      // (the merge phase starts on the exchange's stream: clocks a few microseconds apart)
      EXPECT_LE(rank["last_part_merge_ms"].get<double>(), rank["merge_ms"].get<double>() + 5e-3)
          << record.dump();
    }
  }
}

TEST_F(CliProcess, DistSortsSmallTotalsOnThreeAndFourGpus) {
  WARPSORT_REQUIRE_GPUS(3);
  for (int gpus = 3; gpus <= std::min(gpu_count(), 4); ++gpus) {
    const process_result r = run_warpsort("dist --gpus " + std::to_string(gpus) +
                                          " --sizes 0,1,2,7,8,1001 --reps 1 --warmup 0 "
                                          "--no-baseline --rebalance --timeout 60");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(occurrences(r.output, "| valid"), 6u) << r.output;
  }
}

TEST_F(CliProcess, DistStalledRankEndsWithTheNamedErrorWithinTheDeadline) {
  WARPSORT_REQUIRE_GPUS(2);
  const std::string marker = "--seed 424242";
  process_result r;
  const double took = seconds_of([&] {
    r = run_warpsort("dist --gpus 2 --sizes 2^20 --reps 1 --warmup 0 --no-baseline --timeout 5 "
                     "--stall-rank 1 --stall-phase exchange " + marker);
  });
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.exit_code, -1) << "crashed\n" << r.output;
  EXPECT_CONTAINS(r.output, "rank 0");
  EXPECT_CONTAINS(r.output, "phase exchange");
  EXPECT_CONTAINS(r.output, "deadline of 5 s");
  EXPECT_EQ(occurrences(r.output, "phase exchange"), 1u) << "reported once\n" << r.output;
  EXPECT_LT(took, 5 + 25.0) << "the deadline plus the start (NCCL's init) and the stop\n" << r.output;
  EXPECT_TRUE(processes_with(marker).empty()) << "a rank was left behind";
}

TEST_F(CliProcess, DistKilledRankStopsEveryRank) {
  WARPSORT_REQUIRE_GPUS(2);
  const std::string marker = "--seed 434343";
  process_result r;
  const double took = seconds_of([&] {
    r = run_warpsort("dist --gpus 2 --sizes 2^20 --reps 1 --warmup 0 --no-baseline --timeout 300 "
                     "--gather never --stall-rank 1 --stall-phase splitters --stall-action kill " + marker);
  });
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_CONTAINS(r.output, "rank 1 was killed by signal 9");
  EXPECT_CONTAINS(r.output, "splitters");
  EXPECT_LT(took, 60.0) << "the launcher stops the peers at once, not at the 300 s deadline\n" << r.output;
  EXPECT_TRUE(processes_with(marker).empty()) << "a rank was left behind";
}

TEST_F(CliProcess, DistStoppedLauncherStopsEveryRank) {
  WARPSORT_REQUIRE_GPUS(2);
  const std::string marker = "--seed 454545";
  // the launcher in the background, stopped (SIGTERM) while rank 1 stalls
  const std::string command = "cd '" + cli_test_dir() + "' && ('" + cli_binary() +
                              "' dist --gpus 2 --sizes 2^20 --reps 1 --warmup 0 --no-baseline "
                              "--timeout 300 --stall-rank 1 --stall-phase merge " + marker +
                              " > " + path("stopped.log") + " 2>&1 & pid=$!; sleep 15; kill -TERM $pid; "
                              "wait $pid; echo \"exit $?\" >> " + path("stopped.log") + ")";
  const double took = seconds_of([&] { ASSERT_EQ(std::system(command.c_str()), 0); });
  std::ifstream in(path("stopped.log"));
  const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_CONTAINS(log, "stopped by signal");
  EXPECT_CONTAINS(log, "exit 143");
  EXPECT_LT(took, 40.0) << log;
  EXPECT_TRUE(processes_with(marker).empty()) << "a rank was left behind\n" << log;
}
#endif

}  // namespace

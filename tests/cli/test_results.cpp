// CSV rows and header, ratios, JSON rows and files, goal lines, the summary table.
#include "cli/results.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace warpsort::cli;

result_row make_row(const std::string& algorithm, const std::string& platform, double median_ms,
                    std::size_t n = 1024, const std::string& dist = "uniform") {
  result_row r;
  r.algorithm = algorithm;
  r.platform = platform;
  r.key_type = "uint32";
  r.distribution = dist;
  r.n = n;
  r.reps = 5;
  r.median_ms = r.min_ms = r.max_ms = median_ms;
  r.keys_per_s = 1e9;
  r.bandwidth_gbs = 8;
  return r;
}

std::size_t count(const std::string& s, char c) { return std::count(s.begin(), s.end(), c); }

TEST(Csv, HeaderIsExact) {
  EXPECT_EQ(csv_header(),
            "algorithm,platform,key_type,distribution,n,reps,median_ms,min_ms,max_ms,keys_per_s,"
            "bandwidth_gbs,ratio_vs_cub_merge,ratio_vs_cub_radix,e2e_pageable_ms,e2e_pinned_ms,"
            "step1_ms,step2_ms,step3_ms,step4_ms,validated");
  EXPECT_EQ(csv_columns().size(), 20u);
}

TEST(Csv, RowHasEveryColumnAndEmptyCellsWhereNotApplicable) {
  result_row cpu = make_row("std_sort", "cpu", 1.5);
  cpu.validated = false;
  EXPECT_EQ(csv_row(cpu), "std_sort,cpu,uint32,uniform,1024,5,1.5,1.5,1.5,1e+09,8,,,,,,,,,false");

  result_row ws = make_row("warpsort", "gpu", 0.25);
  ws.ratio_vs_cub_merge = 2;
  ws.ratio_vs_cub_radix = 0.5;
  ws.e2e_pageable_ms = 3;
  ws.e2e_pinned_ms = 2;
  ws.step1_ms = 0.1;
  ws.step2_ms = 0.05;
  ws.step3_ms = 0.01;
  ws.step4_ms = 0.09;
  const std::string line = csv_row(ws);
  EXPECT_EQ(count(line, ','), csv_columns().size() - 1);
  EXPECT_EQ(line, "warpsort,gpu,uint32,uniform,1024,5,0.25,0.25,0.25,1e+09,8,2,0.5,3,2,0.1,0.05,0.01,0.09,true");
}

TEST(Ratios, FromCubRowsOfTheSameInput) {
  std::vector<result_row> rows{make_row("warpsort", "gpu", 1.0), make_row("cub_merge", "gpu", 2.0),
                               make_row("cub_radix", "gpu", 0.5),
                               make_row("warpsort", "gpu", 4.0, 1024, "zero"),
                               make_row("std_sort", "cpu", 100.0)};
  fill_ratios(rows);
  EXPECT_DOUBLE_EQ(*rows[0].ratio_vs_cub_merge, 2.0);
  EXPECT_DOUBLE_EQ(*rows[0].ratio_vs_cub_radix, 0.5);
  EXPECT_DOUBLE_EQ(*rows[1].ratio_vs_cub_merge, 1.0);
  EXPECT_FALSE(rows[3].ratio_vs_cub_merge);  // no cub rows for "zero"
  EXPECT_DOUBLE_EQ(*rows[4].ratio_vs_cub_merge, 0.02);
}

TEST(Json, RowObjectsUseNullForEmptyCells) {
  const nlohmann::json j = row_to_json(make_row("std_sort", "cpu", 1.5));
  for (const std::string& column : csv_columns()) EXPECT_TRUE(j.contains(column)) << column;
  EXPECT_TRUE(j["e2e_pinned_ms"].is_null());
  EXPECT_EQ(j["validated"], true);
  EXPECT_EQ(j["n"], 1024);
}

TEST(Json, FootprintOnlyInJsonAndOnlyForWarpsort) {
  result_row ws = make_row("warpsort", "gpu", 0.25);
  ws.footprint_bytes_per_key = 8.0625;
  const nlohmann::json j = row_to_json(ws);
  EXPECT_DOUBLE_EQ(j["footprint_bytes_per_key"].get<double>(), 8.0625);
  EXPECT_TRUE(row_to_json(make_row("cub_merge", "gpu", 1.0))["footprint_bytes_per_key"].is_null());
  // The CSV keeps its fixed columns.
  EXPECT_EQ(csv_header().find("footprint"), std::string::npos);
  EXPECT_EQ(count(csv_row(ws), ','), csv_columns().size() - 1);
  EXPECT_TRUE(method_description(1, 5, 3, true).contains("footprint_bytes_per_key"));
}

TEST(Files, CsvAndJsonWrittenIntoNewDirectories) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("warpsort_test_results_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::vector<result_row> rows{make_row("warpsort", "gpu", 1.0), make_row("cub_merge", "gpu", 2.0)};
  write_csv((dir / "sub" / "bench.csv").string(), rows);
  write_json((dir / "sub" / "bench.json").string(), {{"seed", 1}},
             method_description(1, 5, 3, true), {"a note"}, rows);

  std::ifstream csv(dir / "sub" / "bench.csv");
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header, csv_header());
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  EXPECT_EQ(lines, 2);

  std::ifstream in(dir / "sub" / "bench.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["metadata"]["seed"], 1);
  EXPECT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["notes"][0], "a note");
  for (const char* key : {"gpu_timing", "warpsort_steps", "validation", "end_to_end", "cpu_timing",
                          "keys_per_s", "bandwidth_gbs", "ratios", "memory"})
    EXPECT_TRUE(doc["method"].contains(key)) << key;
  EXPECT_NE(doc["method"]["bandwidth_gbs"].get<std::string>().find("CCCL"), std::string::npos);
  EXPECT_NE(doc["method"]["end_to_end"].get<std::string>().find("cudaMallocHost"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Goals, SeedGoalsAndCpuSpeedups) {
  result_row cpu = make_row("std_sort", "cpu", 2000.0, std::size_t{1} << 24);
  result_row fast_cpu = make_row("tbb_parallel_sort", "cpu", 400.0, std::size_t{1} << 24);
  result_row ws = make_row("warpsort", "gpu", 10.0, std::size_t{1} << 24);
  ws.e2e_pinned_ms = 40.0;
  result_row big = make_row("warpsort", "gpu", 60.0, std::size_t{1} << 30);
  big.e2e_pageable_ms = 25000.0;
  const std::vector<std::string> lines = goal_lines({cpu, fast_cpu, ws, big});
  auto has = [&](const std::string& text) {
    for (const auto& l : lines)
      if (l.find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("std_sort uint32 uniform: 2.000 s -> MISSED"));
  EXPECT_TRUE(has("tbb_parallel_sort uint32 uniform: 400.000 ms -> met"));
  EXPECT_TRUE(has("2^30 keys < 20 s on a GPU: warpsort uint32 uniform: device 60.000 ms -> met; "
                  "end-to-end pageable 25.000 s -> MISSED"));
  EXPECT_TRUE(has("warpsort speedup over std_sort (uint32 uniform 2^24): 200.0x device time, "
                  "50.0x end-to-end pinned"));
}

TEST(Summary, PrintsEveryAlgorithmAndTheFooter) {
  result_row ws = make_row("warpsort", "gpu", 1.0);
  ws.step1_ms = 0.1;
  ws.step2_ms = 0.2;
  ws.step3_ms = 0.3;
  ws.step4_ms = 0.4;
  ws.footprint_bytes_per_key = 8.0625;
  std::vector<result_row> rows{ws, make_row("cub_merge", "gpu", 2.0)};
  fill_ratios(rows);
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  print_summary(out, rows, {"cub_radix ran although not listed"});
  std::fclose(out);
  const std::string text(buffer, size);
  std::free(buffer);
  for (const char* expected : {"uint32 uniform n=2^10 (1024 keys)", "warpsort", "cub_merge", "2.00x",
                               "1 sort_chunks 0.1000", "4 merge_groups 0.4000 | footprint 8.06 B/key",
                               "cub_radix ran although not listed", "one read + one write per key"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
}

}  // namespace

namespace {

TEST(Ratios, PairRowsUseTheStableMergeAndRadixPairSorts) {
  std::vector<result_row> rows{make_row("warpsort", "gpu", 1), make_row("cub_merge_stable_pairs", "gpu", 4),
                               make_row("cub_radix_pairs", "gpu", 2), make_row("cub_merge_pairs", "gpu", 3)};
  for (auto& r : rows) r.key_type = "uint32+uint32";
  rows.push_back(make_row("cub_merge", "gpu", 8));  // a keys-only row of the same n
  rows.push_back(make_row("warpsort", "gpu", 2));
  fill_ratios(rows);
  EXPECT_DOUBLE_EQ(*rows[0].ratio_vs_cub_merge, 4.0);
  EXPECT_DOUBLE_EQ(*rows[0].ratio_vs_cub_radix, 2.0);
  EXPECT_DOUBLE_EQ(*rows[3].ratio_vs_cub_merge, 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(*rows[5].ratio_vs_cub_merge, 4.0);  // keys-only: against keys-only cub_merge
  EXPECT_FALSE(rows[5].ratio_vs_cub_radix);
}

TEST(Method, PairsModeDescribesItsReferencesAndBaselines) {
  const std::string keys = method_description(1, 5, 3, true).dump();
  EXPECT_EQ(keys.find("StableSortPairs"), std::string::npos);
  const std::string pairs = method_description(1, 5, 3, true, value_type::uint64).dump();
  for (const char* text : {"StableSortPairs", "DeviceRadixSort::SortPairs", "sizeof(value)",
                           "not measured for pairs", "uint32+uint64", "permutation"})
    EXPECT_NE(pairs.find(text), std::string::npos) << text;
}

}  // namespace

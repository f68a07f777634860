// Benchmark results: one row per (algorithm, key type, distribution, n), the CSV and JSON files,
// and the readable summary printed to stdout. Pure C++.
#pragma once

#include "cli/value_type.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace warpsort::cli {

struct result_row {
  std::string algorithm;
  std::string platform;  // "gpu" | "cpu"
  std::string key_type;
  std::string distribution;
  std::size_t n = 0;
  int reps = 0;  // timed runs behind median/min/max
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double keys_per_s = 0, bandwidth_gbs = 0;
  // Empty where not applicable (no cub run, CPU rows for e2e, steps outside warpsort).
  std::optional<double> ratio_vs_cub_merge, ratio_vs_cub_radix;
  std::optional<double> e2e_pageable_ms, e2e_pinned_ms;
  std::optional<double> step1_ms, step2_ms, step3_ms, step4_ms;
  bool validated = true;  // every run (warm-up and timed) matched the references
  // JSON and summary only, not a CSV column (the CSV header is fixed): warpsort rows' device
  // bytes per key of the sort itself, (n sizeof(key) + temporary storage bytes) / n.
  std::optional<double> footprint_bytes_per_key;
};

/// The CSV columns, in order (the header row joins them with commas).
const std::vector<std::string>& csv_columns();
std::string csv_header();
std::string csv_row(const result_row& row);

/// Sets ratio_vs_cub_merge / ratio_vs_cub_radix of every row from the cub_merge / cub_radix row
/// of the same (key type, distribution, n), where there is one; pair rows (key type "K+V") from
/// the cub_merge_stable_pairs / cub_radix_pairs row.
void fill_ratios(std::vector<result_row>& rows);

nlohmann::json row_to_json(const result_row& row);

/// Throw warpsort::input_error if the file cannot be written; create missing directories.
void write_csv(const std::string& path, const std::vector<result_row>& rows);
void write_json(const std::string& path, const nlohmann::json& metadata,
                const nlohmann::json& method, const std::vector<std::string>& notes,
                const std::vector<result_row>& rows);

/// How the numbers were taken (the JSON "method" object); `values` other than none describes a
/// pairs benchmark (bench --values).
nlohmann::json method_description(int warmup, int reps, int cpu_reps, bool e2e,
                                  value_type values = value_type::none);

/// Lines on the seed's goals ("2^24 keys under 1 s on a CPU", "2^30 keys under 20 s on a GPU")
/// for rows at those sizes, and warpsort's speedup over each CPU baseline at the same
/// (key type, distribution, n).
std::vector<std::string> goal_lines(const std::vector<result_row>& rows);

/// The readable table: per (key type, distribution, n) each algorithm's median, Gkeys/s and
/// ratios, and warpsort's four steps; then the notes, goal lines and a footer on the metrics.
/// `descending` (bench --descending) appends " descending" to each group's header line.
void print_summary(std::FILE* out, const std::vector<result_row>& rows,
                   const std::vector<std::string>& notes, bool descending = false);

}  // namespace warpsort::cli

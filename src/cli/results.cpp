#include "cli/results.hpp"

#include "cli/bench_config.hpp"
#include "cli/metrics.hpp"

#include <warpsort/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>

namespace warpsort::cli {
namespace {

std::string number(double v) { return fmt::format("{:.7g}", v); }
std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : ""; }

/// Rows of one (key type, distribution, n), in the order they were run.
using group_key = std::tuple<std::string, std::string, std::size_t>;
group_key group_of(const result_row& r) { return {r.key_type, r.distribution, r.n}; }

std::vector<std::pair<group_key, std::vector<const result_row*>>> grouped(
    const std::vector<result_row>& rows) {
  std::vector<std::pair<group_key, std::vector<const result_row*>>> groups;
  for (const auto& row : rows) {
    const group_key key = group_of(row);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) {
      groups.push_back({key, {}});
      it = std::prev(groups.end());
    }
    it->second.push_back(&row);
  }
  return groups;
}

const result_row* find_row(const std::vector<const result_row*>& group, const std::string& algorithm) {
  for (const result_row* r : group)
    if (r->algorithm == algorithm) return r;
  return nullptr;
}

std::ofstream open_for_writing(const std::string& path) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw input_error("cannot write '" + path + "'");
  return out;
}

std::string seconds_or_ms(double ms) {
  return ms >= 1000 ? fmt::format("{:.3f} s", ms / 1000) : fmt::format("{:.3f} ms", ms);
}

}  // namespace

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> columns{
      "algorithm",       "platform",      "key_type",     "distribution",       "n",
      "reps",            "median_ms",     "min_ms",       "max_ms",             "keys_per_s",
      "bandwidth_gbs",   "ratio_vs_cub_merge", "ratio_vs_cub_radix", "e2e_pageable_ms",
      "e2e_pinned_ms",   "step1_ms",      "step2_ms",     "step3_ms",           "step4_ms",
      "validated"};
  return columns;
}

std::string csv_header() { return join(csv_columns(), ","); }

std::string csv_row(const result_row& r) {
  // Names are identifiers from fixed lists (no commas or quotes), so no CSV quoting is needed.
  return join({r.algorithm, r.platform, r.key_type, r.distribution, std::to_string(r.n),
               std::to_string(r.reps), number(r.median_ms), number(r.min_ms), number(r.max_ms),
               number(r.keys_per_s), number(r.bandwidth_gbs), optional_number(r.ratio_vs_cub_merge),
               optional_number(r.ratio_vs_cub_radix), optional_number(r.e2e_pageable_ms),
               optional_number(r.e2e_pinned_ms), optional_number(r.step1_ms),
               optional_number(r.step2_ms), optional_number(r.step3_ms),
               optional_number(r.step4_ms), r.validated ? "true" : "false"},
              ",");
}

void fill_ratios(std::vector<result_row>& rows) {
  std::map<group_key, double> merge_ms, radix_ms;
  for (const auto& r : rows) {
    // Keys-only rows and pair rows never share a group: pair rows' key type is "K+V".
    if (r.algorithm == "cub_merge" || r.algorithm == "cub_merge_stable_pairs")
      merge_ms[group_of(r)] = r.median_ms;
    if (r.algorithm == "cub_radix" || r.algorithm == "cub_radix_pairs")
      radix_ms[group_of(r)] = r.median_ms;
  }
  for (auto& r : rows) {
    if (auto it = merge_ms.find(group_of(r)); it != merge_ms.end())
      r.ratio_vs_cub_merge = speed_ratio(it->second, r.median_ms);
    if (auto it = radix_ms.find(group_of(r)); it != radix_ms.end())
      r.ratio_vs_cub_radix = speed_ratio(it->second, r.median_ms);
  }
}

nlohmann::json row_to_json(const result_row& r) {
  auto optional = [](const std::optional<double>& v) -> nlohmann::json {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"algorithm", r.algorithm},
          {"platform", r.platform},
          {"key_type", r.key_type},
          {"distribution", r.distribution},
          {"n", r.n},
          {"reps", r.reps},
          {"median_ms", r.median_ms},
          {"min_ms", r.min_ms},
          {"max_ms", r.max_ms},
          {"keys_per_s", r.keys_per_s},
          {"bandwidth_gbs", r.bandwidth_gbs},
          {"ratio_vs_cub_merge", optional(r.ratio_vs_cub_merge)},
          {"ratio_vs_cub_radix", optional(r.ratio_vs_cub_radix)},
          {"e2e_pageable_ms", optional(r.e2e_pageable_ms)},
          {"e2e_pinned_ms", optional(r.e2e_pinned_ms)},
          {"step1_ms", optional(r.step1_ms)},
          {"step2_ms", optional(r.step2_ms)},
          {"step3_ms", optional(r.step3_ms)},
          {"step4_ms", optional(r.step4_ms)},
          {"validated", r.validated},
          {"footprint_bytes_per_key", optional(r.footprint_bytes_per_key)}};
}

void write_csv(const std::string& path, const std::vector<result_row>& rows) {
  std::ofstream out = open_for_writing(path);
  out << csv_header() << '\n';
  for (const auto& r : rows) out << csv_row(r) << '\n';
  if (!out.flush()) throw input_error("error writing '" + path + "'");
}

void write_json(const std::string& path, const nlohmann::json& metadata,
                const nlohmann::json& method, const std::vector<std::string>& notes,
                const std::vector<result_row>& rows) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& r : rows) results.push_back(row_to_json(r));
  const nlohmann::json doc{
      {"metadata", metadata}, {"method", method}, {"notes", notes}, {"results", results}};
  std::ofstream out = open_for_writing(path);
  out << doc.dump(2) << '\n';
  if (!out.flush()) throw input_error("error writing '" + path + "'");
}

nlohmann::json method_description(int warmup, int reps, int cpu_reps, bool e2e, value_type values) {
  if (values != value_type::none) {
    const std::string v = value_type_name(values);
    return {
        {"pairs",
         fmt::format("key-value pairs: every algorithm sorts (key, value) pairs by key, the values "
                     "being the input indices 0..n-1 ({}), i.e. an argsort; key_type is "
                     "'key+value', e.g. uint32+{}. warpsort rows are warpsort::sort_pairs "
                     "(stable), sorting in place.",
                     v, v)},
        {"gpu_timing",
         fmt::format("CUDA events recorded on the stream immediately before and after the sort "
                     "call; {} warm-up run(s) then {} timed run(s); median/min/max of the timed "
                     "runs. Before every run the work keys AND values are restored from pristine "
                     "device copies with cudaMemcpyAsync (not timed). All temporary storage is "
                     "allocated before timing.",
                     warmup, reps)},
        {"warpsort_steps",
         "warpsort's headline time comes from runs without stage timing (no extra "
         "synchronization); step1_ms..step4_ms are medians from a separate set of timed runs with "
         "stage_times (events between the four steps: sort_chunks, merge_sequences, split, "
         "merge_groups)."},
        {"validation",
         "One stable reference per (type, distribution, n): cub::DeviceMergeSort::StableSortPairs "
         "of the input pairs, checked once with warpsort::validate_pairs_against_references "
         "(cub::DeviceRadixSort::SortPairs and cub::DeviceMergeSort::StableSortPairs, keys under "
         "the order's equivalence, values exactly). Every run (warm-up and timed) of every "
         "algorithm is then checked on the device: every output value is an index < n and the "
         "output key at i equals keys_in[value[i]] bit for bit; the keys equal the reference's "
         "under the order's equivalence; stable algorithms (warpsort, cub_radix_pairs, "
         "cub_merge_stable_pairs): the values equal the reference's exactly; cub_merge_pairs "
         "(not guaranteed stable): the values are a permutation of 0..n-1 (a sorted copy equals "
         "0..n-1). validated=false if any run failed."},
        {"end_to_end", "not measured for pairs (e2e columns empty)"},
        {"keys_per_s", "n / median seconds (pairs per second)"},
        {"bandwidth_gbs",
         "2 * n * (sizeof(key) + sizeof(value)) / median seconds / 1e9: one read and one write of "
         "every key and value, the normalisation CCCL's sort benchmarks use (not the traffic an "
         "algorithm actually makes)"},
        {"ratios",
         "ratio_vs_cub_merge = cub_merge_stable_pairs (cub::DeviceMergeSort::StableSortPairs) "
         "median / this median; ratio_vs_cub_radix = cub_radix_pairs "
         "(cub::DeviceRadixSort::SortPairs) median / this median; same key and value type, "
         "distribution and n, same process; > 1 means faster than CUB. Both always run in pairs "
         "mode, listed or not."},
        {"footprint_bytes_per_key",
         "warpsort rows only (null elsewhere; JSON only): the device memory of the sort itself "
         "per pair, (n * (sizeof(key) + sizeof(value)) + warpsort's temporary storage bytes) / n "
         "(pairs sorted in place plus the temporary storage sort_pairs asks for). Buffers kept "
         "for restoring and validating are not counted."},
        {"memory",
         "Before allocating for an n, the device bytes needed (pristine, work and reference keys "
         "and values, the largest temporary storage of one algorithm as its size query returns, "
         "the reference check's copies) are compared with cudaMemGetInfo's free bytes; an n that "
         "does not fit is skipped with a note."},
    };
  }
  return {
      {"gpu_timing",
       fmt::format("CUDA events recorded on the stream immediately before and after the sort call; "
                   "{} warm-up run(s) then {} timed run(s); median/min/max of the timed runs. "
                   "Before every run the work buffer is restored from a pristine device copy with "
                   "cudaMemcpyAsync (not timed). All temporary storage is allocated before timing.",
                   warmup, reps)},
      {"warpsort_steps",
       "warpsort's headline time comes from runs without stage timing (no extra synchronization); "
       "step1_ms..step4_ms are medians from a separate set of timed runs with stage_times "
       "(events between the four steps: sort_chunks, merge_sequences, split, merge_groups)."},
      {"validation",
       "Every run's output (warm-up and timed, every algorithm) is compared position by position "
       "with thrust::sort and cub::DeviceRadixSort of the same input (computed once per input and "
       "checked against each other); validated=false if any run differed."},
      {"end_to_end",
       e2e ? fmt::format("host keys -> device, sort, device -> host, timed with std::chrono::"
                         "steady_clock around the whole sequence (stream synchronized before the "
                         "clock stops); median of {} run(s) after {} warm-up(s). e2e_pageable_ms "
                         "uses std::vector host memory; e2e_pinned_ms uses cudaMallocHost memory "
                         "allocated (and filled) before timing. Device memory is allocated before "
                         "timing. Every downloaded result is compared with the reference on the host.",
                         reps, warmup)
           : std::string("not measured (--no-e2e)")},
      {"cpu_timing",
       fmt::format("std::chrono::steady_clock around the sort of a fresh host copy of the input "
                   "(copy not timed); median of {} run(s); each result compared element-wise with "
                   "the GPU reference downloaded to the host.",
                   cpu_reps)},
      {"keys_per_s", "n / median seconds"},
      {"bandwidth_gbs",
       "2 * n * sizeof(key) / median seconds / 1e9: one read and one write of every key, the "
       "normalisation CCCL's sort benchmarks use (not the traffic an algorithm actually makes)"},
      {"ratios",
       "ratio_vs_cub_merge = cub_merge median / this median (and likewise for cub_radix), same key "
       "type, distribution and n, same process; > 1 means faster than CUB. cub_merge and cub_radix "
       "always run when any GPU algorithm is benchmarked, listed or not."},
      {"footprint_bytes_per_key",
       "warpsort rows only (null elsewhere; JSON only, not a CSV column): the device memory of "
       "the sort itself per key, (n * sizeof(key) + warpsort's temporary storage bytes) / n, "
       "i.e. the keys sorted in place plus the temporary storage sort_keys asks for. Buffers the "
       "benchmark keeps for restoring and validating (pristine input, references) are not "
       "counted."},
      {"memory",
       "Before allocating for an n, the device bytes needed are estimated and compared with "
       "cudaMemGetInfo's free bytes (host bytes with MemAvailable); an n that does not fit is "
       "skipped with a note."},
  };
}

std::vector<std::string> goal_lines(const std::vector<result_row>& rows) {
  constexpr std::size_t cpu_goal_n = std::size_t{1} << 24, gpu_goal_n = std::size_t{1} << 30;
  constexpr double cpu_goal_ms = 1000, gpu_goal_ms = 20000;
  auto verdict = [](double ms, double goal_ms) { return ms < goal_ms ? "met" : "MISSED"; };
  std::vector<std::string> lines;
  for (const auto& r : rows) {
    const std::string what = fmt::format("{} {} {}", r.algorithm, r.key_type, r.distribution);
    if (r.platform == "cpu" && r.n == cpu_goal_n)
      lines.push_back(fmt::format("seed goal 2^24 keys < 1 s on a CPU: {}: {} -> {}", what,
                                  seconds_or_ms(r.median_ms), verdict(r.median_ms, cpu_goal_ms)));
    if (r.platform == "gpu" && r.n == gpu_goal_n) {
      std::string line = fmt::format("seed goal 2^30 keys < 20 s on a GPU: {}: device {} -> {}",
                                     what, seconds_or_ms(r.median_ms), verdict(r.median_ms, gpu_goal_ms));
      if (r.e2e_pageable_ms)
        line += fmt::format("; end-to-end pageable {} -> {}", seconds_or_ms(*r.e2e_pageable_ms),
                            verdict(*r.e2e_pageable_ms, gpu_goal_ms));
      if (r.e2e_pinned_ms)
        line += fmt::format("; end-to-end pinned {} -> {}", seconds_or_ms(*r.e2e_pinned_ms),
                            verdict(*r.e2e_pinned_ms, gpu_goal_ms));
      lines.push_back(line);
    }
  }
  for (const auto& [key, group] : grouped(rows)) {
    const result_row* ws = find_row(group, "warpsort");
    if (!ws) continue;
    for (const result_row* r : group) {
      if (r->platform != "cpu") continue;
      std::string line = fmt::format(
          "warpsort speedup over {} ({} {} {}): {:.1f}x device time", r->algorithm, ws->key_type,
          ws->distribution, format_size(ws->n), speed_ratio(r->median_ms, ws->median_ms));
      if (ws->e2e_pinned_ms)
        line += fmt::format(", {:.1f}x end-to-end pinned", speed_ratio(r->median_ms, *ws->e2e_pinned_ms));
      if (ws->e2e_pageable_ms)
        line += fmt::format(", {:.1f}x end-to-end pageable", speed_ratio(r->median_ms, *ws->e2e_pageable_ms));
      lines.push_back(line);
    }
  }
  return lines;
}

void print_summary(std::FILE* out, const std::vector<result_row>& rows,
                   const std::vector<std::string>& notes, bool descending) {
  auto cell = [](const std::optional<double>& v, const char* suffix) {
    return v ? fmt::format("{:.2f}{}", *v, suffix) : std::string("-");
  };
  for (const auto& [key, group] : grouped(rows)) {
    const auto& [type, dist, n] = key;
    fmt::print(out, "\n{} {} n={}{} ({} {})\n", type, dist, format_size(n),
               descending ? " descending" : "", n,
               type.find('+') == std::string::npos ? "keys" : "pairs");
    fmt::print(out, "  {:<24} {:>11} {:>9} {:>9} {:>9} {:>13} {:>13}  {}\n", "algorithm",
               "median ms", "Gkeys/s", "vs merge", "vs radix", "e2e pageable", "e2e pinned", "valid");
    for (const result_row* r : group) {
      fmt::print(out, "  {:<24} {:>11.4f} {:>9.3f} {:>9} {:>9} {:>13} {:>13}  {}\n",
                 r->algorithm + (r->platform == "cpu" ? " (cpu)" : ""), r->median_ms,
                 r->keys_per_s / 1e9, cell(r->ratio_vs_cub_merge, "x"),
                 cell(r->ratio_vs_cub_radix, "x"), cell(r->e2e_pageable_ms, " ms"),
                 cell(r->e2e_pinned_ms, " ms"), r->validated ? "ok" : "FAILED");
    }
    const result_row* ws = find_row(group, "warpsort");
    if (ws && (ws->step1_ms || ws->footprint_bytes_per_key)) {
      std::string line = "  warpsort";
      if (ws->step1_ms)
        line += fmt::format(" steps (ms): 1 sort_chunks {:.4f} | 2 merge_sequences {:.4f} | "
                            "3 split {:.4f} | 4 merge_groups {:.4f}",
                            *ws->step1_ms, ws->step2_ms.value_or(0), ws->step3_ms.value_or(0),
                            ws->step4_ms.value_or(0));
      if (ws->footprint_bytes_per_key)
        line += fmt::format("{} footprint {:.2f} B/key", ws->step1_ms ? " |" : "",
                            *ws->footprint_bytes_per_key);
      fmt::print(out, "{}\n", line);
    }
  }
  const std::vector<std::string> goals = goal_lines(rows);
  if (!goals.empty()) fmt::print(out, "\n");
  for (const auto& line : goals) fmt::print(out, "{}\n", line);
  if (!notes.empty()) fmt::print(out, "\nNotes:\n");
  for (const auto& note : notes) fmt::print(out, "  - {}\n", note);
  fmt::print(out,
             "\nGPU times: CUDA events around the sort call only (input restored, not timed); CPU "
             "times: steady_clock.\nGkeys/s = n / median time. Bandwidth (CSV/JSON "
             "bandwidth_gbs) = 2 n sizeof(key) / time: one read + one write per key, the "
             "normalisation CCCL's benchmarks use.\nvs merge / vs radix = cub_merge / cub_radix "
             "median divided by this median (> 1: faster than CUB). e2e = host -> device, sort, "
             "device -> host (host clock).\nfootprint = warpsort's device bytes per key: "
             "(n sizeof(key) + its temporary storage) / n, keys sorted in place.\n");
  std::fflush(out);
}

}  // namespace warpsort::cli

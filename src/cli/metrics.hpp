// Summary statistics and the derived metrics of a benchmark row. Pure C++.
#pragma once

#include <cstddef>
#include <vector>

namespace warpsort::cli {

/// Median (mean of the two middle values for an even count), min and max of timed runs.
struct run_summary {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
};

/// Throws std::invalid_argument for an empty list.
double median(std::vector<double> values);
run_summary summarize(const std::vector<double>& times_ms);

/// n / seconds.
double keys_per_second(std::size_t n, double ms);

/// Effective bandwidth in GB/s (1e9 bytes): one read and one write of every key,
/// 2 n sizeof(Key) / seconds, the normalisation CCCL's sort benchmarks use.
double bandwidth_gbs(std::size_t n, std::size_t key_bytes, double ms);

/// How many times faster `ms` is than `baseline_ms`: baseline_ms / ms.
double speed_ratio(double baseline_ms, double ms);

}  // namespace warpsort::cli

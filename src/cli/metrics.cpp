#include "cli/metrics.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace warpsort::cli {

double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median of no values");
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

run_summary summarize(const std::vector<double>& times_ms) {
  run_summary s;
  s.median_ms = median(times_ms);
  const auto [lo, hi] = std::minmax_element(times_ms.begin(), times_ms.end());
  s.min_ms = *lo;
  s.max_ms = *hi;
  return s;
}

namespace {
// A timer can read 0 for a tiny run; report infinity rather than divide by zero silently.
double per_second(double amount, double ms) {
  return ms > 0 ? amount / (ms * 1e-3) : std::numeric_limits<double>::infinity();
}
}  // namespace

double keys_per_second(std::size_t n, double ms) { return per_second(static_cast<double>(n), ms); }

double bandwidth_gbs(std::size_t n, std::size_t key_bytes, double ms) {
  return per_second(2.0 * static_cast<double>(n) * static_cast<double>(key_bytes), ms) / 1e9;
}

double speed_ratio(double baseline_ms, double ms) {
  return ms > 0 ? baseline_ms / ms : std::numeric_limits<double>::infinity();
}

}  // namespace warpsort::cli

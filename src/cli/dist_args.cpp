// `warpsort dist`'s arguments, checked on the host before any rank starts (so a bad one is
// reported once, not by every rank), and the deadline every wait of a run gets.
#include "cli/bench_config.hpp"
#include "cli/dist.hpp"
#include "cli/dist_fuzz.hpp"
#include "data/distributions.hpp"
#include "data/key_types.hpp"

#include <warpsort/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace warpsort::cli {

std::vector<std::size_t> dist_totals(const dist_options& o) { return parse_size_list(o.sizes, 0); }

double default_dist_timeout(std::size_t largest_total) {
  return 60.0 + static_cast<double>(largest_total) / static_cast<double>(std::size_t{1} << 26);
}

double dist_timeout(const dist_options& o) {
  if (o.timeout > 0) return o.timeout;
  std::size_t largest = 0;
  if (o.fuzz) largest = (std::size_t{1} << std::min(o.fuzz_max_k, 40)) + 3;
  else
    for (std::size_t n : dist_totals(o)) largest = std::max(largest, n);
  return default_dist_timeout(largest);
}

const std::vector<std::string>& dist_phase_names() {
  // the sort's phases (distributed::options::on_phase), then the command's own
  static const std::vector<std::string> names{
      "agree", "local_sort", "splitters", "exchange", "merge", "rebalance", "finish",
      "init", "generate", "validate", "alltoall", "baseline", "gather"};
  return names;
}

void check_dist_arguments(const dist_options& o, int devices) {
  if (o.gpus < 0) throw input_error(fmt::format("--gpus {}: must be 0 (every GPU) or more", o.gpus));
  if (devices > 0 && o.gpus > devices)
    throw input_error(fmt::format("--gpus {}: this host has {} GPU(s); NCCL needs one GPU a rank",
                                  o.gpus, devices));
  if (o.reps < 1) throw input_error(fmt::format("--reps {}: at least 1", o.reps));
  if (o.warmup < 0) throw input_error(fmt::format("--warmup {}: at least 0", o.warmup));
  if (!(o.timeout >= 0) || std::isinf(o.timeout))
    throw input_error(fmt::format("--timeout {}: seconds, a positive number (0: the default, "
                                  "scaled to the total)", o.timeout));
  const std::vector<std::size_t> totals = dist_totals(o);  // throws for a bad list
  const std::vector<std::string> dists =
      parse_name_list(o.dists, data::distribution_names(), "distribution");
  data::parse_key_type(o.type);  // throws for an unknown type
  if (o.device_generate && (dists.size() != 1 || dists[0] != "uniform"))
    throw input_error("--device-generate draws uniform keys only (--dists uniform)");
  if (o.fuzz) {
    if (o.fuzz_random < 0) throw input_error("--fuzz-random: at least 0");
    if (o.fuzz_max_k < 2 || o.fuzz_max_k > 30)
      throw input_error(fmt::format("--fuzz-max-k {}: between 2 and 30", o.fuzz_max_k));
  }
  const int ranks = o.gpus > 0 ? o.gpus : devices;
  if (o.stall_rank >= 0 || !o.stall_phase.empty()) {
    if (o.stall_rank < 0 || o.stall_phase.empty())
      throw input_error("--stall-rank and --stall-phase go together");
    if (ranks > 0 && o.stall_rank >= ranks)
      throw input_error(fmt::format("--stall-rank {}: the run has {} rank(s)", o.stall_rank, ranks));
    const auto& phases = dist_phase_names();
    if (std::find(phases.begin(), phases.end(), o.stall_phase) == phases.end())
      throw input_error("--stall-phase '" + o.stall_phase + "': one of " + join(phases));
    if (o.stall_action != "stall" && o.stall_action != "kill")
      throw input_error("--stall-action '" + o.stall_action + "': stall or kill");
  }
  (void)totals;
}

}  // namespace warpsort::cli

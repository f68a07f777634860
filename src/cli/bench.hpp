// `warpsort bench` (and the default experiment): sweeps key types x distributions x sizes x
// algorithms, writes <out_dir>/<out_stem>.csv and .json, prints the summary table.
#pragma once

#include "cli/bench_config.hpp"

#include <string>

namespace warpsort::cli {

/// Runs the sweep. Returns the process exit code: 0, or 1 if any run failed validation
/// (results are written either way). Throws input_error / cuda_error for errors that stop it;
/// the rows measured so far are written before the exception leaves.
int run_bench(const bench_config& config, const std::string& command);

}  // namespace warpsort::cli

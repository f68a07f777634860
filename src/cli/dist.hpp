// `warpsort dist`: the distributed sort (warpsort/distributed.cuh) on the GPUs of one host, one
// process a GPU: the launcher starts the ranks and waits; each rank generates its keys, sorts
// them with its peers, times every phase and validates the whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace warpsort::cli {

struct dist_options {
  int gpus = 0;                       // ranks to start (0: every GPU of the host)
  std::string sizes = "2^28";         // totals over all ranks (a size list)
  std::string dists = "uniform";      // distributions (a name list, or "all")
  std::string type = "uint32";
  bool descending = false;
  bool rebalance = false;
  std::string values;                 // pairs: "uint32" or "uint64" values (input indices); "": keys
  int exchange_parts = 0;             // rounds of the exchange (0: the library's choice)
  int merge_runs = 64;                // runs a rank merges at most (distributed::options)
  int merge_oversampling = 128;       // the received runs' merge: samples a group
  std::string local = "warpsort";     // the local sort (and the one-GPU baseline): warpsort, cub_radix, cub_merge
  std::string last_round = "local";    // the local sort's last round: "local", or "bucketed" (run during the exchange)
  std::string exchange = "auto";      // "auto", "copy_engines", "sm_copies" (where every rank is on this host) or "nccl"
  std::string memory_plan = "auto";   // "auto" or "two_copies" (distributed::options::memory_plan)
  std::string gather = "auto";        // "auto", "never" or "always" (distributed::options::gather_all)
  int gather_pieces = 0;              // the gathered path's local sort in ranges, each sent as it ends (0: the library's choice)
  bool device_generate = false;       // uniform keys generated on the GPU (for huge totals)
  bool baseline = true;               // the single-GPU sort of the same total, on GPU 0
  int reps = 5;
  int warmup = 1;
  std::uint64_t seed = 1;
  std::string out;                    // DIR: writes DIR/dist.csv and DIR/dist.json (rank 0)
  double timeout = 0;                 // seconds a sort call or collective step may take; 0: default
  bool fuzz = false;                  // the fuzz instead of the sweep (DIR/dist_fuzz.csv)
  int fuzz_random = 32;               // random totals besides the fixed ones
  int fuzz_max_k = 24;                // totals 2^k - 3 .. 2^k + 3 for k up to this
  // tests: this rank stops at the start of this phase (stall: sleeps until stopped; kill: dies)
  int stall_rank = -1;
  std::string stall_phase;
  std::string stall_action = "stall";
  // a rank's own arguments (set by the launcher, or mpirun's environment)
  int rank = -1;
  int world = 0;
  std::string nccl_id;                // the launcher's ncclUniqueId, in hex
  std::string id_file;                // or: rank 0 writes it here, the others read it
  std::string report_dir;             // (set by the launcher) each rank's progress and failure
  std::vector<std::string> self;      // argv, to start the ranks with
};

/// Adds the `dist` subcommand; its options fill `o`.
CLI::App* add_dist_command(CLI::App& app, dist_options& o);

/// The launcher (no --rank and no MPI environment): starts o.gpus ranks of this binary, each
/// with NCCL_NVLS_ENABLE=0, and returns the worst exit code; if a rank fails the others are
/// stopped. A rank: runs run_dist_rank.
int run_dist(dist_options o);

/// One rank: joins the communicator and runs every (distribution, size) of the options, or
/// the fuzz.
int run_dist_rank(const dist_options& o, const std::string& nccl_id_hex);

// The parts without a GPU (src/cli/dist_args.cpp, in warpsort_cli_core; unit-tested):

/// Every argument the ranks will use, checked once, before any rank starts: input_error
/// saying what is wrong. devices: the GPUs of this host (0: unknown, as under mpirun).
void check_dist_arguments(const dist_options& o, int devices);

/// The totals of the run: --sizes (0 allowed: sorting nothing is a valid request).
std::vector<std::size_t> dist_totals(const dist_options& o);

/// The default deadline of every wait: a minute, plus a second for every 2^26 keys of the
/// largest total.
double default_dist_timeout(std::size_t largest_total);

/// The deadline in force: --timeout, or the default for the largest total of the run.
double dist_timeout(const dist_options& o);

/// The phases a rank reports and a stall can be put in: the sort's and the command's own.
const std::vector<std::string>& dist_phase_names();

}  // namespace warpsort::cli

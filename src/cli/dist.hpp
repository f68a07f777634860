// `warpsort dist`: the distributed sort (warpsort/distributed.cuh) on the GPUs of one host, one
// process a GPU: the launcher starts the ranks and waits; each rank generates its keys, sorts
// them with its peers, times every phase and validates the whole.
#pragma once

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
  bool device_generate = false;       // uniform keys generated on the GPU (for huge totals)
  bool baseline = true;               // the single-GPU sort of the same total, on GPU 0
  int reps = 5;
  int warmup = 1;
  std::uint64_t seed = 1;
  std::string out;                    // DIR: writes DIR/dist.csv and DIR/dist.json (rank 0)
  // a rank's own arguments (set by the launcher, or mpirun's environment)
  int rank = -1;
  int world = 0;
  std::string nccl_id;                // the launcher's ncclUniqueId, in hex
  std::string id_file;                // or: rank 0 writes it here, the others read it
  std::vector<std::string> self;      // argv, to start the ranks with
};

/// Adds the `dist` subcommand; its options fill `o`.
CLI::App* add_dist_command(CLI::App& app, dist_options& o);

/// The launcher (no --rank and no MPI environment): starts o.gpus ranks of this binary, each
/// with NCCL_NVLS_ENABLE=0, and returns the worst exit code; if a rank fails the others are
/// stopped. A rank: runs run_dist_rank.
int run_dist(dist_options o);

/// One rank: joins the communicator and runs every (distribution, size) of the options.
int run_dist_rank(const dist_options& o, const std::string& nccl_id_hex);

}  // namespace warpsort::cli

// `warpsort dist`'s launcher: one process a GPU on this host (or the ranks mpirun started),
// joined by one ncclUniqueId. The launcher makes the id (its bootstrap thread must live until
// the ranks have joined, so the launcher waits for them) and passes it in hex.
#include "cli/dist.hpp"

#include "cli/bench_config.hpp"
#include "data/distributions.hpp"

#include <warpsort/error.hpp>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace warpsort::cli {

namespace {

std::string to_hex(const ncclUniqueId& id) {
  std::string s;
  for (char c : id.internal) s += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return s;
}

/// The rank and size mpirun gave this process, if it did (Open MPI, MPICH/Hydra, Slurm).
bool mpi_rank(int& rank, int& size) {
  const std::pair<const char*, const char*> vars[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
      {"SLURM_PROCID", "SLURM_NTASKS"}};
  for (const auto& [r, s] : vars) {
    const char* rv = std::getenv(r);
    const char* sv = std::getenv(s);
    if (rv && sv) {
      rank = std::atoi(rv);
      size = std::atoi(sv);
      return true;
    }
  }
  return false;
}

/// Under mpirun: rank 0 makes the id and writes it to the shared file; the others wait for it.
std::string id_through_file(const dist_options& o) {
  if (o.id_file.empty())
    throw input_error("warpsort dist under mpirun needs --id-file PATH on a file system every "
                      "rank sees (rank 0 writes the NCCL id there)");
  if (o.rank == 0) {
    ncclUniqueId id;
    if (ncclGetUniqueId(&id) != ncclSuccess) throw input_error("ncclGetUniqueId failed");
    const std::string tmp = o.id_file + ".tmp";
    std::ofstream(tmp) << to_hex(id);
    std::rename(tmp.c_str(), o.id_file.c_str());
    return to_hex(id);
  }
  for (int i = 0; i < 600; ++i) {  // up to a minute
    std::ifstream in(o.id_file);
    std::string hex;
    if (in >> hex && hex.size() == 2 * sizeof(ncclUniqueId::internal)) return hex;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw input_error("no NCCL id appeared in " + o.id_file + " within a minute");
}

}  // namespace

CLI::App* add_dist_command(CLI::App& app, dist_options& o) {
  CLI::App* d = app.add_subcommand(
      "dist", "the distributed sort over NCCL: one process a GPU of this host; times each phase "
              "against the single-GPU sort of the same total; validates globally; CSV and JSON");
  d->add_option("--gpus", o.gpus, "ranks (GPUs) to use; 0: all")->capture_default_str();
  d->add_option("--sizes", o.sizes, "total keys over all ranks, a list (2^k, 2^a+b, a..b)")
      ->capture_default_str();
  d->add_option("--dists", o.dists, "distributions, a list or 'all' (" +
                                        join(data::distribution_names()) + ")")
      ->capture_default_str();
  d->add_option("--type", o.type, "key type")->capture_default_str();
  d->add_flag("--descending", o.descending, "sort in descending order");
  d->add_flag("--rebalance", o.rebalance, "end with each rank's input count");
  d->add_flag("--device-generate", o.device_generate,
              "generate uniform keys on the GPUs (for totals too large to generate on the host)");
  d->add_flag("!--no-baseline", o.baseline, "skip the single-GPU sort of the same total");
  d->add_option("--reps", o.reps, "timed runs")->capture_default_str();
  d->add_option("--warmup", o.warmup, "untimed (validated) runs first")->capture_default_str();
  d->add_option("--seed", o.seed, "seed (rank r draws with seed + r; 'zero' shares one key)")
      ->capture_default_str();
  d->add_option("--out", o.out, "write DIR/dist.csv and DIR/dist.json");
  d->add_option("--rank", o.rank, "(set by the launcher) this process's rank");
  d->add_option("--world", o.world, "(set by the launcher) the number of ranks");
  d->add_option("--nccl-id", o.nccl_id, "(set by the launcher) the NCCL id, hex");
  d->add_option("--id-file", o.id_file, "under mpirun: the shared file that passes the NCCL id");
  return d;
}

int run_dist(dist_options o) {
  setenv("NCCL_NVLS_ENABLE", "0", 1);  // never NVLink multicast (it can take the GPUs down)
  if (o.rank >= 0) {
    if (o.nccl_id.empty()) throw input_error("--rank needs --nccl-id (the launcher sets both)");
    return run_dist_rank(o, o.nccl_id);
  }
  if (mpi_rank(o.rank, o.world)) return run_dist_rank(o, id_through_file(o));

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    throw cuda_error(cudaErrorNoDevice, "warpsort dist: no CUDA device");
  const int ranks = o.gpus > 0 ? o.gpus : devices;
  if (ranks > devices)
    throw input_error(fmt::format("--gpus {}: this host has {} GPU(s); NCCL needs one GPU a rank",
                                  ranks, devices));
  ncclUniqueId id;
  if (ncclGetUniqueId(&id) != ncclSuccess) throw input_error("ncclGetUniqueId failed");
  const std::string hex = to_hex(id);
  std::fflush(stdout);
  std::vector<pid_t> children;
  for (int r = 0; r < ranks; ++r) {
    std::vector<std::string> args = o.self;
    for (std::string extra : {std::string("--rank"), std::to_string(r), std::string("--world"),
                              std::to_string(ranks), std::string("--nccl-id"), hex})
      args.push_back(extra);
    const pid_t pid = fork();
    if (pid < 0) throw input_error("fork failed");
    if (pid == 0) {
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv("/proc/self/exe", argv.data());
      std::perror("warpsort dist: execv");
      _exit(127);
    }
    children.push_back(pid);
  }
  int worst = 0;
  std::size_t left = children.size();
  while (left > 0) {
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid < 0) break;
    --left;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code != 0 && worst == 0) {
      // a rank failed: its peers may wait on it forever; stop them
      fmt::print(stderr, "warpsort dist: a rank exited with {}; stopping the others\n", code);
      for (pid_t c : children)
        if (c != pid) kill(c, SIGTERM);
    }
    if (code > worst) worst = code;
  }
  return worst;
}

}  // namespace warpsort::cli

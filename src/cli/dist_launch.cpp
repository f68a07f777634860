// `warpsort dist`'s launcher: one process a GPU on this host (or the ranks mpirun started),
// joined by one ncclUniqueId. The launcher makes the id (its bootstrap thread must live until
// the ranks have joined, so the launcher waits for them) and passes it in hex. It checks every
// argument before any rank starts, watches the ranks (each leaves its phase and, failing, its
// message in a report directory), reports the first failure once, and stops every rank when
// one fails, when they all outlive the deadline, or when it is itself stopped.
#include "cli/dist.hpp"

#include "cli/bench_config.hpp"
#include "data/distributions.hpp"

#include <warpsort/error.hpp>

#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/prctl.h>
#include <sys/stat.h>
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

volatile std::sig_atomic_t stop_signal = 0;
extern "C" void on_stop_signal(int sig) { stop_signal = sig; }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

/// Seconds since the file last changed (a large number if it does not exist).
double seconds_since_change(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 1e30;
  const auto changed = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
  return std::chrono::duration<double>(std::chrono::system_clock::now() - changed).count();
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return "ended";
}

/// Stops every rank still running: SIGTERM, then SIGKILL after a grace period; reaps them all.
void stop_ranks(std::vector<pid_t>& running) {
  for (pid_t c : running) kill(c, SIGTERM);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!running.empty()) {
    for (std::size_t i = 0; i < running.size();) {
      int status = 0;
      if (waitpid(running[i], &status, WNOHANG) == running[i]) running.erase(running.begin() + i);
      else ++i;
    }
    if (running.empty()) break;
    if (std::chrono::steady_clock::now() > give_up) {
      for (pid_t c : running) kill(c, SIGKILL);
      for (pid_t c : running) waitpid(c, nullptr, 0);
      running.clear();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

CLI::App* add_dist_command(CLI::App& app, dist_options& o) {
  CLI::App* d = app.add_subcommand(
      "dist", "the distributed sort over NCCL: one process a GPU of this host; times each phase "
              "against the single-GPU sort of the same total; validates globally; CSV and JSON");
  d->add_option("--gpus", o.gpus, "ranks (GPUs) to use; 0: all")->capture_default_str();
  d->add_option("--sizes", o.sizes,
                "total keys over all ranks, a list (2^k, 2^a+b, a..b; 0: an empty sort)")
      ->capture_default_str();
  d->add_option("--dists", o.dists, "distributions, a list or 'all' (" +
                                        join(data::distribution_names()) + ")")
      ->capture_default_str();
  d->add_option("--type", o.type, "key type")->capture_default_str();
  d->add_flag("--descending", o.descending, "sort in descending order");
  d->add_flag("--rebalance", o.rebalance, "end with each rank's input count");
  d->add_option("--values", o.values,
                "sort pairs: each key with a value of this type, its input index (stable across "
                "ranks, checked)")
      ->check(CLI::IsMember({"uint32", "uint64"}));
  d->add_option("--exchange-parts", o.exchange_parts,
                "rounds the exchange is sent in, each merged while the next travels (0: 4 from "
                "2^26 keys a rank, 2 from 2^24, else 1)")
      ->check(CLI::Range(0, 16))
      ->capture_default_str();
  d->add_option("--merge-runs", o.merge_runs,
                "runs a rank merges at most: the local sort leaves max_sequences / GPUs sorted "
                "sequences a rank, or up to this / GPUs where that saves it a round")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  d->add_option("--local", o.local,
                "the local sort, and the single-GPU sort it is compared with: warpsort's, or CUB's "
                "radix or merge sort of a rank's whole share")
      ->check(CLI::IsMember({"warpsort", "cub_radix", "cub_merge"}))
      ->capture_default_str();
  d->add_option("--last-round", o.last_round,
                "warpsort's local sort with several exchange rounds: its last round run bucket by "
                "bucket while the exchange travels (bucketed), or in the local sort (local)")
      ->check(CLI::IsMember({"bucketed", "local"}))
      ->capture_default_str();
  d->add_option("--exchange", o.exchange,
                "how the keys move: straight into the peers' receive arenas where every rank is a "
                "process of this host, by copy engines or (pieces under 1 MiB on average) by one "
                "kernel a round (auto), always by copy engines (copy_engines) or by kernels "
                "(sm_copies); or NCCL's send and receive (nccl)")
      ->check(CLI::IsMember({"auto", "copy_engines", "sm_copies", "nccl"}))
      ->capture_default_str();
  d->add_option("--memory-plan", o.memory_plan,
                "what a rank holds beside its keys: the sequences, the received keys and the "
                "rounds' packing apart where that fits every rank, else two copies (auto); or "
                "always two copies (two_copies: one round, keys without values, no rebalancing)")
      ->check(CLI::IsMember({"auto", "two_copies"}))
      ->capture_default_str();
  d->add_option("--gather", o.gather,
                "small totals: every rank's sorted keys copied to every rank, each merging its "
                "own slice (no splitters, one host barrier): where the extra keys received are "
                "at most 160 MiB a rank (auto), never, or always (keys, every rank on this host)")
      ->check(CLI::IsMember({"auto", "never", "always"}))
      ->capture_default_str();
  d->add_option("--gather-pieces", o.gather_pieces,
                "the gathered path: each rank's local sort in this many ranges of its sorted "
                "sequences, each copied to the peers while the next sorts (0: the library's choice)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  d->add_option("--merge-oversampling", o.merge_oversampling,
                "the received runs' merge: every this many samples a splitter")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  d->add_flag("--device-generate", o.device_generate,
              "generate uniform keys on the GPUs (for totals too large to generate on the host)");
  d->add_flag("!--no-baseline", o.baseline, "skip the single-GPU sort of the same total");
  d->add_option("--reps", o.reps, "timed runs")->capture_default_str();
  d->add_option("--warmup", o.warmup, "untimed (validated) runs first")->capture_default_str();
  d->add_option("--seed", o.seed, "seed (rank r draws with seed + r; 'zero' shares one key)")
      ->capture_default_str();
  d->add_option("--out", o.out, "write DIR/dist.csv and DIR/dist.json (with --fuzz: DIR/dist_fuzz.csv)");
  d->add_option("--timeout", o.timeout,
                "seconds a sort call, or another collective step, may take on a rank before it "
                "aborts its communicator and the run fails naming the rank and phase (default: "
                "60, plus 1 for every 2^26 keys of the largest total)");
  d->add_flag("--fuzz", o.fuzz,
              "instead of timing: sort totals 0..300, 2^k-3..2^k+3 (k <= --fuzz-max-k) and random "
              "ones, cycling key types, values, orders, rebalancing and layouts over the ranks "
              "(empty ranks, one rank with everything), each validated against a host sort of the "
              "gathered keys; one communicator for all; writes DIR/dist_fuzz.csv");
  d->add_option("--fuzz-random", o.fuzz_random, "with --fuzz: random totals besides the fixed ones")
      ->capture_default_str();
  d->add_option("--fuzz-max-k", o.fuzz_max_k, "with --fuzz: totals 2^k-3..2^k+3 up to this k")
      ->capture_default_str();
  // for tests only (hidden): make a rank stall or die at a phase
  d->add_option("--stall-rank", o.stall_rank, "(tests) the rank to stop")->group("");
  d->add_option("--stall-phase", o.stall_phase, "(tests) the phase it stops at")->group("");
  d->add_option("--stall-action", o.stall_action, "(tests) stall (sleep until stopped) or kill")
      ->group("");
  d->add_option("--rank", o.rank, "(set by the launcher) this process's rank");
  d->add_option("--world", o.world, "(set by the launcher) the number of ranks");
  d->add_option("--nccl-id", o.nccl_id, "(set by the launcher) the NCCL id, hex");
  d->add_option("--report-dir", o.report_dir, "(set by the launcher) where ranks report")->group("");
  d->add_option("--id-file", o.id_file, "under mpirun: the shared file that passes the NCCL id");
  return d;
}

int run_dist(dist_options o) {
  setenv("NCCL_NVLS_ENABLE", "0", 1);  // never NVLink multicast (it can take the GPUs down)
  if (o.rank >= 0) {
    if (o.nccl_id.empty()) throw input_error("--rank needs --nccl-id (the launcher sets both)");
    return run_dist_rank(o, o.nccl_id);
  }
  if (mpi_rank(o.rank, o.world)) {
    check_dist_arguments(o, 0);  // every rank alike; no launcher to do it once
    return run_dist_rank(o, id_through_file(o));
  }

  // every argument, once, before any rank starts (and before looking for GPUs): exit code 2,
  // a usage error
  const auto usage_error = [](const input_error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "warpsort: error: {}\n", e.what());
    return 2;
  };
  try {
    check_dist_arguments(o, 0);
  } catch (const input_error& e) {
    return usage_error(e);
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    throw cuda_error(cudaErrorNoDevice, "warpsort dist: no CUDA device");
  try {
    check_dist_arguments(o, devices);  // now against this host's GPUs
  } catch (const input_error& e) {
    return usage_error(e);
  }
  const int ranks = o.gpus > 0 ? o.gpus : devices;
  const double timeout = dist_timeout(o);
  ncclUniqueId id;
  if (ncclGetUniqueId(&id) != ncclSuccess) throw input_error("ncclGetUniqueId failed");
  const std::string hex = to_hex(id);
  std::string report_template =
      (std::filesystem::temp_directory_path() / "warpsort_dist.XXXXXX").string();
  if (mkdtemp(report_template.data()) == nullptr)
    throw input_error("warpsort dist: cannot make a report directory under " +
                      std::filesystem::temp_directory_path().string());
  const std::string report_dir = report_template;
  std::fflush(stdout);
  std::fflush(stderr);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
  const pid_t launcher = getpid();
  std::vector<pid_t> children;
  for (int r = 0; r < ranks; ++r) {
    std::vector<std::string> args = o.self;
    for (std::string extra : {std::string("--rank"), std::to_string(r), std::string("--world"),
                              std::to_string(ranks), std::string("--nccl-id"), hex,
                              std::string("--report-dir"), report_dir})
      args.push_back(extra);
    // built before fork: the child of a threaded process (CUDA, NCCL's bootstrap) only execs
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
      stop_ranks(children);
      throw input_error("fork failed");
    }
    if (pid == 0) {
      // a rank dies with the launcher, however the launcher ends
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != launcher) _exit(127);
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      signal(SIGHUP, SIG_DFL);
      execv("/proc/self/exe", argv.data());
      _exit(127);
    }
    children.push_back(pid);
  }
  const auto rank_of = [&](pid_t pid) {
    for (int r = 0; r < ranks; ++r)
      if (children[static_cast<std::size_t>(r)] == pid) return r;
    return -1;
  };
  const auto file = [&](int r, const char* what) {
    return report_dir + "/rank_" + std::to_string(r) + "." + what;
  };
  const auto last_phase = [&](int r) {
    const std::string p = read_text(file(r, "phase"));
    return p.empty() ? std::string("start") : p;
  };
  // The watchdog: the ranks together must show progress (a phase reported) within the
  // deadline and a grace period; each rank's own deadline should end a stall well before.
  const double grace = 30;
  std::vector<pid_t> running = children;
  int result = 0;
  std::string failure;
  while (!running.empty()) {
    // every rank that ended since the last look; a rank killed by a signal is the cause where
    // its peers then failed too (NCCL reports the lost peer), so it is the one reported
    std::vector<std::pair<pid_t, int>> ended;
    for (;;) {
      int status = 0;
      const pid_t pid = waitpid(-1, &status, WNOHANG);
      if (pid < 0 && errno == ECHILD) running.clear();  // none left to wait for
      if (pid <= 0) break;
      running.erase(std::remove(running.begin(), running.end(), pid), running.end());
      ended.emplace_back(pid, status);
    }
    std::stable_sort(ended.begin(), ended.end(), [](const auto& a, const auto& b) {
      return WIFSIGNALED(a.second) && !WIFSIGNALED(b.second);
    });
    for (const auto& [pid, status] : ended) {
      const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (ok || !failure.empty()) continue;
      const int r = rank_of(pid);
      const std::string message = read_text(file(r, "error"));
      // a rank's own message names it already where it comes from the sort
      const std::string prefix = fmt::format("rank {}", r);
      failure = message.empty()
                    ? fmt::format("rank {} {} in phase {}", r, describe_exit(status), last_phase(r))
                : message.rfind(prefix + ":", 0) == 0 ? message
                                                      : fmt::format("rank {}: {}", r, message);
      result = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    if (!failure.empty()) {
      stop_ranks(running);  // its peers may wait on it forever
      break;
    }
    if (!ended.empty()) continue;
    if (stop_signal != 0) {
      failure = fmt::format("stopped by signal {} ({}); every rank stopped", static_cast<int>(stop_signal),
                            strsignal(stop_signal));
      result = 128 + stop_signal;
      stop_ranks(running);
      break;
    }
    double quiet = 1e30;
    for (int r = 0; r < ranks; ++r) quiet = std::min(quiet, seconds_since_change(file(r, "phase")));
    if (quiet < 1e29 && quiet > timeout + grace) {
      std::string phases;
      for (int r = 0; r < ranks; ++r) phases += fmt::format("{}rank {}: {}", r ? ", " : "", r, last_phase(r));
      failure = fmt::format("no rank made progress for {:.0f} s (deadline {:.0f} s + {:.0f} s grace); "
                            "last phases: {}; every rank stopped", quiet, timeout, grace, phases);
      result = 1;
      stop_ranks(running);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::error_code ignored;
  std::filesystem::remove_all(report_dir, ignored);
  if (!failure.empty()) {
    std::fflush(stdout);
    fmt::print(stderr, "warpsort dist: {}\n", failure);
    return result != 0 ? result : 1;
  }
  return 0;
}

}  // namespace warpsort::cli

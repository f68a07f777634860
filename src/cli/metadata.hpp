// Run metadata: the machine, the device, the build and the command, for results files and `info`.
#pragma once

#include <warpsort/ablation.cuh>
#include <warpsort/policy.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpsort::cli {

struct device_description {
  int index = 0;
  std::string name;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  std::size_t total_memory_bytes = 0;
  std::string pci_bus_id;
};

/// The CUDA devices visible to this process. `unavailable` says why none can be used (empty when
/// at least one can). Never throws.
struct device_inventory {
  std::vector<device_description> devices;
  std::string unavailable;
  int driver_version = 0;   // cudaDriverGetVersion (0: no driver)
  int runtime_version = 0;  // cudaRuntimeGetVersion
};
device_inventory query_devices();

nlohmann::json device_json(const device_description& d);
nlohmann::json policy_json(const policy& p);
nlohmann::json design_json(const ablation::design& d);

/// Shell-style quoting of argv (what a user could paste back into a shell).
std::string command_line(const std::vector<std::string>& args);
/// Now, UTC, ISO 8601: "2025-01-31T12:34:56Z".
std::string utc_timestamp();
std::string host_name();
/// "model name" from /proc/cpuinfo, "unknown" elsewhere.
std::string cpu_model();
unsigned cpu_threads();

/// Everything a results file records about the run: GPU (the current device) or why there is
/// none, driver/runtime/CCCL versions, git commit, command line, seed, UTC date, host, CPU,
/// the policy of every supported key type, and, where WARPSORT_DESIGN makes the warpsort runs
/// one of the ablation's designs, that design (else null).
nlohmann::json run_metadata(const std::string& command, std::uint64_t seed);

}  // namespace warpsort::cli

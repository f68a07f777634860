#include "tuning.hpp"
#include "cli/metadata.hpp"

#include "cli/build_info.hpp"
#include "cli/key_dispatch.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <thread>

namespace warpsort::cli {

device_inventory query_devices() {
  device_inventory inv;
  cudaDriverGetVersion(&inv.driver_version);
  cudaRuntimeGetVersion(&inv.runtime_version);
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear it: later calls must not see a stale error
    inv.unavailable = std::string("no CUDA device is available (cudaGetDeviceCount: ") +
                      cudaGetErrorName(status) + ": " + cudaGetErrorString(status) + ")";
    return inv;
  }
  if (count == 0) {
    inv.unavailable = "no CUDA device is available (cudaGetDeviceCount found 0 devices)";
    return inv;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    device_description d;
    d.index = i;
    d.name = prop.name;
    d.sm_count = prop.multiProcessorCount;
    d.cc_major = prop.major;
    d.cc_minor = prop.minor;
    d.total_memory_bytes = prop.totalGlobalMem;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) d.pci_bus_id = bus;
    else cudaGetLastError();
    inv.devices.push_back(d);
  }
  if (inv.devices.empty()) inv.unavailable = "no CUDA device could be queried";
  return inv;
}

nlohmann::json device_json(const device_description& d) {
  return {{"index", d.index},
          {"name", d.name},
          {"sm_count", d.sm_count},
          {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
          {"memory_bytes", d.total_memory_bytes},
          {"memory_gib", static_cast<double>(d.total_memory_bytes) / (1024.0 * 1024 * 1024)},
          {"pci_bus_id", d.pci_bus_id}};
}

nlohmann::json policy_json(const policy& p) {
  nlohmann::json j = {{"warp_threads", policy::warp_threads},
                      {"chunk_keys_per_lane", policy::chunk_keys_per_lane},
                      {"chunk_keys", policy::chunk_keys},
                      {"merge_tile_keys", policy::merge_tile_keys}};
  for (const policy_field& f : policy_fields) j[f.name] = p.*(f.member);
  return j;
}

nlohmann::json design_json(const ablation::design& d) {
  nlohmann::json j = nlohmann::json::object();
  for (const design_field& f : design_fields) j[f.name] = d.*(f.member);
  return j;
}

std::string command_line(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) {
    const bool plain = !a.empty() && a.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=,:^+@%") == std::string::npos;
    std::string quoted = a;
    if (!plain) {
      quoted = "'";
      for (char c : a) quoted += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      quoted += "'";
    }
    out += (out.empty() ? "" : " ") + quoted;
  }
  return out;
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string model = line.substr(colon + 1);
        model.erase(0, model.find_first_not_of(' '));
        return model;
      }
    }
  }
  return "unknown";
}

unsigned cpu_threads() { return std::thread::hardware_concurrency(); }

nlohmann::json run_metadata(const std::string& command, std::uint64_t seed) {
  const device_inventory inv = query_devices();
  const build_info build = get_build_info();
  nlohmann::json gpu = nullptr;
  if (inv.unavailable.empty()) {
    int current = 0;
    if (cudaGetDevice(&current) != cudaSuccess) cudaGetLastError();
    for (const auto& d : inv.devices)
      if (d.index == current) gpu = device_json(d);
  }
  nlohmann::json policies = nlohmann::json::object();
  nlohmann::json designs = nullptr;  // WARPSORT_DESIGN's, which the warpsort runs then take
  for (data::key_type t : supported_key_types())
    with_key_type(t, [&](auto tag) {
      using Key = typename decltype(tag)::type;
      policies[data::key_type_name(t)] = policy_json(tuned_policy<Key>());
      const sort_tuning tuned = tuned_sort<Key>();
      if (tuned.ablation) designs[data::key_type_name(t)] = design_json(tuned.design);
    });
  return {{"gpu", gpu},
          {"gpu_unavailable", inv.unavailable.empty() ? nlohmann::json(nullptr) : nlohmann::json(inv.unavailable)},
          {"gpu_count", inv.devices.size()},
          {"driver_version", cuda_version_string(inv.driver_version)},
          {"cuda_runtime_version", cuda_version_string(inv.runtime_version)},
          {"cuda_headers_version", build.cuda_version},
          {"cccl_version", build.cccl_version},
          {"cuda_architectures", build.cuda_architectures},
          {"build_type", build.build_type},
          {"git_commit", build.git_commit},
          {"command_line", command},
          {"seed", seed},
          {"date_utc", utc_timestamp()},
          {"host", host_name()},
          {"cpu_model", cpu_model()},
          {"cpu_threads", cpu_threads()},
          {"policy", policies},
          {"design", designs}};
}

}  // namespace warpsort::cli

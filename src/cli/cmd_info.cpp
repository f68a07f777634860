// `warpsort info`: the build, the default policy, and the CUDA devices.
#include "tuning.hpp"
#include "cli/build_info.hpp"
#include "cli/commands.hpp"
#include "cli/key_dispatch.hpp"
#include "cli/metadata.hpp"

#include <warpsort/error.hpp>
#include <warpsort/policy.hpp>

#include <fmt/format.h>

namespace warpsort::cli {

int run_info() {
  const build_info b = get_build_info();
  fmt::print("build\n");
  fmt::print("  git commit:              {}\n", b.git_commit);
  fmt::print("  CUDA (headers):          {}\n", b.cuda_version);
  fmt::print("  CCCL:                    {}\n", b.cccl_version);
  fmt::print("  CUDA architectures:      {}\n", b.cuda_architectures);
  fmt::print("  build type:              {}\n", b.build_type);
  fmt::print("  key types (sort):        {}\n", join(supported_key_type_names()));
  for (data::key_type t : supported_key_types())
    with_key_type(t, [&](auto tag) {
      using Key = typename decltype(tag)::type;
      fmt::print("default policy ({})\n", data::key_type_name(t));
      const nlohmann::json values = policy_json(tuned_policy<Key>());
      for (const auto& item : values.items())
        fmt::print("  {:<24} {}\n", item.key() + ":", item.value().dump());
    });

  const device_inventory inv = query_devices();
  fmt::print("runtime\n");
  fmt::print("  CUDA driver:             {}\n", cuda_version_string(inv.driver_version));
  fmt::print("  CUDA runtime:            {}\n", cuda_version_string(inv.runtime_version));
  std::fflush(stdout);
  if (!inv.unavailable.empty()) throw cuda_error(cudaErrorNoDevice, inv.unavailable);
  for (const auto& d : inv.devices) {
    fmt::print("device {}\n", d.index);
    fmt::print("  name:                    {}\n", d.name);
    fmt::print("  SMs:                     {}\n", d.sm_count);
    fmt::print("  compute capability:      {}.{}\n", d.cc_major, d.cc_minor);
    fmt::print("  memory:                  {:.2f} GiB\n",
               static_cast<double>(d.total_memory_bytes) / (1024.0 * 1024 * 1024));
    fmt::print("  PCI bus:                 {}\n", d.pci_bus_id);
  }
  return 0;
}

}  // namespace warpsort::cli

// Run metadata: every field present, and the pieces formatted as documented.
#include "cli/build_info.hpp"
#include "cli/metadata.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace {

using namespace warpsort::cli;

TEST(Metadata, EveryFieldPresentWithOrWithoutAGpu) {
  const nlohmann::json m = run_metadata("warpsort bench --reps 2", 7);
  for (const char* key : {"gpu", "gpu_unavailable", "gpu_count", "driver_version",
                          "cuda_runtime_version", "cuda_headers_version", "cccl_version",
                          "cuda_architectures", "build_type", "git_commit", "command_line", "seed",
                          "date_utc", "host", "cpu_model", "cpu_threads", "policy", "design"})
    EXPECT_TRUE(m.contains(key)) << key;
  EXPECT_EQ(m["command_line"], "warpsort bench --reps 2");
  EXPECT_EQ(m["seed"], 7);
  EXPECT_FALSE(m["git_commit"].get<std::string>().empty());
  EXPECT_TRUE(std::regex_match(m["cccl_version"].get<std::string>(), std::regex(R"(\d+\.\d+\.\d+)")));
  // Exactly one of: a GPU description, or the reason there is none.
  EXPECT_NE(m["gpu"].is_null(), m["gpu_unavailable"].is_null());
  if (!m["gpu"].is_null()) {
    for (const char* key : {"name", "sm_count", "compute_capability", "memory_bytes"})
      EXPECT_TRUE(m["gpu"].contains(key)) << key;
  }
  const nlohmann::json& p = m["policy"]["uint32"];
  for (const char* key : {"chunk_keys", "merge_tile_keys", "block_sort_keys", "max_sequences",
                          "oversampling", "max_ranked_samples", "group_capacity",
                          "pairwise_below_blocks", "small_oversampling_blocks",
                          "small_oversampling", "one_round_blocks"})
    EXPECT_TRUE(p.contains(key)) << key;
  EXPECT_EQ(p["group_capacity"], warpsort::default_policy<std::uint32_t>().group_capacity);
}

TEST(Metadata, TimestampIsUtcIso8601) {
  EXPECT_TRUE(std::regex_match(utc_timestamp(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << utc_timestamp();
}

TEST(Metadata, CommandLineIsShellQuoted) {
  EXPECT_EQ(command_line({"warpsort", "bench", "--sizes", "2^10,1000"}),
            "warpsort bench --sizes 2^10,1000");
  EXPECT_EQ(command_line({"warpsort", "a b", "it's", ""}), "warpsort 'a b' 'it'\\''s' ''");
}

TEST(Metadata, HostFields) {
  EXPECT_GT(cpu_threads(), 0u);
  EXPECT_FALSE(cpu_model().empty());
  EXPECT_FALSE(host_name().empty());
}

TEST(BuildInfo, VersionsAndArchitectures) {
  const build_info b = get_build_info();
  EXPECT_FALSE(b.git_commit.empty());
  EXPECT_FALSE(b.cuda_architectures.empty());
  EXPECT_NE(b.cuda_version, "none");
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(12040), "12.4");
  EXPECT_EQ(cuda_version_string(0), "none");
}

TEST(DeviceQuery, NeverThrowsAndExplainsAbsence) {
  const device_inventory inv = query_devices();
  if (inv.devices.empty()) {
    EXPECT_NE(inv.unavailable.find("no CUDA device"), std::string::npos);
  } else {
    EXPECT_TRUE(inv.unavailable.empty());
  }
}

}  // namespace

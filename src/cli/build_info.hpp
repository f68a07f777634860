// What this binary was built from and with (fixed at compile time).
#pragma once

#include <string>

namespace warpsort::cli {

struct build_info {
  std::string git_commit;          // `git rev-parse --short HEAD` at configure time, "-dirty" if
                                   // the tree had changes, "unknown" without git
  std::string cuda_version;        // CUDA runtime headers compiled against, e.g. "13.0"
  std::string cccl_version;        // CCCL (CUB/Thrust/libcu++) headers, e.g. "3.0.1"
  std::string cuda_architectures;  // CMAKE_CUDA_ARCHITECTURES, e.g. "90"
  std::string build_type;          // CMAKE_BUILD_TYPE
};

build_info get_build_info();

/// 13000 -> "13.0" (the encoding of CUDART_VERSION and cudaDriverGetVersion).
std::string cuda_version_string(int version);

}  // namespace warpsort::cli

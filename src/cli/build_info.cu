// Compiled by nvcc so the CCCL version comes from the very headers the sorts were built with.
#include "cli/build_info.hpp"

#include <cuda/version>
#include <cuda_runtime_api.h>

#ifndef WARPSORT_GIT_COMMIT
#define WARPSORT_GIT_COMMIT "unknown"
#endif
#ifndef WARPSORT_CUDA_ARCHITECTURES
#define WARPSORT_CUDA_ARCHITECTURES "unknown"
#endif
#ifndef WARPSORT_BUILD_TYPE
#define WARPSORT_BUILD_TYPE "unknown"
#endif

namespace warpsort::cli {

std::string cuda_version_string(int version) {
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

build_info get_build_info() {
  build_info b;
  b.git_commit = WARPSORT_GIT_COMMIT;
  b.cuda_version = cuda_version_string(CUDART_VERSION);
  b.cccl_version = std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) +
                   "." + std::to_string(CCCL_PATCH_VERSION);
  b.cuda_architectures = WARPSORT_CUDA_ARCHITECTURES;
  b.build_type = WARPSORT_BUILD_TYPE;
  return b;
}

}  // namespace warpsort::cli

#!/usr/bin/env bash
# Configures and builds into build/ (Release, sm_90 unless CMAKE_CUDA_ARCHITECTURES is set).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}" >/dev/null
cmake --build build -j"$(nproc)"

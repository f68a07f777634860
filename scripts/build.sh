#!/usr/bin/env bash
# Configures and builds into build/ (Release, sm_90 unless CMAKE_CUDA_ARCHITECTURES is set).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# The Python module too where nanobind and Python's headers are there (CTest then tests it).
python=OFF
python3 -c "import nanobind, os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" \
  2>/dev/null && python=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}" -DWARPSORT_BUILD_PYTHON=$python >/dev/null
cmake --build build -j"$(nproc)"

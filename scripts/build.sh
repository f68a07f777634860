#!/usr/bin/env bash
# Configures and builds into build/ (Release; the GPU architectures: CMAKE_CUDA_ARCHITECTURES if
# set, else the visible GPUs', else sm_90: CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# The Python module too, for the Python setup.sh chose (CTest then tests it with that Python).
python=OFF
if [ -n "$WARPSORT_PYTHON" ] && "$WARPSORT_PYTHON" -c "import nanobind, pytest, numpy, os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" 2>/dev/null; then
  python=ON
else
  echo "build: no Python with nanobind, pytest, numpy and Python.h: the Python module is not built" >&2
fi
# -U: FindPython resolves its Python anew, so a build tree made with another Python follows
cmake -S . -B build -U "_Python_*" -DCMAKE_BUILD_TYPE=Release \
  ${CMAKE_CUDA_ARCHITECTURES:+-DCMAKE_CUDA_ARCHITECTURES="$CMAKE_CUDA_ARCHITECTURES"} \
  -DWARPSORT_BUILD_PYTHON=$python \
  ${WARPSORT_PYTHON:+-DPython_EXECUTABLE="$WARPSORT_PYTHON"} >/dev/null
cmake --build build -j"$(nproc)"

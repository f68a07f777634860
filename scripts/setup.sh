#!/usr/bin/env bash
# Installs what the build and tests need and is missing (Debian/Ubuntu, apt-get as root or
# through sudo). The CUDA toolkit (nvcc 12.x/13.x with CCCL) must already be installed.
set -euo pipefail

packages=(cmake g++ make libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libtbb-dev
          python3 python3-dev python3-venv python3-numpy python3-pandas python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1; then
  for d in /usr/local/cuda/bin /usr/local/cuda-13.0/bin; do
    [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
  done
fi
command -v nvcc >/dev/null 2>&1 || { echo "setup: nvcc not found: install the CUDA toolkit (12.x or 13.x)" >&2; exit 1; }

# The Python the module is built and tested with: $WARPSORT_PYTHON if set, else a virtual
# environment of the project's own (.venv, made from the first python3 on PATH) with everything
# the module's build and tests import. Packages of some other Python (apt's python3-numpy is
# /usr/bin/python3's) do not count: CMake builds and tests with this one.
if [ -z "${WARPSORT_PYTHON:-}" ]; then
  venv="$PWD/.venv"
  if ! "$venv/bin/python" -c "import nanobind, pytest, numpy" 2>/dev/null; then
    echo "setup: making $venv (nanobind, pytest, numpy) for the Python module" >&2
    if python3 -m venv "$venv" && "$venv/bin/python" -m pip install --quiet nanobind pytest numpy; then
      :
    else
      echo "setup: could not make $venv: the Python module will not be built" >&2
    fi
  fi
  "$venv/bin/python" -c "import nanobind, pytest, numpy" 2>/dev/null && WARPSORT_PYTHON="$venv/bin/python"
fi
export WARPSORT_PYTHON="${WARPSORT_PYTHON:-}"

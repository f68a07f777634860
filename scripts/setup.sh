#!/usr/bin/env bash
# Installs what the build and tests need and is missing (Debian/Ubuntu, apt-get as root or
# through sudo). The CUDA toolkit (nvcc 12.x/13.x with CCCL) must already be installed.
set -euo pipefail

packages=(cmake g++ make libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libtbb-dev
          python3 python3-numpy python3-pandas python3-matplotlib)
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

# The Python module (built when nanobind is importable, tested with pytest): through pip where
# pip may install; otherwise the build goes on without it, saying so.
if ! python3 -c "import nanobind, pytest" 2>/dev/null; then
  python3 -m pip install --quiet nanobind pytest 2>/dev/null ||
    echo "setup: could not pip-install nanobind and pytest: the Python module will not be built" >&2
fi

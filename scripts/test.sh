#!/usr/bin/env bash
# Build, then run every test with CTest. GPU tests skip, saying why, where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" "$@"

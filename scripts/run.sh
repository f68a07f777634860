#!/usr/bin/env bash
# The main job: build, then run the default experiment (warpsort with no arguments) on the GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec build/src/cli/warpsort "$@"

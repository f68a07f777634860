#!/usr/bin/env bash
# On a machine with a GPU, after scripts/build.sh: the whole GPU check that every change to
# GPU code passes before it is called done.
#   1. every CTest test, failing if any test was skipped (a skip on a GPU machine hides a gap);
#   2. compute-sanitizer memcheck and racecheck on the GPU test binaries (scripts/run_sanitizers.sh;
#      the sanitizers are 10-100x slower, so sizes are capped with WARPSORT_TEST_MAX_N).
# Usage: scripts/gpu_check.sh [LOG_DIR]   (logs default to build/gpu_check)
set -uo pipefail
cd "$(dirname "$0")/.."
logs=${1:-build/gpu_check}
mkdir -p "$logs"
status=0

# the opt-in test of more than 2^32 keys (about 50 GB of device memory) runs here too
export WARPSORT_LARGE_TESTS=${WARPSORT_LARGE_TESTS:-1}
(cd build && ctest -V -j4) > "$logs/ctest.log" 2>&1 || status=1
grep -E "tests passed|tests failed" "$logs/ctest.log"
grep -E "^ *[0-9]+ - .*\((Failed|Timeout|Not Run)\)" "$logs/ctest.log"
if grep -q "GPU test skipped" "$logs/ctest.log"; then
  echo "gpu_check: GPU tests were skipped on a GPU machine:"; grep "GPU test skipped" "$logs/ctest.log" | sort | uniq -c
  status=1
fi
echo "other skips (not GPU tests):"; grep -E "Skipped +[0-9.]+ sec" "$logs/ctest.log" | sed 's/.*Test *#[0-9]*: //' | sort -u

gpu_tests=$(find build/tests -maxdepth 2 -type f -perm -u+x \( -name 'test_*_gpu' -o -name 'test_gpu_*' \) | sort)
# shellcheck disable=SC2086  # one argument a binary
scripts/run_sanitizers.sh "$logs" $gpu_tests || status=1
exit $status

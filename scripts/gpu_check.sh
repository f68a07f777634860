#!/usr/bin/env bash
# On a machine with a GPU, after scripts/build.sh: the whole GPU check that every change to
# GPU code passes before it is called done.
#   1. every CTest test, failing if any test was skipped (a skip on a GPU machine hides a gap);
#   2. compute-sanitizer memcheck and racecheck on the GPU test binaries. The sanitizers are
#      10-100x slower, so sizes are capped with WARPSORT_TEST_MAX_N (default 70000: every size
#      class of the pipeline list up to 2^16 + 1 and the 65537/2^16 +- 1 edge cases).
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
export WARPSORT_TEST_MAX_N=${WARPSORT_TEST_MAX_N:-70000}
unset WARPSORT_LARGE_TESTS
# the binaries run side by side: the sanitizers' cost is mostly on the host
for t in $gpu_tests; do
  name=$(basename "$t")
  (compute-sanitizer --tool memcheck --error-exitcode 90 "$t" > "$logs/memcheck_$name.log" 2>&1
   echo $? > "$logs/memcheck_$name.rc") &
done
wait
for t in $gpu_tests; do
  name=$(basename "$t")
  rc=$(cat "$logs/memcheck_$name.rc")
  echo "memcheck  $name: rc=$rc $(grep -h 'ERROR SUMMARY' "$logs/memcheck_$name.log")"
  [ "$rc" -eq 0 ] || status=1
done
# racecheck checks shared memory: the kernels that use it are steps 1, 2 and 4 and the textbook
# bitonic sort
for t in build/tests/stages/test_stages_gpu build/tests/baselines/test_gpu_baselines; do
  name=$(basename "$t")
  filter='*'
  [ "$name" = test_stages_gpu ] && filter='Step1*:Step2*:Step3*:Step4*'
  [ "$name" = test_gpu_baselines ] && filter='GpuBaselines/0.SortsSizeList*'
  compute-sanitizer --tool racecheck --error-exitcode 91 "$t" --gtest_filter="$filter" > "$logs/racecheck_$name.log" 2>&1
  rc=$?; echo "racecheck $name: rc=$rc $(grep -h 'RACECHECK SUMMARY' "$logs/racecheck_$name.log")"
  [ $rc -eq 0 ] || status=1
done
exit $status

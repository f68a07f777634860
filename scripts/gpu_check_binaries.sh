#!/usr/bin/env bash
# scripts/gpu_check.sh for a GPU machine that has the packed binaries but no CMake/CTest
# (scripts/pack_gpu_binaries.sh): every GPU test binary (failing if any test is skipped; the
# opt-in test of more than 2^32 keys included), then compute-sanitizer memcheck on all of them
# and racecheck on the kernels that use shared memory, the binaries side by side.
#   scripts/gpu_check_binaries.sh UNPACKED_DIR [LOG_DIR]      (logs default to gpu_check_logs)
set -uo pipefail
dir=$1
logs=${2:-gpu_check_logs}
mkdir -p "$logs"
export LD_LIBRARY_PATH="$dir/lib:${LD_LIBRARY_PATH:-}"
tests=$(find "$dir/bin" -type f \( -name 'test_*_gpu' -o -name 'test_gpu_*' \) | sort)
status=0
for t in $tests; do
  name=$(basename "$t")
  (WARPSORT_LARGE_TESTS=1 "$t" > "$logs/$name.log" 2>&1; echo $? > "$logs/$name.rc") &
done
wait
for t in $tests; do
  name=$(basename "$t")
  rc=$(cat "$logs/$name.rc")
  echo "test      $name: rc=$rc $(grep -E '^\[  (PASSED|FAILED) ' "$logs/$name.log" | tr '\n' ' ')"
  [ "$rc" -eq 0 ] || status=1
  if grep -q "skipped" "$logs/$name.log"; then echo "  skipped tests in $name:"; grep "skipped" "$logs/$name.log"; status=1; fi
done
export WARPSORT_TEST_MAX_N=${WARPSORT_TEST_MAX_N:-70000}
for t in $tests; do
  name=$(basename "$t")
  (compute-sanitizer --tool memcheck --error-exitcode 90 "$t" > "$logs/memcheck_$name.log" 2>&1
   echo $? > "$logs/memcheck_$name.rc") &
done
for t in "$dir/bin/test_stages_gpu" "$dir/bin/test_gpu_baselines"; do
  name=$(basename "$t")
  filter='Step1*:Step2*:Step3*:Step4*'
  [ "$name" = test_gpu_baselines ] && filter='GpuBaselines/0.SortsSizeList*'
  (compute-sanitizer --tool racecheck --error-exitcode 91 "$t" --gtest_filter="$filter" > "$logs/racecheck_$name.log" 2>&1
   echo $? > "$logs/racecheck_$name.rc") &
done
wait
for t in $tests; do
  name=$(basename "$t")
  rc=$(cat "$logs/memcheck_$name.rc")
  echo "memcheck  $name: rc=$rc $(grep -h 'ERROR SUMMARY' "$logs/memcheck_$name.log")"
  [ "$rc" -eq 0 ] || status=1
done
for name in test_stages_gpu test_gpu_baselines; do
  rc=$(cat "$logs/racecheck_$name.rc")
  echo "racecheck $name: rc=$rc $(grep -h 'RACECHECK SUMMARY' "$logs/racecheck_$name.log")"
  [ "$rc" -eq 0 ] || status=1
done
exit $status

#!/usr/bin/env bash
# compute-sanitizer over GPU test binaries, side by side (the sanitizers' cost is mostly on the
# host): memcheck on every binary given, racecheck on the ones whose kernels use shared memory
# (steps 1-4 of test_stages_gpu and of the typed and custom-comparator step tests, the textbook bitonic sort of test_gpu_baselines, the presets'
# kernels, the run merge alone and in the distributed sort). Sizes are
# capped with WARPSORT_TEST_MAX_N (default 70000: every size class of the pipeline list up to
# 2^16 + 1). Prints one line a run; exits non-zero if any found an error.
#   scripts/run_sanitizers.sh LOG_DIR TEST_BINARY...
set -uo pipefail
logs=$1
shift
mkdir -p "$logs"
export WARPSORT_TEST_MAX_N=${WARPSORT_TEST_MAX_N:-70000}
unset WARPSORT_LARGE_TESTS
racecheck_filter() {
  case "$(basename "$1")" in
    test_stages_gpu) echo 'Step1*:Step2*:Step3*:Step4*' ;;
    test_steps_typed_gpu) echo 'EveryStep/0.*:EveryStep/3.*' ;;  # 4- and 8-byte keys
    test_steps_custom_gpu) echo '*' ;;
    test_thread_merge_gpu) echo '*' ;;
    test_gpu_baselines) echo 'GpuBaselines/0.SortsSizeList*' ;;
    test_presets_gpu) echo 'Presets.PaperBufferSizesAndGroupCounts' ;;
    test_distributed_gpu) echo 'DistributedKeys/0.*' ;;
    test_merge_runs_gpu) echo '*' ;;
  esac
}
for t in "$@"; do
  name=$(basename "$t")
  # NCCL probes kernels it has no image for (cudaFuncGetAttributes): API errors not ours, so the
  # binaries that load it are checked for memory errors only (every call of ours is checked)
  api=explicit
  [ "$name" = test_distributed_gpu ] && api=no
  (compute-sanitizer --tool memcheck --report-api-errors $api --error-exitcode 90 "$t" > "$logs/memcheck_$name.log" 2>&1
   echo $? > "$logs/memcheck_$name.rc") &
  filter=$(racecheck_filter "$t")
  if [ -n "$filter" ]; then
    (compute-sanitizer --tool racecheck --error-exitcode 91 "$t" --gtest_filter="$filter" \
       > "$logs/racecheck_$name.log" 2>&1
     echo $? > "$logs/racecheck_$name.rc") &
  fi
done
wait
status=0
for tool in memcheck racecheck; do
  summary='ERROR SUMMARY'
  [ $tool = racecheck ] && summary='RACECHECK SUMMARY'
  for t in "$@"; do
    name=$(basename "$t")
    [ -f "$logs/${tool}_$name.rc" ] || continue
    rc=$(cat "$logs/${tool}_$name.rc")
    printf '%-9s %s: rc=%s %s\n' "$tool" "$name" "$rc" "$(grep -h "$summary" "$logs/${tool}_$name.log")"
    [ "$rc" -eq 0 ] || status=1
  done
done
exit $status

#!/usr/bin/env bash
# scripts/gpu_check.sh for a GPU machine that has the packed binaries but no CMake/CTest
# (scripts/pack_gpu_binaries.sh): every GPU test binary (failing if any test is skipped; the
# opt-in test of more than 2^32 keys included), then scripts/run_sanitizers.sh on them.
#   scripts/gpu_check_binaries.sh UNPACKED_DIR [LOG_DIR]      (logs default to gpu_check_logs)
set -uo pipefail
dir=$1
logs=${2:-gpu_check_logs}
mkdir -p "$logs"
export LD_LIBRARY_PATH="$dir/lib:${LD_LIBRARY_PATH:-}"
tests=$(find "$dir/bin" -type f \( -name 'test_*_gpu' -o -name 'test_gpu_*' \) | sort)
# binaries whose tests time the GPU and need it to themselves: run alone, after the others
serial="test_pipeline_gpu"
status=0
for t in $tests; do
  name=$(basename "$t")
  case " $serial " in *" $name "*) continue ;; esac
  (WARPSORT_LARGE_TESTS=1 "$t" > "$logs/$name.log" 2>&1; echo $? > "$logs/$name.rc") &
done
# The CLI as a process (sort and bench round trips; the tests of a machine without a GPU skip).
if [ -x "$dir/bin/test_cli_process" ]; then
  mkdir -p "$logs/cli_process_files"
  (WARPSORT_CLI_BINARY="$(cd "$dir/bin" && pwd)/warpsort" \
   WARPSORT_CLI_TEST_DIR="$(cd "$logs/cli_process_files" && pwd)" \
     "$dir/bin/test_cli_process" --gtest_filter='-*WithoutAGpu*' > "$logs/test_cli_process.log" 2>&1
   echo $? > "$logs/test_cli_process.rc") &
  tests_and_cli="$tests $dir/bin/test_cli_process"
else
  tests_and_cli="$tests"
fi
wait
for t in $tests; do
  name=$(basename "$t")
  case " $serial " in *" $name "*) ;; *) continue ;; esac
  WARPSORT_LARGE_TESTS=1 "$t" > "$logs/$name.log" 2>&1; echo $? > "$logs/$name.rc"
done
for t in $tests_and_cli; do
  name=$(basename "$t")
  rc=$(cat "$logs/$name.rc")
  echo "test      $name: rc=$rc $(grep -E '^\[  (PASSED|FAILED) ' "$logs/$name.log" | tr '\n' ' ')"
  [ "$rc" -eq 0 ] || status=1
  # GoogleTest marks a skip "[  SKIPPED ]"; the reasons say "skipped"
  if grep -q -E '^\[  SKIPPED \]|skipped' "$logs/$name.log"; then
    echo "  skipped tests in $name:"
    grep -E '^\[  SKIPPED \] [A-Za-z]' "$logs/$name.log" | sort -u
    status=1
  fi
done
# shellcheck disable=SC2086  # one argument a binary
"$(dirname "$0")/run_sanitizers.sh" "$logs" $tests || status=1
exit $status

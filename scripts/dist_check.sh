#!/usr/bin/env bash
# The distributed sort's checks on a machine of 2+ GPUs (4 for every part), about 6 minutes:
#   1. test_distributed_gpu, every test: the fuzz on the test transport (P = 1..8 on one GPU),
#      the deadline and agreement tests, NCCL across every GPU (uneven and empty ranks);
#   2. test_cli_process's `warpsort dist` tests: the totals that hung, bad arguments refused
#      once, the deadline test (rank 1 stalled at the exchange, --timeout 5), the kill tests (a
#      rank killed, the launcher stopped: every rank stops, none is left);
#   3. the fuzz over NCCL, one process a GPU, full-sized (totals 0..300, 2^k - 3 .. 2^k + 3 for
#      k <= 24, 32 random ones), at P = 2, 3 and 4;
#   4. compute-sanitizer memcheck on rank 0 of a two-rank run of small totals (started as under
#      mpirun, so rank 0 alone runs under the sanitizer).
# Binaries: the build tree (build/src/cli/warpsort, build/tests/...) or the packed layout of
# scripts/pack_gpu_binaries.sh (DIR/bin/..., DIR/lib/...):
#   scripts/dist_check.sh OUT_DIR [BUILD_OR_PACKED_DIR [PARTS]]
# BUILD_OR_PACKED_DIR defaults to build; PARTS, a comma list of tests (1 and 2), fuzz (3) and
# memcheck (4), defaults to all. Each step runs under a hard limit (a hang shows as one), so
# 'tests' ends within 6 minutes and 'fuzz,memcheck' within 8 whatever happens.
# OUT_DIR gets at most 8 files, flat: the logs, dist_fuzz.csv (columns ranks, n, type, values,
# order, rebalance, ended, validated, seconds; P = 2, 3, 4) and summary.txt with the counts.
set -uo pipefail
out=$1
root=${2:-build}
parts=",${3:-tests,fuzz,memcheck},"
want() { [[ $parts == *",$1,"* ]]; }
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -x "$root/bin/warpsort" ]; then
  cli="$root/bin/warpsort"; dist_test="$root/bin/test_distributed_gpu"; cli_test="$root/bin/test_cli_process"
  export LD_LIBRARY_PATH="$(cd "$root/lib" 2>/dev/null && pwd):${LD_LIBRARY_PATH:-}"
else
  cli="$root/src/cli/warpsort"; dist_test="$root/tests/distributed/test_distributed_gpu"
  cli_test="$root/tests/cli/test_cli_process"
fi
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
for b in "$cli" "$dist_test" "$cli_test"; do
  [ -x "$b" ] || { echo "dist_check: missing binary $b" >&2; exit 2; }
done
# never NVLink multicast (it can take the GPUs down)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
gpus=$(nvidia-smi -L | wc -l)
summary="$out/summary.txt"
work=$(mktemp -d "${TMPDIR:-/tmp}/dist_check.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
{
  echo "dist_check $(date -u +%FT%TZ) on $(hostname), $gpus GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
  echo "binaries: $cli, $dist_test, $cli_test"
} > "$summary"
step() {  # name, seconds allowed, command...: runs it under a hard limit, records rc and time
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout -k 10 "$limit" "$@"
  local rc=$?
  echo "$name: rc=$rc, $((SECONDS - start)) s$([ $rc -eq 124 ] || [ $rc -eq 137 ] && echo ' (HIT THE SCRIPT LIMIT: a hang)')" >> "$summary"
  [ $rc -eq 0 ] || status=1
  return $rc
}

if want tests; then
  # 1. the library's tests (every one; none may skip on 2+ GPUs)
  step test_distributed_gpu 200 "$dist_test" > "$out/test_distributed_gpu.log" 2>&1
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |dist fuzz \(test transport\)' "$out/test_distributed_gpu.log" >> "$summary"

  # 2. the CLI as processes: argument errors, the totals that hung, deadline and kill tests
  mkdir -p "$work/cli"
  WARPSORT_CLI_BINARY="$cli" WARPSORT_CLI_TEST_DIR="$work/cli" \
    step test_cli_process_dist 150 "$cli_test" --gtest_filter='CliProcess.Dist*' \
    > "$out/test_cli_process_dist.log" 2>&1
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[ +(OK|FAILED) +\] CliProcess.Dist' "$out/test_cli_process_dist.log" >> "$summary"
fi

# 3. the fuzz over NCCL, one process a GPU, one communicator a run
if want fuzz; then
echo "ranks,n,type,values,order,rebalance,ended,validated,seconds" > "$out/dist_fuzz.csv"
: > "$out/dist_fuzz.log"
for p in 2 3 4; do
  [ "$p" -le "$gpus" ] || { echo "fuzz P=$p: skipped, $gpus GPU(s)" >> "$summary"; continue; }
  echo "== warpsort dist --gpus $p --fuzz" >> "$out/dist_fuzz.log"
  step "fuzz_nccl_P$p" 110 "$cli" dist --gpus "$p" --fuzz --seed 35 --out "$work/fuzz$p" \
    >> "$out/dist_fuzz.log" 2>&1
  if [ -f "$work/fuzz$p/dist_fuzz.csv" ]; then
    tail -n +2 "$work/fuzz$p/dist_fuzz.csv" >> "$out/dist_fuzz.csv"
    # runs, totals, hangs (runs that did not end), wrong results, from the CSV itself
    awk -F, -v p="$p" 'NR > 1 { runs++; if ($7 != "true") hangs++; else if ($8 != "true") wrong++;
                         if (min == "" || $2 + 0 < min) min = $2 + 0; if ($2 + 0 > max) max = $2 + 0;
                         if ($9 + 0 > slow) slow = $9 + 0 }
         END { printf "fuzz NCCL ranks %d: runs %d, totals %d..%d, hangs %d, wrong %d, slowest %.3f s\n",
               p, runs, min, max, hangs, wrong, slow }' "$work/fuzz$p/dist_fuzz.csv" >> "$summary"
  fi
done
grep -E '^dist fuzz' "$out/dist_fuzz.log" >> "$summary"
fi

# 4. memcheck of rank 0 (rank 1 plain), as mpirun would start them: --id-file passes the id
if want memcheck && [ "$gpus" -ge 2 ]; then
  rm -f "$work/nccl.id"
  args=(dist --id-file "$work/nccl.id" --sizes 0,1,3,11,4099,65539 --reps 1 --warmup 0 --no-baseline
        --rebalance --timeout 120)
  (OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 timeout -k 10 150 "$cli" "${args[@]}" \
     > "$work/rank1.log" 2>&1; echo "rank 1 rc=$?" >> "$work/rank1.log") &
  OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 \
    step memcheck_rank0 140 "$sanitizer" --tool memcheck --report-api-errors no \
    --error-exitcode 90 "$cli" "${args[@]}" > "$out/memcheck.log" 2>&1
  wait
  { echo "== rank 1 (not under the sanitizer)"; cat "$work/rank1.log"; } >> "$out/memcheck.log"
  grep -E 'ERROR SUMMARY|rank 1 rc=' "$out/memcheck.log" >> "$summary"
fi
echo "overall: $([ $status -eq 0 ] && echo PASS || echo FAIL)" >> "$summary"
cat "$summary"
exit $status

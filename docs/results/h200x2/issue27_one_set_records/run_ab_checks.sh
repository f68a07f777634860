#!/usr/bin/env bash
# One set's records without the set: main (53ab11a's device code) against the build, the 2-GPU
# sort alternated twice (both gather paths, 2^20-2^28); then every GPU test binary beside the
# sanitizers on the changed kernels (the run merge, the gathered path, the exchange's copies).
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/o $R/dist $R/tests $R/san
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/suite.tar.xz | tar -C /tmp/o -xf - bin/warpsort
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L > $R/gpu.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpu.txt
b=/tmp/w/bin
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
for round in 1 2; do
  for v in old new; do
    W=$([ $v = old ] && echo /tmp/o/bin/warpsort || echo $b/warpsort)
    timeout 80 $W dist --gpus 2 --sizes 2^20,2^22,2^24,2^26,2^28 --gather never --reps 9 --warmup 2 --out $R/dist/${v}_never_$round > $R/dist/${v}_never_$round.log 2>&1
    timeout 80 $W dist --gpus 2 --sizes 2^20,2^22,2^24,2^26,2^28 --gather always --reps 9 --warmup 2 --out $R/dist/${v}_always_$round > $R/dist/${v}_always_$round.log 2>&1
  done
  el "dist $round"
done
run() { tool=$1; name=$2; filter=$3; shift 3
  WARPSORT_TEST_MAX_N=70000 timeout 280 compute-sanitizer --tool $tool "$@" --error-exitcode 90 $b/$name --gtest_filter="$filter" > $R/san/${tool}_$name.log 2>&1; echo "rc=$?" >> $R/san/${tool}_$name.log; }
run memcheck test_merge_runs_gpu '*' &
run racecheck test_merge_runs_gpu '*' &
(run memcheck test_distributed_gpu 'DistributedKeys/0.GatheredMergeOnAnyRanks:DistributedKeys/3.GatheredMergeOnAnyRanks:Distributed.EveryExchangePathGivesTheSameOutput' --report-api-errors no; mv $R/san/memcheck_test_distributed_gpu.log $R/san/memcheck_dist_gathered.log) &
(run racecheck test_distributed_gpu 'DistributedKeys/0.GatheredMergeOnAnyRanks' ; mv $R/san/racecheck_test_distributed_gpu.log $R/san/racecheck_dist_gathered.log) &
for t in $(find $b -type f \( -name 'test_*_gpu' -o -name 'test_gpu_*' \) | sort); do
  n=$(basename $t); [ $n = test_pipeline_gpu ] && continue
  (WARPSORT_LARGE_TESTS=1 timeout 280 $t > $R/tests/$n.log 2>&1; echo "rc=$?" >> $R/tests/$n.log) &
done
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 280 $b/test_cli_process --gtest_filter='-*WithoutAGpu*' > $R/tests/test_cli_process.log 2>&1; echo "rc=$?" >> $R/tests/test_cli_process.log) &
wait
WARPSORT_LARGE_TESTS=1 timeout 100 $b/test_pipeline_gpu > $R/tests/test_pipeline_gpu.log 2>&1; echo "rc=$?" >> $R/tests/test_pipeline_gpu.log
el "tests and sanitizers"
for f in $R/tests/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(grep -c '^\[  SKIPPED \] [A-Za-z]' $f) skipped $(tail -1 $f)"; done
for f in $R/san/*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -1) | $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(tail -1 $f)"; done
grep -h "n=" $R/dist/*_1.log | head -3

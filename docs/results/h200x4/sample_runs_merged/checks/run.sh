#!/usr/bin/env bash
# Four H200s, the build with the runs' samples merged: every GPU test binary (the distributed
# ones across four GPUs), memcheck of the changed paths on one GPU, the new test on a broken
# build.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/checks
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin; L=$R/checks
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
(timeout 300 $b/test_distributed_gpu > $L/test_distributed_gpu.log 2>&1; echo "rc=$?" >> $L/test_distributed_gpu.log) &
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 300 $b/test_cli_process --gtest_filter='-*WithoutAGpu*' > $L/test_cli_process.log 2>&1; echo "rc=$?" >> $L/test_cli_process.log) &
# the single-GPU binaries, a GPU each in turn (test_pairs_gpu alone: its memory)
(export CUDA_VISIBLE_DEVICES=2; for t in $(find $b -type f -name 'test_*_gpu' | sort); do n=$(basename $t)
  case $n in test_distributed_gpu|test_pairs_gpu) continue;; esac
  WARPSORT_LARGE_TESTS=1 timeout 200 $t > $L/$n.log 2>&1; echo "rc=$?" >> $L/$n.log; done) &
(export CUDA_VISIBLE_DEVICES=3; for t in $b/test_pairs_gpu $b/test_gpu_*; do n=$(basename $t)
  WARPSORT_LARGE_TESTS=1 timeout 200 $t > $L/$n.log 2>&1; echo "rc=$?" >> $L/$n.log; done) &
wait
el tests
export CUDA_VISIBLE_DEVICES=0
timeout 250 compute-sanitizer --tool memcheck --error-exitcode 90 $b/test_distributed_gpu --gtest_filter='DistributedKeys/0.GatheredMergeOnAnyRanks:DistributedKeys/3.GatheredMergeOnAnyRanks:Distributed.EveryExchangePathGivesTheSameOutput' > $L/memcheck_distributed.log 2>&1; echo "rc=$?" >> $L/memcheck_distributed.log
el memcheck
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 90 $b/test_merge_runs_gpu > $L/memcheck_merge_runs.log 2>&1; echo "rc=$?" >> $L/memcheck_merge_runs.log
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 90 $b/test_merge_runs_gpu > $L/racecheck_merge_runs.log 2>&1; echo "rc=$?" >> $L/racecheck_merge_runs.log
LD_LIBRARY_PATH=.devcarry/m1 timeout 100 .devcarry/m1/test_merge_runs_gpu_broken > $L/broken_test_merge_runs.log 2>&1; echo "rc=$?" >> $L/broken_test_merge_runs.log
el sanitizers
for f in $L/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(grep -cE '^\[  SKIPPED \] [A-Za-z]' $f) skipped; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f) $(tail -n 1 $f)"; done

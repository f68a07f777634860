#!/usr/bin/env bash
# Four H200s: the committed build (the early sort waited for before its arena is replaced):
# test_distributed_gpu with every GPU, CliProcess.Dist*, memcheck of the new test, the default
# path once more on four GPUs.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/checks $R/ab
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/early3.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin; CS=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi -L > $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
(timeout 300 $b/test_distributed_gpu > $R/checks/test_distributed_gpu.log 2>&1; echo "rc=$?" >> $R/checks/test_distributed_gpu.log) &
(CUDA_VISIBLE_DEVICES=3 timeout 300 $CS --tool memcheck --error-exitcode 9 $b/test_distributed_gpu --gtest_filter='DistributedKeys/2.CallsOnTheSameRanks*' > $R/checks/memcheck_f32.log 2>&1; echo "rc=$?" >> $R/checks/memcheck_f32.log) &
wait; el checks
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 150 $b/test_cli_process --gtest_filter='CliProcess.Dist*' > $R/checks/test_cli_process_dist.log 2>&1; echo "rc=$?" >> $R/checks/test_cli_process_dist.log)
el cli; fin
for f in $R/checks/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) |ERROR SUMMARY' $f | tr '\n' ' ') $(tail -n 1 $f)"; done
grep -E "^\[  FAILED|Failure" -A3 $R/checks/*.log | head -30
timeout 60 $b/warpsort dist --gpus 4 --sizes 2^22,2^24,2^26 --reps 10 --warmup 2 --out $R/ab/g4 > $R/ab/g4.log 2>&1; el "g4 rc=$?"
cat $R/ab/g4.log

#!/usr/bin/env bash
# One H200: step 3's cut narrowed by the gathered samples. The whole GPU suite (test binaries spread over
# GPUs 1-3, test_distributed_gpu and the CLI's process tests with every GPU), memcheck and
# racecheck of the changed kernels on GPU 0; then on GPU 0 alone the bench of the build before
# (prev) and this one (new) alternated twice, and `components` at 2^28 of each.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/p/bin $R/suite/cp $R/checks $R/bench
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
G=$R/suite; nvidia-smi -L > $R/gpus.txt; CS=/usr/local/cuda/bin/compute-sanitizer
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
i=0
for t in /tmp/w/bin/test_*_gpu /tmp/w/bin/test_gpu_*; do
  n=$(basename $t)
  case $n in test_pipeline_gpu|test_distributed_gpu) continue ;; esac
  (WARPSORT_LARGE_TESTS=1 timeout 400 $t > $G/$n.log 2>&1; echo "rc $?" >> $G/$n.log) &
  i=$(( i + 1 ))
done
(timeout 300 /tmp/w/bin/test_distributed_gpu > $G/test_distributed_gpu.log 2>&1; echo "rc $?" >> $G/test_distributed_gpu.log) &
(export CUDA_VISIBLE_DEVICES=0
 timeout 300 .devcarry/test_stages_gpu_broken_ties --gtest_filter='Step3SplitSets.*' > $R/checks/broken_ties.log 2>&1; echo "rc $?" >> $R/checks/broken_ties.log
 # memcheck of step 3 and 4 tests; the new kernel (shared memory) under racecheck in a sort whose rounds all sort their samples
 timeout 300 $CS --tool memcheck --error-exitcode 9 /tmp/w/bin/test_stages_gpu --gtest_filter='Step3SplitSets.*:Step4MergeSets.*' > $R/checks/memcheck_split_sets.log 2>&1; echo "rc $?" >> $R/checks/memcheck_split_sets.log
 for tool in memcheck racecheck; do  # every round's samples sorted, not ranked: small sets merge
   WARPSORT_POLICY=max_ranked_samples=0 timeout 300 $CS --tool $tool --error-exitcode 9 /tmp/w/bin/warpsort sort --dist uniform --type uint32 --n 2^20+3 --reps 1 --warmup 0 > $R/checks/${tool}_sort_unranked.log 2>&1; echo "rc $?" >> $R/checks/${tool}_sort_unranked.log
 done
 for ty in uint32 int32 float32; do
   for o in "" --descending; do
     timeout 300 $CS --tool memcheck --error-exitcode 9 /tmp/w/bin/warpsort sort --dist uniform --type $ty --n 2^26+5 $o --reps 1 --warmup 0 > $R/checks/memcheck_sort_${ty}$o.log 2>&1; echo "rc $?" >> $R/checks/memcheck_sort_${ty}$o.log
   done
 done) &
wait; el suite; fin
(WARPSORT_CLI_BINARY=/tmp/w/bin/warpsort WARPSORT_CLI_TEST_DIR=$G/cp timeout 200 /tmp/w/bin/test_cli_process --gtest_filter='-*WithoutAGpu*' > $G/test_cli_process.log 2>&1; echo "rc $?" >> $G/test_cli_process.log)
el cli
(CUDA_VISIBLE_DEVICES=0 timeout 100 /tmp/w/bin/test_pipeline_gpu > $G/test_pipeline_gpu.log 2>&1; echo "rc $?" >> $G/test_pipeline_gpu.log); el pipeline
for f in $G/*.log $R/checks/*.log; do echo "$(basename $f) $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' $f | tr '\n' ' ') $(tail -n1 $f)"; done
grep -h '^\[  FAILED \]\|^\[  SKIPPED \]' $G/*.log | sort -u | head
fin
fin

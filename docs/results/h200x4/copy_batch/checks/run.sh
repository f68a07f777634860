#!/usr/bin/env bash
# Four H200s: 2^32, pairs 2^30 and 2^36 (old 47e5f64 against the batched copies); the GPU tests,
# memcheck and racecheck of the exchange paths (one GPU, the tests' transport).
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/o $R/ab $R/tests $R/san
xz -dc .devcarry/new2.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/old47.xz > /tmp/o/warpsort && chmod +x /tmp/o/warpsort
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
for v in old new; do
  W=$([ $v = old ] && echo /tmp/o/warpsort || echo $b/warpsort)
  d() { name=$1; shift; timeout 150 $W dist --warmup 2 --out $R/ab/${name}_${v} "$@" > $R/ab/${name}_${v}.log 2>&1; }
  d huge4 --gpus 4 --sizes 2^32 --reps 3
  d pairs4 --gpus 4 --sizes 2^30 --values uint32 --reps 3
  el "ab $v"
done
timeout 200 $b/warpsort dist --gpus 4 --sizes 2^36 --device-generate --reps 2 --warmup 1 --out $R/ab/largest_new > $R/ab/largest_new.log 2>&1
el largest
export WARPSORT_TEST_MAX_N=70000
(CUDA_VISIBLE_DEVICES=3 timeout 280 compute-sanitizer --tool memcheck --error-exitcode 90 --report-api-errors no $b/test_distributed_gpu --gtest_filter='*EveryExchangePathGivesTheSameOutput*:DistributedKeys/0.GatheredMergeOnAnyRanks:DistributedKeys/3.GatheredMergeOnAnyRanks' > $R/san/memcheck.log 2>&1; echo "rc=$?" >> $R/san/memcheck.log;
 CUDA_VISIBLE_DEVICES=3 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 90 $b/test_distributed_gpu --gtest_filter='*EveryExchangePathGivesTheSameOutput*:DistributedKeys/0.GatheredMergeOnAnyRanks' > $R/san/racecheck.log 2>&1; echo "rc=$?" >> $R/san/racecheck.log) &
unset WARPSORT_TEST_MAX_N
(timeout 280 $b/test_distributed_gpu > $R/tests/test_distributed_gpu.log 2>&1; echo "rc=$?" >> $R/tests/test_distributed_gpu.log)
el test_distributed_gpu
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 150 $b/test_cli_process --gtest_filter='CliProcess.Dist*' > $R/tests/test_cli_process_dist.log 2>&1; echo "rc=$?" >> $R/tests/test_cli_process_dist.log)
wait
el all
for f in $R/tests/*.log $R/san/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -n 1) $(tail -n 1 $f)"; done

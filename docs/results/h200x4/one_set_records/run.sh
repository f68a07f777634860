#!/usr/bin/env bash
# Four H200s, 469f7c6 (one set's records without the set; one block up to 4096 keys): the tests
# that need three or four GPUs; then main at 53ab11a against it on the small totals (alternated
# twice) and on the 2^31 duplicates and entropy 0.201 (once each).
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/o $R/tests $R/ab
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/suite.tar.xz | tar -C /tmp/o -xf - bin/warpsort
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
(timeout 200 $b/test_distributed_gpu > $R/tests/test_distributed_gpu.log 2>&1; echo "rc=$?" >> $R/tests/test_distributed_gpu.log)
el test_distributed_gpu
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 100 $b/test_cli_process --gtest_filter='CliProcess.Dist*' > $R/tests/test_cli_process_dist.log 2>&1; echo "rc=$?" >> $R/tests/test_cli_process_dist.log)
el cli
for f in $R/tests/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $f | tr '\n' ' ') $(tail -n 1 $f)"; done
for round in 1 2; do
  for v in old new; do
    W=$([ $v = old ] && echo /tmp/o/bin/warpsort || echo $b/warpsort)
    timeout 60 $W dist --gpus 4 --sizes 2^22,2^24,2^26 --reps 10 --warmup 2 --out $R/ab/small4_${v}_$round > $R/ab/small4_${v}_$round.log 2>&1
    if [ $round = 1 ]; then timeout 90 $W dist --gpus 4 --sizes 2^31 --dists deterministic_duplicates,entropy_0.201 --reps 3 --warmup 2 --out $R/ab/dup4_${v} > $R/ab/dup4_${v}.log 2>&1; fi
    el "ab $round $v"
  done
done
grep -h "n=" $R/ab/*.log | sed -E 's/\| largest.*one GPU/| one GPU/' | cut -c1-250

#!/usr/bin/env bash
# combo (main + review-mends + pool-first count) against main: the fuzz looped on each GPU,
# then combo's whole test binary, the CLI's Dist tests, the NCCL fuzz, memcheck, small totals.
mkdir -p /tmp/w && xz -dc .devcarry/combo.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib:${LD_LIBRARY_PATH:-} NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
R=/tmp/res; rm -rf $R; mkdir -p $R /tmp/clitest; trap 'tar -C /tmp -czf $OUT/res.tgz res' EXIT
W=/tmp/w/bin/warpsort; T=/tmp/w/bin/test_distributed_gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpus.txt
END=$(( $(date +%s) + ${SECS:-170} ))
loop() { # name binary device
  local i=0 fails=0
  while [ $(date +%s) -lt $END ]; do i=$((i+1))
    CUDA_VISIBLE_DEVICES=$3 timeout 100 $2 --gtest_filter='DistributedFuzz.*:DistributedKeys*:DistributedPairs*' > $R/$1_$i.log 2>&1; rc=$?
    if [ $rc -ne 0 ]; then fails=$((fails+1)); echo "$1 run $i rc=$rc"; grep -m3 -h "illegal\|Failure" $R/$1_$i.log | cut -c1-300; else rm $R/$1_$i.log; fi
  done; echo "$1: $i runs, $fails failed"; }
loop combo $T 0 & loop main /tmp/w/bin/test_distributed_gpu_main 1 & wait
timeout 150 $T > $R/tests.log 2>&1; echo "tests rc=$?"; grep -hE "^\[  FAILED|PASSED|SKIPPED|dist fuzz" $R/tests.log | head
d() { n=$1; shift; timeout 100 $W dist --gpus 2 --out $R/$n "$@" > $R/$n.log 2>&1; echo "$n rc=$?"; }
d fuzz --fuzz --timeout 60; grep -h "dist fuzz" $R/fuzz.log
WARPSORT_CLI_BINARY=$W WARPSORT_CLI_TEST_DIR=/tmp/clitest timeout 120 /tmp/w/bin/test_cli_process --gtest_filter='*Dist*' > $R/cli.log 2>&1; echo "cli rc=$?"; grep -hE "FAILED|PASSED" $R/cli.log
timeout 120 compute-sanitizer --tool memcheck --report-api-errors no --target-processes all --error-exitcode 9 $W dist --gpus 2 --sizes 2^16,2^22 --exchange-parts 3 --reps 2 --warmup 0 --no-baseline --timeout 100 > $R/san_mem.log 2>&1; echo "memcheck rc=$?"; grep -h "ERROR SUMMARY" $R/san_mem.log
d small --sizes 2^23,2^24,2^25 --reps 30 --warmup 3
grep -h "^dist" $R/small.log | sed 's/ ([0-9.]* Gkeys\/s)//; s/dist [0-9] GPUs //; s/ rebalance 0.00.//; s/ | largest\/mean [0-9.]*//; s/ a GPU; NCCL all-to-all [0-9]*//; s/uint32 uniform //' | cut -c1-170

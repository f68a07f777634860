#!/usr/bin/env bash
# memcheck on the thread-transport cases that failed intermittently (main's binary)
mkdir -p /tmp/w && xz -dc .devcarry/combo.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib:${LD_LIBRARY_PATH:-} NCCL_NVLS_ENABLE=0
R=/tmp/res; rm -rf $R; mkdir -p $R; trap 'tar -C /tmp -czf $OUT/res.tgz res' EXIT
T=/tmp/w/bin/test_distributed_gpu_main
S="compute-sanitizer --tool memcheck --print-limit 20 --error-exitcode 9"
( export CUDA_VISIBLE_DEVICES=0
  timeout 200 $S $T --gtest_filter='DistributedKeys/2.*' > $R/keys2.log 2>&1; echo "keys2 rc=$?"
  timeout 200 $S $T --gtest_filter='DistributedPairs.*' > $R/pairs.log 2>&1; echo "pairs rc=$?" ) &
( export CUDA_VISIBLE_DEVICES=1
  timeout 400 $S $T --gtest_filter='DistributedFuzz.*' > $R/fuzz.log 2>&1; echo "fuzz rc=$?" ) &
wait
for f in $R/*.log; do echo "== $f"; grep -h "ERROR SUMMARY\|OK \]\|FAILED \]" $f; grep -m12 -h "^========= [A-Z]\|^=========     at\|by thread\|Address" $f | cut -c1-220; done

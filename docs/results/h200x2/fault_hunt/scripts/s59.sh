#!/usr/bin/env bash
# memcheck with padding after every allocation (an overflow into a neighbouring allocation)
mkdir -p /tmp/w && xz -dc .devcarry/combo.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib:${LD_LIBRARY_PATH:-} NCCL_NVLS_ENABLE=0
R=/tmp/res; rm -rf $R; mkdir -p $R; trap 'tar -C /tmp -czf $OUT/res.tgz res' EXIT
T=/tmp/w/bin/test_distributed_gpu_main
S="compute-sanitizer --tool memcheck --padding 65536 --print-limit 30 --error-exitcode 9"
( CUDA_VISIBLE_DEVICES=0 timeout 120 $S $T --gtest_filter='DistributedFuzz.*' > $R/fuzz.log 2>&1; echo "fuzz rc=$?" ) &
( CUDA_VISIBLE_DEVICES=1 timeout 120 $S $T --gtest_filter='DistributedKeys/2.*:DistributedPairs.*' > $R/keys.log 2>&1; echo "keys rc=$?" ) &
wait
for f in $R/*.log; do echo "== $f"; head -3 $f | cut -c1-200; grep -h "ERROR SUMMARY\|OK \]\|FAILED \]" $f; grep -m24 -h "^========= [A-Z]\|^=========     at\|Address\|by thread" $f | cut -c1-230; done

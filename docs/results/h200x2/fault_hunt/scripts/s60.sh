#!/usr/bin/env bash
# initcheck: uninitialized device memory read by the thread-transport cases that fail
mkdir -p /tmp/w && xz -dc .devcarry/combo.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib:${LD_LIBRARY_PATH:-} NCCL_NVLS_ENABLE=0
R=/tmp/res; rm -rf $R; mkdir -p $R; trap 'tar -C /tmp -czf $OUT/res.tgz res' EXIT
T=/tmp/w/bin/test_distributed_gpu_main
S="compute-sanitizer --tool initcheck --print-limit 40 --error-exitcode 9"
( CUDA_VISIBLE_DEVICES=0 timeout 125 $S $T --gtest_filter='DistributedKeys/2.*' > $R/keys.log 2>&1; echo "keys rc=$?" ) &
( CUDA_VISIBLE_DEVICES=1 timeout 125 $S $T --gtest_filter='DistributedFuzz.*' > $R/fuzz.log 2>&1; echo "fuzz rc=$?" ) &
wait
for f in $R/*.log; do echo "== $f"; grep -h "ERROR SUMMARY\|OK \]\|FAILED \]" $f; grep -m30 -h "^========= [A-Z]\|^=========     at\|Address\|by thread" $f | cut -c1-230; done

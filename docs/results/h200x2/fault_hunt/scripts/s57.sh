#!/usr/bin/env bash
# memcheck with stream-ordered race tracking on the thread-transport tests (main's binary);
# EAGER module loading loop on the other GPU
mkdir -p /tmp/w && xz -dc .devcarry/combo.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib:${LD_LIBRARY_PATH:-} NCCL_NVLS_ENABLE=0
R=/tmp/res; rm -rf $R; mkdir -p $R; trap 'tar -C /tmp -czf $OUT/res.tgz res' EXIT
T=/tmp/w/bin/test_distributed_gpu_main
S="compute-sanitizer --tool memcheck --track-stream-ordered-races all --print-limit 30 --error-exitcode 9"
( export CUDA_VISIBLE_DEVICES=0
  timeout 150 $S $T --gtest_filter='DistributedKeys/2.*:DistributedPairs.*' > $R/keys2.log 2>&1; echo "keys2+pairs rc=$?"
  timeout 150 $S $T --gtest_filter='DistributedFuzz.*' > $R/fuzz.log 2>&1; echo "fuzz rc=$?" ) &
( export CUDA_VISIBLE_DEVICES=1 CUDA_MODULE_LOADING=EAGER; END=$(( $(date +%s) + 200 )); i=0; f=0
  while [ $(date +%s) -lt $END ]; do i=$((i+1)); timeout 60 $T --gtest_filter='DistributedFuzz.*:DistributedKeys*:DistributedPairs*' > $R/eager_$i.log 2>&1 || { f=$((f+1)); grep -m2 -h "illegal" $R/eager_$i.log | cut -c1-200; }; done; echo "eager: $i runs, $f failed" ) &
wait
for f in $R/keys2.log $R/fuzz.log; do echo "== $f"; grep -h "ERROR SUMMARY\|OK \]\|FAILED \]" $f; grep -m20 -h "^========= [A-Z]\|^=========     at\|Address\|stream" $f | cut -c1-220; done

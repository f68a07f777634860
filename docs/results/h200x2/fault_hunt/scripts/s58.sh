#!/usr/bin/env bash
# A/B: lazy (default) against eager module loading, interleaved on both GPUs, main's binary
mkdir -p /tmp/w && xz -dc .devcarry/combo.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib:${LD_LIBRARY_PATH:-} NCCL_NVLS_ENABLE=0
R=/tmp/res; rm -rf $R; mkdir -p $R; trap 'tar -C /tmp -czf $OUT/res.tgz res' EXIT
T=/tmp/w/bin/test_distributed_gpu_main
END=$(( $(date +%s) + ${SECS:-220} ))
loop() { # device first-mode
  local i=0 m=$2
  while [ $(date +%s) -lt $END ]; do i=$((i+1))
    CUDA_VISIBLE_DEVICES=$1 CUDA_MODULE_LOADING=$m timeout 60 $T --gtest_filter='DistributedFuzz.*:DistributedKeys*:DistributedPairs*' > $R/g$1_${i}_$m.log 2>&1
    rc=$?; echo "$m $rc" >> $R/g$1.txt; [ $rc -eq 0 ] && rm $R/g$1_${i}_$m.log
    [ $m = LAZY ] && m=EAGER || m=LAZY
  done; }
loop 0 LAZY & loop 1 EAGER & wait
cat $R/g0.txt $R/g1.txt | sort | uniq -c

#!/usr/bin/env bash
# The new test with one to eight ranks (one GPU each process, the ranks as threads).
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/checks
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/early5.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0
b=/tmp/w/bin
nvidia-smi -L > $R/gpus.txt
timeout 300 $b/test_distributed_gpu --gtest_filter='DistributedKeys/*.CallsOnTheSameRanks*' > $R/checks/new_test.log 2>&1; echo "rc=$?" >> $R/checks/new_test.log
grep -E '^\[  (PASSED|FAILED) |ms total' $R/checks/new_test.log; tail -1 $R/checks/new_test.log

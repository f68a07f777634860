#!/usr/bin/env bash
# Four H200s: the committed tests (the distributed tests' runner shared by one call and by a
# sequence of calls): test_distributed_gpu with every GPU, and the new test on a build whose
# early sort ping-pongs through the caller's keys.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/checks
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/early4.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin
nvidia-smi -L > $R/gpus.txt
(timeout 300 $b/test_distributed_gpu > $R/checks/test_distributed_gpu.log 2>&1; echo "rc=$?" >> $R/checks/test_distributed_gpu.log) &
(CUDA_VISIBLE_DEVICES=3 timeout 300 $b/broken/test_distributed_gpu --gtest_filter='DistributedKeys/*.CallsOnTheSameRanks*' > $R/checks/broken.log 2>&1; echo "rc=$?" >> $R/checks/broken.log) &
wait
for f in $R/checks/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) |ERROR SUMMARY' $f | tr '\n' ' ') $(tail -n 1 $f)"; done
grep -h "keys changed" $R/checks/broken.log | sed 's/.*: \(P [0-9]\)/\1/' | sort | uniq -c | head -5

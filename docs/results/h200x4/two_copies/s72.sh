#!/usr/bin/env bash
# nvidia-h200-x4 (carry .devcarry/twocopy2 and this): branch two-copy-plan + the all-to-all skip.
rm -rf /tmp/g && mkdir -p /tmp/g && xz -dc .devcarry/twocopy2/gpu.tar.xz | tar -C /tmp/g -xf -
export LD_LIBRARY_PATH=/tmp/g/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,memory.total,memory.free --format=csv,noheader; nvidia-smi topo -m > $OUT/topo.txt
timeout 120 /tmp/g/bin/test_distributed_gpu_broken --gtest_filter='*TwoCopy*' > $OUT/broken.log 2>&1; echo "broken build (own pieces left in place), two-copy tests: rc $? (must be non-zero)"; grep -c 'Failure' $OUT/broken.log; grep -m3 -A3 'Failure' $OUT/broken.log | cut -c1-220
WARPSORT_LARGE_TESTS=1 timeout 240 /tmp/g/bin/test_distributed_gpu > $OUT/dist.log 2>&1; echo "test_distributed_gpu rc $?"; grep -E '^\[  (PASSED|FAILED|SKIPPED)|dist fuzz|TwoCopy.*ms\)' $OUT/dist.log
W=/tmp/g/bin/warpsort
timeout 150 $W dist --gpus 4 --sizes 2^36 --device-generate --reps 2 --warmup 1 --no-baseline --out $OUT/big36 > $OUT/big36.log 2>&1; echo "2^36 on 4 rc $?"; grep -v '^\[' $OUT/big36.log | tail -3 | cut -c1-400
for gi in 33 32 30; do n=$(( gi * (1 << 30) ))
  timeout 120 $W dist --gpus 2 --sizes $n --device-generate --reps 1 --warmup 0 --no-baseline --out $OUT/largest2_${gi}gi > $OUT/largest2_${gi}gi.log 2>&1
  rc=$?; echo "2 GPUs n=${gi} Gi rc=$rc"; grep -v '^\[' $OUT/largest2_${gi}gi.log | tail -2 | cut -c1-400
  [ $rc -eq 0 ] && break
done

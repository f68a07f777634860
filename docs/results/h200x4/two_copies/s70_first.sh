#!/usr/bin/env bash
# NEXT SESSION, nvidia-h200-x4 (branch two-copy-plan, 145bd4f = 594ba64 rebased; carry .devcarry/twocopy and this):
# (1) the branch's test_distributed_gpu whole (NCCL across the 4 GPUs) and its two-copy tests on
# the deliberately broken build (own pieces left in place: must fail); (2) memcheck of the
# two-copy test; (3) 2^31 default vs two copies; 2^36 generated on the GPUs (automatic: two copies)
rm -rf /tmp/g && mkdir -p /tmp/g /tmp/cf && xz -dc .devcarry/twocopy/gpu.tar.xz | tar -C /tmp/g -xf -
export LD_LIBRARY_PATH=/tmp/g/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L | head -4
WARPSORT_LARGE_TESTS=1 timeout 200 /tmp/g/bin/test_distributed_gpu > $OUT/dist.log 2>&1; echo "test_distributed_gpu rc $?"; grep -E '^\[  (PASSED|FAILED|SKIPPED)|dist fuzz' $OUT/dist.log
timeout 100 /tmp/g/bin/test_distributed_gpu_broken --gtest_filter='*TwoCopy*' > $OUT/broken.log 2>&1; echo "broken build, two-copy tests: rc $? (must be non-zero)"; grep -m3 -E 'Failure|two copies P' $OUT/broken.log | cut -c1-200
CUDA_VISIBLE_DEVICES=0 WARPSORT_TEST_MAX_N=70000 timeout 200 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 /tmp/g/bin/test_distributed_gpu --gtest_filter='DistributedKeys/0.TwoCopy*:Distributed.TwoCopy*' > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep 'ERROR SUMMARY' $OUT/memcheck.log
W=/tmp/g/bin/warpsort
timeout 120 $W dist --gpus 4 --sizes 2^31 --reps 3 --out $OUT/default31 > $OUT/default31.log 2>&1; echo "2^31 default rc $?"
timeout 120 $W dist --gpus 4 --sizes 2^31 --reps 3 --memory-plan two_copies --no-baseline --out $OUT/two31 > $OUT/two31.log 2>&1; echo "2^31 two copies rc $?"
timeout 200 $W dist --gpus 4 --sizes 2^36 --device-generate --reps 2 --warmup 1 --no-baseline --out $OUT/big36 > $OUT/big36.log 2>&1; echo "2^36 rc $?"
for f in default31 two31 big36; do grep -v '^\[' $OUT/$f.log | tail -3 | cut -c1-300; done

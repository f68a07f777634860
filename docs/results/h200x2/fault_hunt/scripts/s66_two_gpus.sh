#!/usr/bin/env bash
# two GPUs: test_distributed_gpu whole (its NCCL test across GPUs included) on the fixed build,
# and the new graph test on the deliberately broken build
rm -rf /tmp/g && mkdir -p /tmp/g && xz -dc .devcarry/gpuA2/gpu.tar.xz | tar -C /tmp/g -xf -
export LD_LIBRARY_PATH=/tmp/g/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
timeout 60 /tmp/g/bin/test_graph_gpu_broken --gtest_filter='*LibraryMergeSorts*' > $OUT/graph_broken.log 2>&1
echo "graph test, broken build: rc $?"; grep -E 'Failure|Which is|actual|^\[  (PASSED|FAILED)' $OUT/graph_broken.log | head -12
WARPSORT_LARGE_TESTS=1 timeout 240 /tmp/g/bin/test_distributed_gpu > $OUT/dist.log 2>&1
echo "test_distributed_gpu rc $?"; grep -E '^\[  (PASSED|FAILED|SKIPPED)|dist fuzz|Failure' $OUT/dist.log | head

#!/usr/bin/env bash
# four H200s: the CLI's distributed tests (3 and 4 GPUs among them) on the fixed build; the small
# totals on four GPUs and the exchange on three ranks against NCCL's all-to-all (issue 34)
rm -rf /tmp/g && mkdir -p /tmp/g /tmp/cf && xz -dc .devcarry/gpuA2/gpu.tar.xz | tar -C /tmp/g -xf -
export LD_LIBRARY_PATH=/tmp/g/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L | head -4; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
WARPSORT_CLI_BINARY=/tmp/g/bin/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 200 /tmp/g/bin/test_cli_process --gtest_filter='*Dist*' > $OUT/cli_dist.log 2>&1
echo "test_cli_process *Dist* rc $?"; grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/cli_dist.log
W=/tmp/g/bin/warpsort
timeout 120 $W dist --gpus 4 --sizes 2^22,2^24,2^26,2^28 --reps 10 --warmup 2 --out $OUT/four_small > $OUT/four_small.log 2>&1; echo "four small rc $?"
timeout 150 $W dist --gpus 3 --sizes 2^28,2^30,2^31 --reps 5 --out $OUT/three > $OUT/three.log 2>&1; echo "three rc $?"
for f in four_small three; do grep -v '^\[' $OUT/$f.log | tail -12 | cut -c1-230; done

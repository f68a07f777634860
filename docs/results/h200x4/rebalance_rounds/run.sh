#!/usr/bin/env bash
# nvidia-h200-x4 (carry .devcarry/rebal = branch rebalance-rounds aeaa315, and this): rebalancing in rounds.
rm -rf /tmp/g && mkdir -p /tmp/g && xz -dc .devcarry/rebal/gpu.tar.xz | tar -C /tmp/g -xf -
export LD_LIBRARY_PATH=/tmp/g/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
timeout 120 /tmp/g/bin/test_distributed_gpu_broken --gtest_filter='Distributed.RebalanceInRounds*:Distributed.EveryExchangePath*' > $R/broken.log 2>&1; echo "broken build (merges over the sequences in every round): rc $? (must be non-zero)"; grep -c 'Failure' $R/broken.log; grep -E '^\[  FAILED  \]' $R/broken.log | head -4
WARPSORT_LARGE_TESTS=1 timeout 240 /tmp/g/bin/test_distributed_gpu > $R/test_distributed_gpu.log 2>&1; echo "test_distributed_gpu rc $?"; grep -E '^\[  (PASSED|FAILED|SKIPPED)|dist fuzz|Rebalance.*ms\)|EveryExchange.*ms\)' $R/test_distributed_gpu.log
W=/tmp/g/bin/warpsort
timeout 150 $W dist --gpus 4 --type float32 --descending --rebalance --sizes 2^32 --reps 5 --out $R/float32_rebalanced > $R/float32_rebalanced.log 2>&1; echo "float32 rebalanced rc $?"
timeout 100 $W dist --gpus 4 --rebalance --sizes 2^31 --reps 5 --out $R/uint32_rebalanced > $R/uint32_rebalanced.log 2>&1; echo "uint32 rebalanced rc $?"
grep -h '^dist' $R/*_rebalanced.log | cut -c1-400
tar -C $OUT -cJf $OUT/r.tar.xz r && rm -rf $R

#!/usr/bin/env bash
# two H200s: scripts/dist_runs.sh's curve stage on the build with the merge-sort fix
rm -rf /tmp/w && mkdir -p /tmp/w && xz -dc .devcarry/wonly/w.tar.xz | tar -C /tmp/w -xf -
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L > $OUT/gpus.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
timeout 230 scripts/dist_runs.sh /tmp/w $OUT/final 2 curve > $OUT/runs.log 2>&1; echo "dist_runs rc $?"
grep -E '^dist ' $OUT/runs.log | cut -c1-200

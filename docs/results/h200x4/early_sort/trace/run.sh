#!/usr/bin/env bash
# Four H200s: host and GPU trace of the gathered path's phases (diagnostic build).
set -u
R=$OUT/res; mkdir -p /tmp/w $R
xz -dc .devcarry/diag.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin
nvidia-smi -L > $R/gpus.txt
WARPSORT_HOST_TRACE=1 timeout 120 $b/warpsort dist --gpus 4 --sizes 2^22,2^24,2^26 --reps 10 --warmup 2 --out $R/g4 > $R/g4.log 2> $R/g4.err
echo rc=$?
timeout 60 $b/warpsort dist --gpus 4 --sizes 2^22,2^24,2^26 --reps 10 --warmup 2 --out $R/g4_notrace > $R/g4_notrace.log 2>&1
echo rc=$?
grep -c trace $R/g4.err

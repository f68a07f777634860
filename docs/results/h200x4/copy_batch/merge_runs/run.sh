#!/usr/bin/env bash
# Four H200s, main with the batched copies: the runs a receiver merges, 64 (default) against 32.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/runs
xz -dc .devcarry/suite.tar.xz | tar -C /tmp/w -xf - bin/warpsort lib
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
timeout 60 $b/warpsort dist --gpus 4 --sizes 2^30,2^31 --reps 5 --warmup 2 --out $R/runs/m64 > $R/runs/m64.log 2>&1; el m64
timeout 60 $b/warpsort dist --gpus 4 --sizes 2^30,2^31 --merge-runs 32 --reps 5 --warmup 2 --out $R/runs/m32 > $R/runs/m32.log 2>&1; el m32
timeout 45 $b/warpsort dist --gpus 4 --sizes 2^31 --dists deterministic_duplicates --merge-runs 32 --reps 3 --warmup 2 --out $R/runs/dup_m32 > $R/runs/dup_m32.log 2>&1; el dup_m32
timeout 45 $b/warpsort dist --gpus 4 --sizes 2^31 --dists deterministic_duplicates --reps 3 --warmup 2 --out $R/runs/dup_m64 > $R/runs/dup_m64.log 2>&1; el dup_m64

#!/usr/bin/env bash
# Four, three and two H200s: main (47e5f64: a part's copies queued one by one) against the build
# that queues them as one batch (cudaMemcpyBatchAsync), alternated twice.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/o $R/ab
xz -dc .devcarry/new2.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/old47.xz > /tmp/o/warpsort && chmod +x /tmp/o/warpsort
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
for round in 1 2; do
  for v in old new; do
    W=$([ $v = old ] && echo /tmp/o/warpsort || echo $b/warpsort)
    d() { name=$1; shift; timeout 90 $W dist --warmup 2 --out $R/ab/${name}_${v}_$round "$@" > $R/ab/${name}_${v}_$round.log 2>&1; }
    d small4 --gpus 4 --sizes 2^22,2^24,2^26 --reps 10
    d large4 --gpus 4 --sizes 2^28,2^30,2^31 --reps 5
    d dup4 --gpus 4 --sizes 2^31 --dists deterministic_duplicates,entropy_0.201 --reps 3
    d g3 --gpus 3 --sizes 2^28,2^30 --reps 5
    d g2 --gpus 2 --sizes 2^28,2^30 --reps 5
    el "ab $round $v"
  done
done
el all

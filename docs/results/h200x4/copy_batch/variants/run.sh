#!/usr/bin/env bash
# Four GPUs: the keys' copies issued one at a time (serial), as one batch (cudaMemcpyBatchAsync,
# with and without the overlap hint) and on one stream a peer (lanes, gathered path only),
# alternated twice; small totals (gathered) and the exchange path.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/ab
xz -dc .devcarry/exp.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin
nvidia-smi -L > $R/gpus.txt; nvidia-smi topo -m >> $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
for round in 1 2; do
  for m in serial batch batch_overlap lanes; do
    WARPSORT_EXP_COPIES=$m timeout 60 $b/warpsort dist --gpus 4 --sizes 2^22,2^23,2^24,2^25 --reps 10 --warmup 2 --out $R/ab/small_${m}_$round > $R/ab/small_${m}_$round.log 2>&1
    el "small $round $m"
  done
  for m in serial batch batch_overlap; do
    WARPSORT_EXP_COPIES=$m timeout 80 $b/warpsort dist --gpus 4 --sizes 2^26,2^28,2^30,2^31 --gather never --exchange copy_engines --reps 5 --warmup 2 --out $R/ab/large_${m}_$round > $R/ab/large_${m}_$round.log 2>&1
    el "large $round $m"
  done
done
el all

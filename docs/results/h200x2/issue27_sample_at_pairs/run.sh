#!/usr/bin/env bash
# Step 3's one-set sample sort four ways, GPU time (queued) and alone; uint32+uint32 pairs,
# 890c90f (before sample_at) against 7378839, alternated twice.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/o $R/micro $R/pairs
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
xz -dc .devcarry/suite.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/old890.xz > /tmp/o/warpsort && chmod +x /tmp/o/warpsort
export LD_LIBRARY_PATH=/tmp/w/lib CUDA_VISIBLE_DEVICES=0
b=/tmp/w/bin
nvidia-smi -L > $R/gpu.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpu.txt
for i in 1 2; do .devcarry/record_sort 1024 2048 2300 4096 9362 16384 37449 65536 149796 262144 1048576 > $R/micro/run$i.csv 2>&1; done
el micro
for round in 1 2; do
  for v in old new; do
    W=$([ $v = old ] && echo /tmp/o/warpsort || echo $b/warpsort)
    $W bench --sizes 2^20,2^24,2^28 --dists uniform --types uint32 --values uint32 --algos warpsort,cub_merge_stable_pairs --reps 7 --warmup 2 --no-e2e --quiet --out $R/pairs/${v}_$round > $R/pairs/${v}_$round.log 2>&1
  done
  el "pairs $round"
done

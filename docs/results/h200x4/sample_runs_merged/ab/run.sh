#!/usr/bin/env bash
# Four H200s: cb4ff06 (old) against the build with the runs' samples merged (new), the
# default path, alternated: small and middle totals on 4 GPUs twice, on 3 and 2 once; the
# 2^31 distributions short of 3.2x and uniform once.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/o $R/ab
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf - bin/warpsort lib
xz -dc .devcarry/base_cli.tar.xz | tar -C /tmp/o -xf -
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
for round in 1 2; do
  for v in old new; do
    d=$([ $v = old ] && echo /tmp/o || echo /tmp/w)
    W="env LD_LIBRARY_PATH=$d/lib $d/bin/warpsort"
    timeout 70 $W dist --gpus 4 --sizes 2^22,2^23,2^24,2^25,2^26,2^27,2^28 --reps 10 --warmup 2 --out $R/ab/g4_${v}_$round > $R/ab/g4_${v}_$round.log 2>&1
    if [ $round = 1 ]; then
      timeout 60 $W dist --gpus 3 --sizes 2^22,2^24,2^26,2^28 --reps 10 --warmup 2 --out $R/ab/g3_${v} > $R/ab/g3_${v}.log 2>&1
      timeout 60 $W dist --gpus 2 --sizes 2^22,2^24,2^26,2^28 --reps 10 --warmup 2 --out $R/ab/g2_${v} > $R/ab/g2_${v}.log 2>&1
    else
      timeout 120 $W dist --gpus 4 --sizes 2^31 --dists uniform,deterministic_duplicates,entropy_0.201 --reps 3 --warmup 1 --out $R/ab/big4_${v} > $R/ab/big4_${v}.log 2>&1
    fi
    el "ab $round $v"
  done
done
grep -h "n=" $R/ab/*.log | sed -E 's/\| largest.*one GPU/| one GPU/' | cut -c1-250

#!/usr/bin/env bash
# Four H200s: the gathered path's keys by copy engines (auto) or by one kernel (sm_copies), alternated.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/all.tar.xz | tar -C /tmp/w -xf - bin/warpsort lib
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin
nvidia-smi -L > $R/gpus.txt
for round in 1 2; do
  for ex in auto sm_copies; do
    timeout 150 $b/warpsort dist --gpus 4 --sizes 2^22,2^23,2^24,2^25 --gather always --exchange $ex --reps 10 --warmup 2 --out $R/${ex}_$round > $R/${ex}_$round.log 2>&1
    echo "== $ex $round rc=$?"; grep '^dist' $R/${ex}_$round.log | sed -E 's/\| local.*\| one GPU/| one GPU/'
  done
done
for ex in auto sm_copies; do
  timeout 150 $b/warpsort dist --gpus 4 --sizes 2^26 --gather always --exchange $ex --reps 10 --warmup 2 --out $R/${ex}_26 > $R/${ex}_26.log 2>&1
  echo "== $ex 2^26 rc=$?"; grep '^dist' $R/${ex}_26.log
done

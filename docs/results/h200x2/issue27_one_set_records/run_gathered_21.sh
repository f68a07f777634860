#!/usr/bin/env bash
# test_pairs_gpu alone (it ran out of memory beside the other binaries and the sanitizers);
# the gathered path's small totals, main against the build, alternated three times, 21 reps.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/o $R/dist $R/tests
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/suite.tar.xz | tar -C /tmp/o -xf - bin/warpsort
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
WARPSORT_LARGE_TESTS=1 timeout 300 $b/test_pairs_gpu > $R/tests/test_pairs_gpu.log 2>&1; echo "rc=$?" >> $R/tests/test_pairs_gpu.log
el pairs; grep -E '^\[  (PASSED|FAILED) ' $R/tests/test_pairs_gpu.log; tail -1 $R/tests/test_pairs_gpu.log
for round in 1 2 3; do
  for v in old new; do
    W=$([ $v = old ] && echo /tmp/o/bin/warpsort || echo $b/warpsort)
    timeout 60 $W dist --gpus 2 --sizes 2^20,2^22,2^24 --gather always --reps 21 --warmup 3 --out $R/dist/${v}_always_$round > $R/dist/${v}_always_$round.log 2>&1
  done
  el "dist $round"
done
for v in old new; do for r in 1 2 3; do echo "$v$r $(grep -h 'n=' $R/dist/${v}_always_$r.log | sed -E 's/.*n=([0-9]+): ([0-9.]+) ms.*local ([0-9.]+).*exchange ([0-9.]+).*merge ([0-9.]+).*/\1 \2 l\3 x\4 m\5/' | tr '\n' ' ')"; done; done

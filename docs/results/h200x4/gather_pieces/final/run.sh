#!/usr/bin/env bash
# Four H200s: checks (suite, memcheck, racecheck, a deliberate break) in parallel on separate GPUs,
# then main (old) against the new default and the gathered path by pieces on 4, 3 and 2 GPUs.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/checks $R/ab
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/pieces.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin; o=/tmp/w/old; CS=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
F='DistributedKeys/0.GatheredMergeOnAnyRanks'
(CUDA_VISIBLE_DEVICES=0 timeout 200 $b/test_distributed_gpu > $R/checks/suite.log 2>&1; echo "rc=$?" >> $R/checks/suite.log) &
(CUDA_VISIBLE_DEVICES=1 WARPSORT_TEST_MAX_N=65536 timeout 200 $CS --tool memcheck --error-exitcode 9 $b/test_distributed_gpu --gtest_filter=$F > $R/checks/memcheck.log 2>&1; echo "rc=$?" >> $R/checks/memcheck.log) &
(CUDA_VISIBLE_DEVICES=2 WARPSORT_TEST_MAX_N=65536 timeout 200 $CS --tool racecheck --error-exitcode 9 $b/test_distributed_gpu --gtest_filter=$F > $R/checks/racecheck.log 2>&1; echo "rc=$?" >> $R/checks/racecheck.log) &
(CUDA_VISIBLE_DEVICES=3 timeout 120 $b/test_distributed_gpu_broken --gtest_filter='DistributedKeys/*.GatheredMergeOnAnyRanks' > $R/checks/broken.log 2>&1; echo "rc=$?" >> $R/checks/broken.log) &
wait; el checks; fin
for f in $R/checks/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) |ERROR SUMMARY|RACECHECK SUMMARY' $f | tr '\n' ' ') $(tail -n 1 $f)"; done
grep -m3 -B2 -A6 "Failure" $R/checks/broken.log | head -30
S=2^22,2^23,2^24,2^25,2^26,2^27,2^28
run() { local name=$1; shift; timeout 60 "$@" --sizes $S --reps 10 --warmup 2 --out $R/ab/$name > $R/ab/$name.log 2>&1; el $name; }
for g in 4 3 2; do
  run g${g}_old $o/warpsort dist --gpus $g
  run g${g}_auto $b/warpsort dist --gpus $g
  run g${g}_p2 $b/warpsort dist --gpus $g --gather always --gather-pieces 2
  run g${g}_p1 $b/warpsort dist --gpus $g --gather always --gather-pieces 1
  run g${g}_never $b/warpsort dist --gpus $g --gather never
  fin
done
run g4_auto_b $b/warpsort dist --gpus 4
run g4_old_b $o/warpsort dist --gpus 4
python3 - <<'PY'
import json,glob,os
for f in sorted(glob.glob('/tmp/res/ab/*/dist.json')):
  d=json.load(open(f))
  for r in d['results']:
    print(f.split('/')[-2], r['n'].bit_length()-1, round(r['ms'],3), '%.2fx' % (r.get('speedup_vs_single_gpu') or 0), 'l', round(r['local_sort_ms'],3), 'x', round(r['exchange_ms'],3), 'm', round(r['merge_ms'],3), 'g', int(r['gathered']), r.get('gather_pieces'), r['validated'])
PY

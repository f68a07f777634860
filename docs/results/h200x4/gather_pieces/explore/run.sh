#!/usr/bin/env bash
# Four H200s: the gathered path's local sort in ranges, each range sent while the next sorts.
# Tests first, then main (old) against the new build by pieces, alternated.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/tests $R/ab
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/pieces.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin; o=/tmp/w/old
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
(timeout 200 $b/test_distributed_gpu > $R/tests/test_distributed_gpu.log 2>&1; echo "rc=$?" >> $R/tests/test_distributed_gpu.log) &
TP=$!
S=2^22,2^23,2^24,2^25,2^26,2^27,2^28
run() { local name=$1; shift; timeout 60 "$@" --sizes $S --reps 10 --warmup 2 --out $R/ab/$name > $R/ab/$name.log 2>&1; el $name; }
wait $TP; el tests; fin
grep -E "^\[  (PASSED|FAILED|SKIPPED) " $R/tests/*.log; tail -n1 $R/tests/*.log
grep -E "^\[  FAILED|Failure" -A3 $R/tests/*.log | head -30
run old_auto_1 $o/warpsort dist --gpus 4
for k in 1 2 4 8; do run g4_p${k}_1 $b/warpsort dist --gpus 4 --gather always --gather-pieces $k; done
run g4_never_1 $b/warpsort dist --gpus 4 --gather never
fin
run old_auto_2 $o/warpsort dist --gpus 4
for k in 1 4; do run g4_p${k}_2 $b/warpsort dist --gpus 4 --gather always --gather-pieces $k; done
fin
for g in 2 3; do for k in 1 4; do run g${g}_p${k} $b/warpsort dist --gpus $g --gather always --gather-pieces $k; done; done
timeout 60 $b/warpsort dist --gpus 4 --gather always --gather-pieces 4 --dists all --sizes 2^26 --reps 5 --warmup 1 --out $R/ab/g4_dists_p4 > $R/ab/g4_dists_p4.log 2>&1; el dists
python3 - <<'PY'
import json,glob,os
for f in sorted(glob.glob('/tmp/res/ab/*/dist.json')):
  d=json.load(open(f))
  for r in d['results']:
    print(f.split('/')[-2], r['gpus'], r['distribution'], 'n=2^%d' % (r['n'].bit_length()-1), round(r['ms'],3), '%.2fx' % (r.get('speedup_vs_single_gpu') or 0), 'local', round(r['local_sort_ms'],3), 'exch', round(r['exchange_ms'],3), 'merge', round(r['merge_ms'],3), 'g', r['gathered'], r.get('gather_pieces'), r['validated'])
PY

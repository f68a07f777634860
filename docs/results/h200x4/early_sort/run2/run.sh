#!/usr/bin/env bash
# Four H200s: the committed build of the early local sort. The new test with the good and the
# deliberately broken build, memcheck of it, then main against the build on 4, 3 and 2 GPUs.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/o $R/checks $R/ab
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/early2.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/cli.tar.xz | tar -C /tmp/o -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin; o=/tmp/o/bin; CS=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
F='DistributedKeys/*.CallsOnTheSameRanks*'
(CUDA_VISIBLE_DEVICES=0 timeout 300 $b/test_distributed_gpu --gtest_filter="$F:DistributedKeys/*.GatheredMergeOnAnyRanks" > $R/checks/new_test.log 2>&1; echo "rc=$?" >> $R/checks/new_test.log) &
(CUDA_VISIBLE_DEVICES=1 timeout 300 $b/broken/test_distributed_gpu --gtest_filter="$F" > $R/checks/broken.log 2>&1; echo "rc=$?" >> $R/checks/broken.log) &
(CUDA_VISIBLE_DEVICES=2 timeout 400 $CS --tool memcheck --error-exitcode 9 $b/test_distributed_gpu --gtest_filter='DistributedKeys/0.CallsOnTheSameRanks*' > $R/checks/memcheck_u32.log 2>&1; echo "rc=$?" >> $R/checks/memcheck_u32.log) &
(CUDA_VISIBLE_DEVICES=3 timeout 400 $CS --tool memcheck --error-exitcode 9 $b/test_distributed_gpu --gtest_filter='DistributedKeys/5.CallsOnTheSameRanks*' > $R/checks/memcheck_f64.log 2>&1; echo "rc=$?" >> $R/checks/memcheck_f64.log) &
wait; el checks; fin
for f in $R/checks/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) |ERROR SUMMARY' $f | tr '\n' ' ') $(tail -n 1 $f)"; done
grep -h "keys changed\|Failure" $R/checks/broken.log | sort | uniq -c | head -8
S=2^22,2^23,2^24,2^25,2^26
run() { local name=$1; shift; timeout 60 "$@" --reps 10 --warmup 2 --out $R/ab/$name > $R/ab/$name.log 2>&1; el "$name rc=$?"; }
for k in 1 2; do
  run g4_old_$k $o/warpsort dist --gpus 4 --sizes $S
  run g4_new_$k $b/warpsort dist --gpus 4 --sizes $S
done
fin
for g in 3 2; do
  run g${g}_old $o/warpsort dist --gpus $g --sizes $S
  run g${g}_new $b/warpsort dist --gpus $g --sizes $S
done
for t in float32 float64; do
  run g4_${t}_old $o/warpsort dist --gpus 4 --type $t --sizes 2^22,2^24,2^26
  run g4_${t}_new $b/warpsort dist --gpus 4 --type $t --sizes 2^22,2^24,2^26
done
run g4_never_new $b/warpsort dist --gpus 4 --gather never --sizes 2^24,2^28
python3 - <<'PY'
import csv,glob,os
for f in sorted(glob.glob('/tmp/res/ab/*/dist.csv')):
    for r in csv.DictReader(open(f)):
        print(os.path.basename(os.path.dirname(f)), r['n'], '%.3f'%float(r['ms']), 'x%.2f'%float(r['speedup_vs_single_gpu']), 'loc %.3f exch %.3f merge %.3f'%(float(r['local_sort_ms']),float(r['exchange_ms']),float(r['merge_ms'])), r.get('sorted_early_runs','-'), r['gathered'], r['validated'])
PY

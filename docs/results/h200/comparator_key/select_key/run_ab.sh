#!/usr/bin/env bash
# Two H200s, call B: GPU 0 the key128 bench, the old build and the select_key build alternated
# twice; GPU 1 memcheck and racecheck of the comparator kernels (custom keys and pair items).
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
[ -x /tmp/w/bin/warpsort ] || xz -dc .devcarry/all.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/old.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
S=$R/san; mkdir -p $S
[ -n "${SKIP_SAN:-}" ] || (export CUDA_VISIBLE_DEVICES=1 WARPSORT_TEST_MAX_N=70000
 W=/tmp/w/bin/warpsort
 for v in none uint32 uint64; do
  compute-sanitizer --tool memcheck --error-exitcode 90 $W bench --types key128 --values $v --sizes 1000,4097,2^17+3 --dists uniform,zero --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out /tmp/s_$v > $S/memcheck_$v.log 2>&1
  compute-sanitizer --tool racecheck --error-exitcode 91 $W bench --types key128 --values $v --sizes 1000,4097,2^17+3 --dists uniform --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out /tmp/r_$v > $S/racecheck_$v.log 2>&1
 done
 compute-sanitizer --tool racecheck --error-exitcode 91 /tmp/w/bin/test_steps_custom_gpu > $S/racecheck_steps_custom.log 2>&1
 compute-sanitizer --tool memcheck --error-exitcode 90 /tmp/w/bin/test_steps_custom_gpu > $S/memcheck_steps_custom.log 2>&1
 compute-sanitizer --tool memcheck --error-exitcode 90 /tmp/w/bin/test_custom_key_gpu > $S/memcheck_custom_key.log 2>&1
 compute-sanitizer --tool racecheck --error-exitcode 91 /tmp/w/bin/test_custom_key_gpu > $S/racecheck_custom_key.log 2>&1
 compute-sanitizer --tool memcheck --error-exitcode 90 /tmp/w/bin/test_key128_gpu > $S/memcheck_key128.log 2>&1
 echo done > $S/done) &
B=$R/ab; mkdir -p $B
export CUDA_VISIBLE_DEVICES=0
for round in 1 2; do for b in old new; do
  W=/tmp/w/bin/warpsort; [ $b = old ] && W=/tmp/w/ab/warpsort_old
  timeout 60 $W bench --types key128 --sizes 2^24,2^26 --dists uniform,sorted --algos warpsort,cub_merge --reps 11 --warmup 2 --no-e2e --quiet --out $B/${b}_$round/keys > /dev/null 2>&1
  for v in uint32 uint64; do
  timeout 60 $W bench --types key128 --values $v --sizes 2^24,2^26 --dists uniform --algos warpsort,cub_merge_stable_pairs --reps 11 --warmup 2 --no-e2e --quiet --out $B/${b}_$round/pairs_$v > /dev/null 2>&1
  done; el ab_${b}_$round
done; done
wait; el san
tail -n 1 $S/*.log
python3 - <<'PY'
import csv,glob
for f in sorted(glob.glob('/tmp/res/ab/*/*/bench.csv')):
  for r in csv.DictReader(open(f)):
    print(f.split('/')[-3],f.split('/')[-2],r['algorithm'],r['value_type'] if 'value_type' in r else '',r['distribution'],r['n'],r['median_ms'][:8],r['ratio_vs_cub_merge'][:5],r['step1_ms'][:6],r['step2_ms'][:6],r['step3_ms'][:6],r['step4_ms'][:6],r['validated'])
PY

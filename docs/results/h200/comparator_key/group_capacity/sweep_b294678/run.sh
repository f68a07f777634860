#!/usr/bin/env bash
# One H200: the gathered (key, index) item with its padding as a zero word. Tests and
# sanitizers of this build, then key128 + uint64 pairs: 528d602's build (prev), the padded
# gathered item (pad) and this one (new), alternated twice.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/gather.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/prev.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/pad.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
W=/tmp/w/bin/warpsort
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
T=$R/tests; mkdir -p $T/cp
for t in test_key128_gpu test_custom_key_gpu test_pairs_gpu test_steps_custom_gpu; do
  timeout 200 /tmp/w/bin/$t > $T/$t.log 2>&1; echo "rc $?" >> $T/$t.log
done; el tests
WARPSORT_CLI_BINARY=$W WARPSORT_CLI_TEST_DIR=$T/cp timeout 150 /tmp/w/bin/test_cli_process --gtest_filter='*Bench*:*Comparator*' > $T/test_cli_process.log 2>&1; echo "rc $?" >> $T/test_cli_process.log; el cli
S=$R/san; mkdir -p $S
compute-sanitizer --tool memcheck --error-exitcode 90 /tmp/w/bin/test_custom_key_gpu > $S/memcheck_custom_key.log 2>&1 &
compute-sanitizer --tool memcheck --error-exitcode 90 /tmp/w/bin/test_key128_gpu --gtest_filter='*Pairs*' > $S/memcheck_key128_pairs.log 2>&1 &
compute-sanitizer --tool racecheck --error-exitcode 91 /tmp/w/bin/test_custom_key_gpu --gtest_filter='*Pairs*' > $S/racecheck_custom_key_pairs.log 2>&1 &
for v in uint32 uint64; do
  compute-sanitizer --tool memcheck --error-exitcode 90 $W bench --types key128 --values $v --sizes 1000,4097,2^17+3 --dists uniform,zero --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out /tmp/s_$v > $S/memcheck_bench_$v.log 2>&1 &
  compute-sanitizer --tool racecheck --error-exitcode 91 $W bench --types key128 --values $v --sizes 1000,4097,2^17+3 --dists uniform --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out /tmp/r_$v > $S/racecheck_bench_$v.log 2>&1 &
done
wait; el san
B=$R/ab; mkdir -p $B
for round in 1 2; do for b in prev pad new; do
  X=$W; [ $b = prev ] && X=/tmp/w/ab/warpsort_prev; [ $b = pad ] && X=/tmp/w/ab/warpsort_pad
  timeout 90 $X bench --types key128 --values uint64 --sizes 2^20,2^24,2^26 --dists uniform,sorted --algos warpsort,cub_merge_stable_pairs --reps 11 --warmup 2 --no-e2e --quiet --out $B/${b}_$round/pairs_uint64 > /dev/null 2>&1
  el ab_${b}_$round
done; done
P=$R/policy; mkdir -p $P
for c in 2048 2560 3072 3456 4096; do
  WARPSORT_POLICY="group_capacity=$c" timeout 60 $W bench --types key128 --sizes 2^24,2^26 --dists uniform --algos warpsort,cub_merge --reps 7 --warmup 1 --no-e2e --quiet --out $P/keys_$c > /dev/null 2>&1
  WARPSORT_POLICY="group_capacity=$c" timeout 60 $W bench --types key128 --values uint32 --sizes 2^24,2^26 --dists uniform --algos warpsort --reps 7 --warmup 1 --no-e2e --quiet --out $P/pairs_uint32_$c > /dev/null 2>&1
  el policy_$c
done
for f in $T/*.log; do echo "$(basename $f) $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(tail -n1 $f)"; done
tail -qn 1 $S/*.log
python3 - <<'PY'
import csv,glob
for f in sorted(glob.glob('/tmp/res/ab/*/*/bench.csv'))+sorted(glob.glob('/tmp/res/policy/*/bench.csv')):
  for r in csv.DictReader(open(f)):
    print(f.split('/')[-3][:6],f.split('/')[-2],r['algorithm'],r['distribution'],r['n'],r['median_ms'][:8],r['step1_ms'][:6],r['step2_ms'][:6],r['step3_ms'][:6],r['step4_ms'][:6],r['validated'])
PY

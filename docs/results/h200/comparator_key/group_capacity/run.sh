#!/usr/bin/env bash
# One H200: step 4's group from group_capacity_for (16-byte keys 3472, not 4096). The GPU
# suite and the sanitizers of the comparator sorts, then key128 keys and pairs: b294678's build
# (prev) and this one (new) alternated twice, and pair items' groups at 3472 items.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/all.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/prev2.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
W=/tmp/w/bin/warpsort
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
G=$R/suite; mkdir -p $G/cp
for t in /tmp/w/bin/test_*_gpu /tmp/w/bin/test_gpu_*; do
  n=$(basename $t); [ $n = test_pipeline_gpu ] && continue
  (WARPSORT_LARGE_TESTS=1 timeout 300 $t > $G/$n.log 2>&1; echo "rc $?" >> $G/$n.log) &
done
(WARPSORT_CLI_BINARY=$W WARPSORT_CLI_TEST_DIR=$G/cp timeout 300 /tmp/w/bin/test_cli_process --gtest_filter='-*WithoutAGpu*' > $G/test_cli_process.log 2>&1; echo "rc $?" >> $G/test_cli_process.log) &
wait; el suite
timeout 80 /tmp/w/bin/test_pipeline_gpu > $G/test_pipeline_gpu.log 2>&1; echo "rc $?" >> $G/test_pipeline_gpu.log; el pipeline
S=$R/san; mkdir -p $S
compute-sanitizer --tool memcheck --error-exitcode 90 /tmp/w/bin/test_custom_key_gpu > $S/memcheck_custom_key.log 2>&1 &
compute-sanitizer --tool racecheck --error-exitcode 91 /tmp/w/bin/test_custom_key_gpu > $S/racecheck_custom_key.log 2>&1 &
for v in none uint32 uint64; do
  compute-sanitizer --tool memcheck --error-exitcode 90 $W bench --types key128 --values $v --sizes 1000,4097,2^17+3,2^20+5 --dists uniform,zero --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out /tmp/s_$v > $S/memcheck_bench_$v.log 2>&1 &
  compute-sanitizer --tool racecheck --error-exitcode 91 $W bench --types key128 --values $v --sizes 4097,2^17+3,2^20+5 --dists uniform --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out /tmp/r_$v > $S/racecheck_bench_$v.log 2>&1 &
done
wait; el san
B=$R/ab; mkdir -p $B
for round in 1 2; do for b in prev new; do
  X=$W; [ $b = prev ] && X=/tmp/w/ab/warpsort_prev
  timeout 90 $X bench --types key128 --sizes 2^20,2^24,2^26 --dists uniform,sorted,zero,entropy_0.201 --algos warpsort,cub_merge --reps 11 --warmup 2 --no-e2e --quiet --out $B/${b}_$round/keys > /dev/null 2>&1
  for v in uint32 uint64; do
  timeout 90 $X bench --types key128 --values $v --sizes 2^20,2^24,2^26 --dists uniform --algos warpsort,cub_merge_stable_pairs --reps 11 --warmup 2 --no-e2e --quiet --out $B/${b}_$round/pairs_$v > /dev/null 2>&1
  done; el ab_${b}_$round
done; done
P=$R/items; mkdir -p $P
for v in uint32 uint64; do
  WARPSORT_POLICY="group_capacity=4415" timeout 60 $W bench --types key128 --values $v --sizes 2^24,2^26 --dists uniform --algos warpsort --reps 11 --warmup 2 --no-e2e --quiet --out $P/pairs_${v}_3471items > /dev/null 2>&1
done; el items
for f in block_sort_keys=1024 block_sort_keys=4096 max_sequences=16 max_sequences=64 oversampling=32 oversampling=128; do
  WARPSORT_POLICY="$f" timeout 60 $W bench --types key128 --sizes 2^24,2^26 --dists uniform --algos warpsort,cub_merge --reps 7 --warmup 1 --no-e2e --quiet --out $P/keys_$f > /dev/null 2>&1
done; el fields
for f in $G/*.log; do echo "$(basename $f) $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(tail -n1 $f)"; done
grep -h '^\[  FAILED \]\|^\[  SKIPPED \]' $G/*.log | sort -u | head
tail -qn 1 $S/*.log
python3 - <<'PY'
import csv,glob
for f in sorted(glob.glob('/tmp/res/ab/*/*/bench.csv'))+sorted(glob.glob('/tmp/res/items/*/bench.csv')):
  for r in csv.DictReader(open(f)):
    print(f.split('/')[-3][:6],f.split('/')[-2],r['algorithm'],r['distribution'],r['n'],r['median_ms'][:8],r['step1_ms'][:6],r['step2_ms'][:6],r['step3_ms'][:6],r['step4_ms'][:6],r['validated'])
PY

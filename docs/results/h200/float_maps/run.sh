#!/usr/bin/env bash
# One H200: floats' order words mapped where step 1 reads and the last round writes. The GPU
# suite, the sanitizers on the float sorts, then the build before it (prev) and this one (new)
# alternated twice: float32 and float64 keys (both orders), uint32 and uint64 keys beside them.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/all.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/prev.tar.xz | tar -C /tmp/w -xf -
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
wait; el suite; fin
timeout 80 /tmp/w/bin/test_pipeline_gpu > $G/test_pipeline_gpu.log 2>&1; echo "rc $?" >> $G/test_pipeline_gpu.log; el pipeline
S=$R/san; mkdir -p $S
WARPSORT_TEST_MAX_N=70000 compute-sanitizer --tool memcheck --error-exitcode 90 /tmp/w/bin/test_key_types_gpu --gtest_filter='FloatKeys.*' > $S/memcheck_float_keys.log 2>&1 &
WARPSORT_TEST_MAX_N=70000 compute-sanitizer --tool racecheck --error-exitcode 91 /tmp/w/bin/test_key_types_gpu --gtest_filter='FloatKeys.*' > $S/racecheck_float_keys.log 2>&1 &
for d in "" --descending; do
  compute-sanitizer --tool memcheck --error-exitcode 90 $W bench --types float32,float64 $d --sizes 2^17+3,2^20+5 --dists uniform,zero --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out /tmp/s$d > $S/memcheck_bench$d.log 2>&1 &
done
wait; el san; fin
B=$R/ab; mkdir -p $B
for round in 1 2; do for b in prev new; do
  X=$W; [ $b = prev ] && X=/tmp/w/ab/warpsort_prev
  timeout 100 $X bench --types float32,float64,uint32,uint64 --sizes 2^20,2^24,2^26 --dists uniform --algos warpsort,cub_merge --reps 11 --warmup 2 --no-e2e --quiet --out $B/${b}_$round/asc > /dev/null 2>&1
  timeout 100 $X bench --types float32,float64 --descending --sizes 2^20,2^24,2^26 --dists uniform --algos warpsort,cub_merge --reps 11 --warmup 2 --no-e2e --quiet --out $B/${b}_$round/desc > /dev/null 2>&1
  el ab_${b}_$round; fin
done; done
for f in $G/*.log; do echo "$(basename $f) $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(tail -n1 $f)"; done
grep -h '^\[  FAILED \]\|^\[  SKIPPED \]' $G/*.log | sort -u | head
tail -qn 1 $S/*.log; grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $S/*.log
python3 - <<'PY'
import csv,glob
for f in sorted(glob.glob('/tmp/res/ab/*/*/bench.csv')):
  for r in csv.DictReader(open(f)):
    if r['algorithm']!='warpsort': continue
    print(f.split('/')[-3],f.split('/')[-2],r['key_type'],r['n'],r['median_ms'][:8],r['ratio_vs_cub_merge'][:6],r['step1_ms'][:6],r['step4_ms'][:6],r['validated'])
PY

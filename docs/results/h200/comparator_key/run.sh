#!/usr/bin/env bash
# One H200: the whole GPU suite and its sanitizers (the library's launch change), then the
# comparator key: bench of keys and pairs, the policy fields for 16-byte keys, a copy pass, ncu.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/all.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
W=/tmp/w/bin/warpsort
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
if [ "${1:-bench}" = check ]; then
  G=$R/gpu_check; timeout 540 bash scripts/gpu_check_binaries.sh /tmp/w $G > $R/gpu_check.txt 2>&1; echo "rc $?" >> $R/gpu_check.txt; el gpu_check
  tail -n 70 $R/gpu_check.txt; exit 0
fi
B=$R/bench; mkdir -p $B
timeout 200 $W bench --types key128 --sizes 2^20,2^24,2^26 --dists uniform,sorted,zero,entropy_0.201 --algos warpsort,cub_merge,thrust_sort_comparator --reps 11 --warmup 2 --no-e2e --quiet --out $B/keys > $B/keys.log 2>&1; el keys
for v in uint32 uint64; do
timeout 150 $W bench --types key128 --values $v --sizes 2^20,2^24,2^26 --dists uniform,sorted --algos warpsort,cub_merge_stable_pairs,cub_merge_pairs --reps 11 --warmup 2 --no-e2e --quiet --out $B/pairs_$v > $B/pairs_$v.log 2>&1; el pairs_$v
done
P=$R/policy; mkdir -p $P
for f in default block_sort_keys=1024 block_sort_keys=4096 group_capacity=2048 group_capacity=8192 max_sequences=64; do
  pol=$([ $f = default ] && echo "" || echo $f)
  WARPSORT_POLICY="$pol" timeout 100 $W bench --types key128 --sizes 2^24,2^26 --dists uniform --algos warpsort,cub_merge --reps 7 --warmup 1 --no-e2e --quiet --out $P/$f > $P/$f.log 2>&1; el policy_$f
done
timeout 60 $W components --n 2^28 --reps 5 --out $R/components.json > $R/components.log 2>&1; el components
timeout 150 ncu --clock-control none --kernel-name regex:'sort_blocks_by_threads|merge_set_groups' --launch-count 4 --section SpeedOfLight --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy $W bench --types key128 --sizes 2^24 --dists uniform --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out /tmp/ncu_b > $R/ncu_key128.txt 2>&1; el ncu0
S=$R/san; mkdir -p $S
for v in none uint32 uint64; do
compute-sanitizer --tool memcheck $W bench --types key128 --values $v --sizes 1000,4097,2^17+3 --dists uniform,zero --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out /tmp/s_$v > $S/memcheck_$v.log 2>&1; el mc_$v
compute-sanitizer --tool racecheck $W bench --types key128 --values $v --sizes 1000,4097,2^17+3 --dists uniform --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out /tmp/r_$v > $S/racecheck_$v.log 2>&1; el rc_$v
done
compute-sanitizer --tool racecheck /tmp/w/bin/test_presets_gpu > $S/racecheck_presets.log 2>&1; el rc_presets
tail -n 2 $S/*.log
python3 - <<'PY'
import csv,glob
for f in sorted(glob.glob('/tmp/res/bench/*/bench.csv'))+sorted(glob.glob('/tmp/res/policy/*/bench.csv')):
  for r in csv.DictReader(open(f)):
    if r['algorithm'] in ('warpsort','cub_merge','cub_merge_stable_pairs','cub_merge_pairs','thrust_sort_comparator'):
      print(f.split('/')[-2],r['algorithm'],r['key_type'],r['distribution'],r['n'],r['median_ms'][:8],r['ratio_vs_cub_merge'][:5],r['step1_ms'][:6],r['step2_ms'][:6],r['step3_ms'][:6],r['step4_ms'][:6],r['validated'])
PY

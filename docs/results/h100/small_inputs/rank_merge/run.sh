#!/usr/bin/env bash
# One H100: steps 3 and 4 by ranks for small inputs. Every GPU test binary; memcheck and
# racecheck of the sorts that take it and of its test; its test on a broken build; the bench:
# the build as it is (rank_merge_keys 16384), with it off and up to 65536 (WARPSORT_DESIGN),
# alternated, two processes each; pairs at the same sizes with it on and off.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/checks $R/bench
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib
b=/tmp/w/bin; L=$R/checks
nvidia-smi -L > $R/gpu.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpu.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
S=4096,6144,8192,12288,16384,24576,32768,49152,65536
v4=preset=v4
for round in 1 2; do
  for cfg in on off wide; do
    case $cfg in on) D=;; off) D=$v4,rank_merge_keys=0;; wide) D=$v4,rank_merge_keys=65536;; esac
    if [ -n "$D" ]; then export WARPSORT_DESIGN=$D; else unset WARPSORT_DESIGN; fi
    timeout 60 $b/warpsort bench --sizes $S --dists uniform --types uint32,uint64 --algos warpsort,cub_merge --reps 21 --warmup 3 --no-e2e --quiet --out $R/bench/${cfg}_$round > $R/bench/${cfg}_$round.log 2>&1; echo "rc=$?" >> $R/bench/${cfg}_$round.log
    if [ $round = 1 ] && [ $cfg != wide ]; then
      timeout 60 $b/warpsort bench --sizes $S --dists uniform,randomized_duplicates --types uint32 --values uint32 --algos warpsort,cub_merge_stable_pairs --reps 21 --warmup 3 --no-e2e --quiet --out $R/bench/pairs_${cfg} > $R/bench/pairs_${cfg}.log 2>&1; echo "rc=$?" >> $R/bench/pairs_${cfg}.log
    fi
  done
done
unset WARPSORT_DESIGN
el bench
for t in $(find $b -type f -name 'test_*_gpu' | sort); do n=$(basename $t)
  case $n in test_pairs_gpu|test_pipeline_gpu) continue;; esac
  (WARPSORT_LARGE_TESTS=1 timeout 200 $t > $L/$n.log 2>&1; echo "rc=$?" >> $L/$n.log) &
done
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 200 $b/test_cli_process --gtest_filter='-*WithoutAGpu*' > $L/test_cli_process.log 2>&1; echo "rc=$?" >> $L/test_cli_process.log) &
wait
# alone: the pairs' memory, and the pipeline's step times (another process between its kernels)
for n in test_pairs_gpu test_pipeline_gpu; do
  (WARPSORT_LARGE_TESTS=1 timeout 200 $b/$n > $L/$n.log 2>&1; echo "rc=$?" >> $L/$n.log)
done
el tests
for ty in uint32 uint64; do for n in 6144 16384; do
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 90 $b/warpsort sort --n $n --type $ty --dist uniform > $L/memcheck_sort_${ty}_$n.log 2>&1; echo "rc=$?" >> $L/memcheck_sort_${ty}_$n.log
  timeout 60 compute-sanitizer --tool racecheck --error-exitcode 90 $b/warpsort sort --n $n --type $ty --dist uniform > $L/racecheck_sort_${ty}_$n.log 2>&1; echo "rc=$?" >> $L/racecheck_sort_${ty}_$n.log
done; done
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 90 $b/warpsort sort --n 12288 --type uint32 --values uint32 --dist uniform > $L/memcheck_sort_pairs.log 2>&1; echo "rc=$?" >> $L/memcheck_sort_pairs.log
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 90 $b/test_stages_gpu --gtest_filter='Step34*' > $L/memcheck_step34.log 2>&1; echo "rc=$?" >> $L/memcheck_step34.log
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 90 $b/test_stages_gpu --gtest_filter='Step34*' > $L/racecheck_step34.log 2>&1; echo "rc=$?" >> $L/racecheck_step34.log
LD_LIBRARY_PATH=/tmp/w/lib timeout 100 .devcarry/broken/test_stages_gpu_broken --gtest_filter='Step34*' > $L/broken_step34.log 2>&1; echo "rc=$?" >> $L/broken_step34.log
el sanitizers
for f in $L/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(grep -cE '^\[  SKIPPED \] [A-Za-z]' $f) skipped; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f) $(tail -n 1 $f)"; done
python3 - <<'PY'
import csv, glob, os, collections
rows=collections.defaultdict(dict)
for f in sorted(glob.glob('/tmp/res/bench/*/bench.csv')):
    name=os.path.basename(os.path.dirname(f))
    for r in csv.DictReader(open(f)):
        if r['algorithm']=='warpsort':
            rows[(r['key_type'],r['distribution'],int(r['n']))][name]=(float(r['median_ms'])*1000, r.get('ratio_vs_cub_merge') or r.get('ratio_vs_cub_merge_stable_pairs'), r['validated'])
for k in sorted(rows):
    print(k, ' '.join(f"{c}:{v[0]:.1f}us/{v[1]}{'' if v[2]=='true' else '!'}" for c,v in sorted(rows[k].items())))
PY

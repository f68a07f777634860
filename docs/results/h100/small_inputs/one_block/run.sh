#!/usr/bin/env bash
# One block up to 4096 keys: main (4ae8a84's device code) against the build, alternated twice,
# uint32 and uint64 around the rule's edges, CUB in every process; the build with the rule off
# (WARPSORT_DESIGN) in the same rounds; then every GPU test binary and the sanitizers on sorts
# the rule now plans as one block.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/o $R/ab $R/checks
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/suite.tar.xz | tar -C /tmp/o -xf - bin/warpsort
export LD_LIBRARY_PATH=/tmp/w/lib
b=/tmp/w/bin
nvidia-smi -L > $R/gpu.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpu.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
S=2^10,2^11,2^11+1,3000,2^12,2^12+1,6144,2^13,2^14,2^16
for round in 1 2; do
  for v in old new off; do
    W=$([ $v = old ] && echo /tmp/o/bin/warpsort || echo $b/warpsort)
    if [ $v = off ]; then export WARPSORT_DESIGN="preset=v4,one_block_keys=0"; else unset WARPSORT_DESIGN; fi
    timeout 60 $W bench --sizes $S --dists uniform --types uint32,uint64 --algos warpsort,cub_merge,cub_radix --reps 21 --warmup 3 --no-e2e --quiet --out $R/ab/${v}_$round > $R/ab/${v}_$round.log 2>&1
  done
  unset WARPSORT_DESIGN
  el "ab $round"
done
L=$R/checks
for t in $(find $b -type f \( -name 'test_*_gpu' -o -name 'test_gpu_*' \) | sort); do
  n=$(basename $t); [ $n = test_pipeline_gpu ] && continue
  (WARPSORT_LARGE_TESTS=1 timeout 330 $t > $L/$n.log 2>&1; echo "rc=$?" >> $L/$n.log) &
done
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 330 $b/test_cli_process --gtest_filter='-*WithoutAGpu*' > $L/test_cli_process.log 2>&1; echo "rc=$?" >> $L/test_cli_process.log) &
(for n in 2049 3000 4096; do for ty in uint32 uint64; do
   timeout 60 compute-sanitizer --tool memcheck --error-exitcode 90 $b/warpsort sort --n $n --type $ty --dist uniform > $L/memcheck_sort_${ty}_$n.log 2>&1; echo "rc=$?" >> $L/memcheck_sort_${ty}_$n.log
   timeout 60 compute-sanitizer --tool racecheck --error-exitcode 90 $b/warpsort sort --n $n --type $ty --dist uniform > $L/racecheck_sort_${ty}_$n.log 2>&1; echo "rc=$?" >> $L/racecheck_sort_${ty}_$n.log
 done; done) &
wait
(WARPSORT_LARGE_TESTS=1 timeout 100 $b/test_pipeline_gpu > $L/test_pipeline_gpu.log 2>&1; echo "rc=$?" >> $L/test_pipeline_gpu.log)
el all
for f in $L/test*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(grep -c '^\[  SKIPPED \] [A-Za-z]' $f) skipped $(tail -n 1 $f)"; done
for f in $L/*check*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -n 1) $(grep -c valid $f) $(tail -n 1 $f)"; done
python3 - <<'PY'
import csv, glob, os, collections
R='/tmp/res/ab'
rows=collections.defaultdict(dict)
for f in sorted(glob.glob(R+'/*/bench.csv')):
    name=os.path.basename(os.path.dirname(f))
    for r in csv.DictReader(open(f)):
        if r['algorithm']=='warpsort':
            rows[(r['key_type'],int(r['n']))][name]=(float(r['median_ms'])*1000, float(r['ratio_vs_cub_merge']), r['validated'])
for k in sorted(rows):
    print(k, ' '.join(f"{a}:{v[0]:.1f}/{v[1]:.2f}{'' if v[2]=='true' else '!'}" for a,v in sorted(rows[k].items())))
PY

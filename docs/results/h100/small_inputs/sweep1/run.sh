#!/usr/bin/env bash
# Small inputs (the library's pairwise path, version 4's design sized for n): the default against
# version 4's small-input rules varied through WARPSORT_DESIGN, uint32 uniform 2^12-2^17 and the
# sizes half-way, cub_merge and cub_radix in every process; two rounds.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/sweep
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf - bin/warpsort lib
export LD_LIBRARY_PATH=/tmp/w/lib
W=/tmp/w/bin/warpsort
nvidia-smi -L > $R/gpu.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpu.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
S=2^12,6144,2^13,12288,2^14,24576,2^15,49152,2^16,98304,2^17,196608,2^18,393216,2^19,786432,2^20
declare -A V=(
 [v4]="preset=v4"
 [m1024]="preset=v4,small_input_min_keys=1024"
 [m512]="preset=v4,small_input_min_keys=512"
 [m256]="preset=v4,small_input_min_keys=256"
 [m512b128]="preset=v4,small_input_min_keys=512,small_input_blocks=128"
 [m256b128]="preset=v4,small_input_min_keys=256,small_input_blocks=128"
 [t256]="preset=v4,few_blocks_threads=256"
 [t1024]="preset=v4,few_blocks_threads=1024"
 [m512t256]="preset=v4,small_input_min_keys=512,few_blocks_threads=256"
 [m512t1024]="preset=v4,small_input_min_keys=512,few_blocks_threads=1024"
)
for round in 1 2; do
  timeout 60 $W bench --sizes $S --dists uniform --types uint32 --algos warpsort,cub_merge,cub_radix --reps 21 --warmup 3 --no-e2e --quiet --out $R/sweep/default_$round > $R/sweep/default_$round.log 2>&1
  for k in "${!V[@]}"; do
    WARPSORT_DESIGN="${V[$k]}" timeout 60 $W bench --sizes 2^12,6144,2^13,12288,2^14,24576,2^15,49152,2^16,98304 --dists uniform --types uint32 --algos warpsort,cub_merge --reps 21 --warmup 3 --no-e2e --quiet --out $R/sweep/${k}_$round > $R/sweep/${k}_$round.log 2>&1
  done
  el "round $round"
done
python3 - <<'PY'
import csv, glob, os, collections
R='/tmp/res/sweep'
rows=collections.defaultdict(dict)
for f in sorted(glob.glob(R+'/*/bench.csv')):
    name=os.path.basename(os.path.dirname(f))
    for r in csv.DictReader(open(f)):
        if r['algorithm']=='warpsort':
            rows[int(r['n'])][name]=(float(r['median_ms'])*1000, float(r['ratio_vs_cub_merge']), r['validated'])
for n in sorted(rows):
    print(n, ' '.join(f"{k}:{v[0]:.1f}us/{v[1]:.2f}{'' if v[2]=='true' else '!'}" for k,v in sorted(rows[n].items())))
PY

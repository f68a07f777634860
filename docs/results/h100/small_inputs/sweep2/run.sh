#!/usr/bin/env bash
# Small inputs, second sweep: version 4's small-input shrinking off (one step-1 block up to its
# capacity, no steps 2-4 there), with other block sizes and thread counts; two rounds.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/sweep2
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf - bin/warpsort lib
export LD_LIBRARY_PATH=/tmp/w/lib
W=/tmp/w/bin/warpsort
declare -A V=(
 [nb]="preset=v4,small_input_blocks=0"
 [nb_t1024]="preset=v4,small_input_blocks=0,few_blocks_threads=1024"
 [nb_t256]="preset=v4,small_input_blocks=0,few_blocks_threads=256"
 [nb_k16]="preset=v4,small_input_blocks=0,block_sort_keys=16384,merge_block_keys=16384"
 [nb_k16_t1024]="preset=v4,small_input_blocks=0,block_sort_keys=16384,merge_block_keys=16384,few_blocks_threads=1024"
 [nb_k4]="preset=v4,small_input_blocks=0,block_sort_keys=4096,merge_block_keys=4096"
)
for round in 1 2; do
  timeout 60 $W bench --sizes 2^12,6144,2^13,12288,2^14,24576,2^15 --dists uniform --types uint32 --algos warpsort,cub_merge,cub_radix --reps 21 --warmup 3 --no-e2e --quiet --out $R/sweep2/default_$round > $R/sweep2/default_$round.log 2>&1
  for k in "${!V[@]}"; do
    WARPSORT_DESIGN="${V[$k]}" timeout 60 $W bench --sizes 2^10,2^11,2^12,6144,2^13,12288,2^14,24576,2^15 --dists uniform --types uint32 --algos warpsort,cub_merge --reps 21 --warmup 3 --no-e2e --quiet --out $R/sweep2/${k}_$round > $R/sweep2/${k}_$round.log 2>&1
  done
done
python3 - <<'PY'
import csv, glob, os, collections
R='/tmp/res/sweep2'
rows=collections.defaultdict(dict)
for f in sorted(glob.glob(R+'/*/bench.csv')):
    name=os.path.basename(os.path.dirname(f))
    for r in csv.DictReader(open(f)):
        if r['algorithm']=='warpsort':
            rows[int(r['n'])][name]=(float(r['median_ms'])*1000, float(r['ratio_vs_cub_merge']), r['validated'], float(r['step1_ms'] or 0)*1000)
for n in sorted(rows):
    print(n, ' '.join(f"{k}:{v[0]:.1f}/{v[3]:.1f}us/{v[1]:.2f}{'' if v[2]=='true' else '!'}" for k,v in sorted(rows[n].items())))
PY
grep -h "error" $R/sweep2/*.log | head -5

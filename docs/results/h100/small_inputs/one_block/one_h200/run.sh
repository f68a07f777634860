#!/usr/bin/env bash
# One block up to 4096 keys on one H200: main (4ae8a84's device code) against the build and the
# build with the rule off, alternated twice, uint32 and uint64, CUB in every process.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/o $R/ab
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf - bin/warpsort lib
xz -dc .devcarry/suite.tar.xz | tar -C /tmp/o -xf - bin/warpsort
export LD_LIBRARY_PATH=/tmp/w/lib
b=/tmp/w/bin
nvidia-smi -L > $R/gpu.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpu.txt
S=2^10,2^11,2^11+1,3000,2^12,2^12+1,6144,2^13,2^14,2^16
for round in 1 2; do
  for v in old new off; do
    W=$([ $v = old ] && echo /tmp/o/bin/warpsort || echo $b/warpsort)
    if [ $v = off ]; then export WARPSORT_DESIGN="preset=v4,one_block_keys=0"; else unset WARPSORT_DESIGN; fi
    timeout 60 $W bench --sizes $S --dists uniform --types uint32,uint64 --algos warpsort,cub_merge,cub_radix --reps 21 --warmup 3 --no-e2e --quiet --out $R/ab/${v}_$round > $R/ab/${v}_$round.log 2>&1
  done
  unset WARPSORT_DESIGN
done
python3 - <<'PY'
import csv, glob, os, collections
rows=collections.defaultdict(dict)
for f in sorted(glob.glob('/tmp/res/ab/*/bench.csv')):
    name=os.path.basename(os.path.dirname(f))
    for r in csv.DictReader(open(f)):
        if r['algorithm']=='warpsort':
            rows[(r['key_type'],int(r['n']))][name]=(float(r['median_ms'])*1000, float(r['ratio_vs_cub_merge']), r['validated'])
for k in sorted(rows):
    print(k, ' '.join(f"{a}:{v[0]:.1f}/{v[1]:.2f}{'' if v[2]=='true' else '!'}" for a,v in sorted(rows[k].items())))
PY

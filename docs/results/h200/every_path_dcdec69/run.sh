#!/usr/bin/env bash
# One H200: where every path stands with this build: keys of every type and both pair widths
# against CUB in one process each, uniform, 2^20, 2^24, 2^26.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/ab_cli.tar.xz | tar -C /tmp/w -xf - new; mkdir -p /tmp/w/bin; mv /tmp/w/new/bin/warpsort /tmp/w/bin/; mv /tmp/w/new/lib /tmp/w/lib
export LD_LIBRARY_PATH=/tmp/w/lib
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
W=/tmp/w/bin/warpsort
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
timeout 60 $W bench --types all --sizes 2^20,2^24,2^26 --dists uniform --algos warpsort,cub_merge,cub_radix --reps 7 --warmup 1 --no-e2e --quiet --out $R/keys > $R/keys.log 2>&1; el keys
for v in uint32 uint64; do
timeout 70 $W bench --types all --values $v --sizes 2^20,2^24,2^26 --dists uniform --algos warpsort,cub_merge_stable_pairs,cub_radix_pairs --reps 7 --warmup 1 --no-e2e --quiet --out $R/pairs_$v > $R/pairs_$v.log 2>&1; el pairs_$v
done
python3 - <<'PY'
import csv,glob,collections
for f in sorted(glob.glob('/tmp/res/*/bench.csv')):
  rows=list(csv.DictReader(open(f)))
  base={}
  for r in rows:
    base[(r['algorithm'],r['key_type'],r['n'])]=float(r['median_ms'])
  for r in rows:
    if r['algorithm']!='warpsort': continue
    k=(r['key_type'],r['n'])
    ref='cub_merge' if 'keys' in f else 'cub_merge_stable_pairs'
    rad='cub_radix' if 'keys' in f else 'cub_radix_pairs'
    m=float(r['median_ms'])
    print(f.split('/')[-2],r['key_type'],r['n'],round(m,4),'vs',ref,round(base.get((ref,)+k,0)/m,3),'vs',rad,round(base.get((rad,)+k,0)/m,3) if base.get((rad,)+k) else '-',r['validated'])
PY

#!/usr/bin/env bash
# One H200: every kernel's time (ncu, clocks as they are) of one warpsort run of 2^26 pairs
# (uint32 and uint64 keys with uint32 values) and of float32 keys: the element-wise passes
# around the index-word sort against its steps.
# Build: main at ee5a0b6. The ncu CSVs are gzipped here; summary.txt sums them by kernel.
set -u
R=/tmp/resn; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/resn.tgz resn; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf - bin/warpsort lib
export LD_LIBRARY_PATH=/tmp/w/lib
W=/tmp/w/bin/warpsort
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
for spec in "uint32 uint32" "uint64 uint32" "float32 none" "uint32 none"; do
  set -- $spec
  timeout 150 $NCU --clock-control none --metrics gpu__time_duration.sum --csv \
    $W bench --types $1 --values $2 --sizes 2^26 --dists uniform --algos warpsort --reps 1 --warmup 0 --no-e2e --quiet --out $R/b_$1_$2 > $R/ncu_$1_$2.csv 2> $R/ncu_$1_$2.err
  echo "$spec rc=$?"
done
fin
python3 - <<'PY'
import csv,glob,collections
for f in sorted(glob.glob('/tmp/resn/ncu_*.csv')):
  rows=[r for r in csv.reader(open(f)) if len(r)>10]
  if not rows: print(f,'no rows'); continue
  h=rows[0]; ki=h.index('Kernel Name'); vi=h.index('Metric Value'); ui=h.index('Metric Unit')
  agg=collections.OrderedDict()
  for r in rows[1:]:
    name=r[ki].split('<')[0].split('(')[0]
    v=float(r[vi].replace(',','')); v = v/1e3 if r[ui]=='nsecond' else (v if r[ui]=='usecond' else v*1e3)
    agg.setdefault(name,[0,0]); agg[name][0]+=v; agg[name][1]+=1
  print('==',f.split('/')[-1], 'total us', round(sum(a[0] for a in agg.values()),1))
  for k,(v,c) in agg.items(): print('  %-45s %4d %10.1f us'%(k[:45],c,v))
PY

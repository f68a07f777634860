#!/usr/bin/env bash
# One H200: the small inputs' one-block path (one_block_keys) at 1024-6144 keys: the default,
# version 4's design as the ablation runs it, and that design with one_block_keys 2048 and 1024.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/cli.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib
nvidia-smi -L > $R/gpu.txt
S=1024,1536,2048,3072,4096,5120,6144,8192
b() { local name=$1; shift; env "$@" timeout 100 /tmp/w/bin/warpsort bench --types uint32 --sizes $S --dists uniform --algos warpsort,cub_merge --reps 31 --warmup 5 --no-e2e --quiet --out $R/$name > $R/$name.log 2>&1; echo "$name rc=$?"; }
for r in 1 2; do
  b default_$r X=1
  b v4_$r WARPSORT_DESIGN=preset=v4
  b v4_one2048_$r WARPSORT_DESIGN=preset=v4,one_block_keys=2048
  b v4_one1024_$r WARPSORT_DESIGN=preset=v4,one_block_keys=1024
  fin
done
python3 - <<'PY'
import csv,glob
for f in sorted(glob.glob('/tmp/res/*/bench.csv')):
  out=[]
  for r in csv.DictReader(open(f)):
    if r['algorithm']=='warpsort': out.append('%s:%.1fus/%.2fx' % (r['n'], float(r['median_ms'])*1000, float(r['ratio_vs_cub_merge'])))
  print(f.split('/')[-2], ' '.join(out))
PY

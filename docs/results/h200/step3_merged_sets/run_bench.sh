#!/usr/bin/env bash
# One H200: step 3's samples of small sets merged on chip; the bench of the build before (prev) and this one (new),
# alternated twice, and `components` at 2^28 and 2^26 of each.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/ab $R/bench
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/ab_cli.tar.xz | tar -C /tmp/ab -xf -
export LD_LIBRARY_PATH=/tmp/ab/new/lib
nvidia-smi -L > $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
export CUDA_VISIBLE_DEVICES=0
for round in 1 2; do
  for b in prev new; do
    bin=/tmp/ab/$b/bin/warpsort
    timeout 150 $bin bench --types uint32,int32,float32,uint64 --sizes 2^24,2^25,2^26,2^27,2^28 --dists uniform --algos warpsort,cub_merge --reps 11 --warmup 3 --no-e2e --quiet --out $R/bench/${b}_keys_$round > $R/bench/${b}_keys_$round.log 2>&1; el "$b keys $round rc=$?"
    timeout 150 $bin bench --types uint32 --values uint32 --sizes 2^24,2^26 --dists uniform --algos warpsort --reps 11 --warmup 3 --no-e2e --quiet --out $R/bench/${b}_pairs_$round > $R/bench/${b}_pairs_$round.log 2>&1; el "$b pairs $round rc=$?"
  done
  fin
done
for b in prev new; do
  bin=/tmp/ab/$b/bin/warpsort
  timeout 120 $bin components --n 2^28 --reps 7 --out $R/bench/components_$b.json > $R/bench/components_$b.log 2>&1; el "components $b rc=$?"
  timeout 120 $bin components --n 2^26 --reps 7 --out $R/bench/components26_$b.json > $R/bench/components26_$b.log 2>&1
done
python3 - <<'PY'
import csv,glob,collections
d=collections.defaultdict(list)
for f in sorted(glob.glob('/tmp/res/bench/*/bench.csv')):
    b,kind,_=f.split('/')[-2].split('_')
    for r in csv.DictReader(open(f)):
        d[(kind,r['key_type'],int(r['n']),r['algorithm'],b)].append('%s(%s) s1-4 %s/%s/%s/%s'%(r['median_ms'],r['ratio_vs_cub_merge'][:5],r['step1_ms'],r['step2_ms'],r['step3_ms'],r['step4_ms']))
for k in sorted(d): print(k, ' | '.join(d[k]))
PY
for b in prev new; do echo "== components $b"; cat $R/bench/components_$b.log; cat $R/bench/components26_$b.log; done

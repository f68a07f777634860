#!/usr/bin/env bash
# One H200: uint32 uniform at every 2^k and 1.5 x 2^k from 2^12 to 2^30, warpsort against both CUB
# sorts in each process, two processes.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/cli.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib
nvidia-smi -L > $R/gpu.txt; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $R/gpu.txt
t0=$(date +%s)
for r in 1 2; do
  timeout 280 /tmp/w/bin/warpsort bench --types uint32 --sizes 2^12,6144,2^13,12288,2^14,24576,2^15,49152,2^16,98304,2^17,196608,2^18,393216,2^19,786432,2^20,1572864,2^21,3145728,2^22,6291456,2^23,12582912,2^24,25165824,2^25,50331648,2^26,100663296,2^27,201326592,2^28,402653184,2^29,805306368,2^30 --dists uniform --algos warpsort,cub_merge --reps 11 --warmup 3 --no-e2e --quiet --out $R/round_$r > $R/round_$r.log 2>&1
  echo "round $r rc=$? at $(( $(date +%s) - t0 )) s"; fin
done
python3 - <<'PY'
import csv,glob
rows={}
for f in sorted(glob.glob('/tmp/res/round_*/bench.csv')):
  for r in csv.DictReader(open(f)):
    if r['algorithm']=='warpsort': rows.setdefault(int(r['n']),[]).append((r['ratio_vs_cub_merge'], r['ratio_vs_cub_radix'], r['median_ms'], r['validated']))
for n in sorted(rows): print(n, rows[n])
PY

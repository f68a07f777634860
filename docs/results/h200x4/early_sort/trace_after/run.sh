#!/usr/bin/env bash
# Four H200s: host timestamps of the gathered path's steps (diagnostic build of the early sort).
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/diag2.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin
WARPSORT_HOST_TRACE=1 timeout 120 $b/warpsort dist --gpus 4 --sizes 2^22,2^24,2^26 --reps 10 --warmup 2 --out $R/g4 > $R/g4.log 2> $R/g4.err
echo rc=$?
python3 - <<'PY'
import re,collections
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for line in open('/tmp/res/g4.err'):
    if not line.startswith('htrace'): continue
    parts=line.split(); n=parts[2]
    for p in parts[3:]:
        k,v=p.split('='); rows[n][k].append(float(v))
for n,d in rows.items():
    print(n, ' '.join('%s=%.1f'%(k, sorted(v)[len(v)//2]) for k,v in d.items()))
PY
cat $R/g4.log

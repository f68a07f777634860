#!/usr/bin/env bash
# Four H200s: the distributed tests on four GPUs, every rank's phases at 2^31 for the
# distributions short of 3.2x beside uniform, and the uniform totals' exchange against NCCL.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/all.tar.xz | tar -C /tmp/w -xf - bin/warpsort bin/test_distributed_gpu bin/test_cli_process lib
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt; nvidia-smi topo -m > $R/topo.txt 2>&1
W=/tmp/w/bin/warpsort
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
timeout 150 $W dist --gpus 4 --sizes 2^31 --dists deterministic_duplicates,entropy_0.201,uniform --reps 3 --warmup 1 --out $R/ranks > $R/ranks.log 2>&1; el ranks
mkdir -p $R/cp
(WARPSORT_CLI_BINARY=$W WARPSORT_CLI_TEST_DIR=$R/cp timeout 170 /tmp/w/bin/test_cli_process --gtest_filter='*Dist*' > $R/test_cli_process_dist.log 2>&1; echo "rc $?" >> $R/test_cli_process_dist.log) 
el cli
timeout 120 /tmp/w/bin/test_distributed_gpu > $R/test_distributed_gpu.log 2>&1; echo "rc $?" >> $R/test_distributed_gpu.log; el dtests
grep -h "PASSED\|FAILED\|SKIPPED\|^rc " $R/*.log
cat $R/ranks.log
python3 - <<'PY'
import json
d=json.load(open('/tmp/res/ranks/dist.json'))
for r in d['results']:
  print(r['distribution'], round(r['ms'],3), round(r.get('speedup_vs_single_gpu') or 0,3), 'merge', round(r['merge_ms'],3), 'exch', round(r['exchange_ms'],3))
  for i,x in enumerate(r['ranks']): print('  rank',i,{k:round(v,3) for k,v in x.items() if isinstance(v,(int,float))})
PY

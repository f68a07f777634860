#!/usr/bin/env bash
# Two H200s, call A: the whole GPU suite across both GPUs (the select_key change and the
# two-GPU CLI test of every rank's phases), then every rank's phases of dist at 2^30.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/all.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
W=/tmp/w/bin/warpsort
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
G=$R/suite; mkdir -p $G/cp
for t in /tmp/w/bin/test_*_gpu /tmp/w/bin/test_gpu_*; do
  n=$(basename $t); [ $n = test_pipeline_gpu ] && continue
  (WARPSORT_LARGE_TESTS=1 timeout 330 $t > $G/$n.log 2>&1; echo "rc $?" >> $G/$n.log) &
done
(WARPSORT_CLI_BINARY=$W WARPSORT_CLI_TEST_DIR=$G/cp timeout 330 /tmp/w/bin/test_cli_process --gtest_filter='-*WithoutAGpu*' > $G/test_cli_process.log 2>&1; echo "rc $?" >> $G/test_cli_process.log) &
wait; el suite
timeout 80 /tmp/w/bin/test_pipeline_gpu > $G/test_pipeline_gpu.log 2>&1; echo "rc $?" >> $G/test_pipeline_gpu.log; el pipeline
for f in $G/*.log; do echo "$(basename $f) $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $f | tr '\n' ' ') $(tail -n1 $f)"; done
grep -h '^\[  FAILED \]\|^\[  SKIPPED \]' $G/*.log | sort -u | head -30
timeout 120 $W dist --gpus 2 --sizes 2^30 --dists deterministic_duplicates,entropy_0.201,uniform --reps 3 --warmup 1 --out $R/ranks > $R/ranks.log 2>&1; el ranks
python3 - <<'PY'
import json
d=json.load(open('/tmp/res/ranks/dist.json'))
for r in d['results']:
  print(r['distribution'], round(r['ms'],3), r.get('speedup_vs_single_gpu'), 'merge', round(r['merge_ms'],3), 'exch', round(r['exchange_ms'],3))
  for i,x in enumerate(r['ranks']): print('  rank',i,{k:round(v,3) for k,v in x.items() if isinstance(v,(int,float))})
PY

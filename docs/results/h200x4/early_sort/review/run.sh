#!/usr/bin/env bash
# Four H200s: the review's build. The whole GPU suite (nothing skipped; test binaries spread over
# the GPUs, test_distributed_gpu and the CLI's process tests with every GPU), memcheck of the new
# distributed test, the single-GPU bench against CUB in one process, the default distributed path.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/suite/cp
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/all.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
G=$R/suite; nvidia-smi -L > $R/gpus.txt; CS=/usr/local/cuda/bin/compute-sanitizer
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
i=0
for t in /tmp/w/bin/test_*_gpu /tmp/w/bin/test_gpu_*; do
  n=$(basename $t)
  case $n in test_pipeline_gpu|test_distributed_gpu) continue ;; esac
  (CUDA_VISIBLE_DEVICES=$(( i % 3 + 1 )) WARPSORT_LARGE_TESTS=1 timeout 300 $t > $G/$n.log 2>&1; echo "rc $?" >> $G/$n.log) &
  i=$(( i + 1 ))
done
(timeout 300 /tmp/w/bin/test_distributed_gpu > $G/test_distributed_gpu.log 2>&1; echo "rc $?" >> $G/test_distributed_gpu.log) &
(CUDA_VISIBLE_DEVICES=0 timeout 300 $CS --tool memcheck --error-exitcode 9 /tmp/w/bin/test_distributed_gpu --gtest_filter='DistributedKeys/0.CallsOnTheSameRanks*' > $R/memcheck_u32.log 2>&1; echo "rc $?" >> $R/memcheck_u32.log) &
wait; el suite; fin
(WARPSORT_CLI_BINARY=/tmp/w/bin/warpsort WARPSORT_CLI_TEST_DIR=$G/cp timeout 200 /tmp/w/bin/test_cli_process --gtest_filter='-*WithoutAGpu*' > $G/test_cli_process.log 2>&1; echo "rc $?" >> $G/test_cli_process.log)
el cli; fin
(CUDA_VISIBLE_DEVICES=0 timeout 100 /tmp/w/bin/test_pipeline_gpu > $G/test_pipeline_gpu.log 2>&1; echo "rc $?" >> $G/test_pipeline_gpu.log); el pipeline
for f in $G/*.log $R/memcheck_u32.log; do echo "$(basename $f) $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY' $f | tr '\n' ' ') $(tail -n1 $f)"; done
grep -h '^\[  FAILED \]\|^\[  SKIPPED \]' $G/*.log | sort -u | head
fin
CUDA_VISIBLE_DEVICES=0 timeout 150 /tmp/w/bin/warpsort bench --types uint32,uint64,float32 --sizes 2^20,2^24,2^26 --dists uniform --algos warpsort,cub_merge --reps 11 --warmup 3 --no-e2e --quiet --out $R/bench > $R/bench.log 2>&1; el "bench rc=$?"
timeout 60 /tmp/w/bin/warpsort dist --gpus 4 --sizes 2^22,2^24,2^26 --reps 10 --warmup 2 --out $R/dist > $R/dist.log 2>&1; el "dist rc=$?"
cat $R/dist.log
python3 - <<'PY'
import csv,glob
for f in glob.glob('/tmp/res/bench/*.csv'):
    print(f); rows=list(csv.DictReader(open(f))); print(list(rows[0].keys()) if rows else 'empty')
    for r in rows[:40]: print({k:r[k] for k in list(r)[:14]})
PY

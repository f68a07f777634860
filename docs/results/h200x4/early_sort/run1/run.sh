#!/usr/bin/env bash
# Four H200s: the gathered path's first range sorted before the agreement. Checks (the
# distributed suite with every GPU, memcheck of the new and gathered tests, the CLI's
# distributed tests, the deliberate break), then main against the build on 4, 3 and 2 GPUs.
set -u
R=$OUT/res; mkdir -p /tmp/w /tmp/o $R/checks $R/ab
xz -dc .devcarry/early.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/cli.tar.xz | tar -C /tmp/o -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin; o=/tmp/o/bin; CS=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
$o/warpsort dist --help | grep -c gather-pieces > $R/checks/old_has_gather_pieces.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
(timeout 300 $b/test_distributed_gpu > $R/checks/test_distributed_gpu.log 2>&1; echo "rc=$?" >> $R/checks/test_distributed_gpu.log) &
(CUDA_VISIBLE_DEVICES=1 WARPSORT_TEST_MAX_N=65536 timeout 300 $CS --tool memcheck --error-exitcode 9 $b/test_distributed_gpu --gtest_filter='DistributedKeys/0.CallsOnTheSameRanks*:DistributedKeys/5.CallsOnTheSameRanks*:DistributedKeys/0.GatheredMergeOnAnyRanks' > $R/checks/memcheck.log 2>&1; echo "rc=$?" >> $R/checks/memcheck.log) &
(CUDA_VISIBLE_DEVICES=2 timeout 300 $b/broken/test_distributed_gpu --gtest_filter='DistributedKeys/*.CallsOnTheSameRanks*' > $R/checks/broken.log 2>&1; echo "rc=$?" >> $R/checks/broken.log) &
wait; el checks
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 150 $b/test_cli_process --gtest_filter='CliProcess.Dist*' > $R/checks/test_cli_process_dist.log 2>&1; echo "rc=$?" >> $R/checks/test_cli_process_dist.log)
el cli
for f in $R/checks/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) |ERROR SUMMARY' $f | tr '\n' ' ') $(tail -n 1 $f)"; done
grep -E "^\[  FAILED|Failure" -A3 $R/checks/*.log | head -40
S=2^22,2^23,2^24,2^25,2^26
run() { local name=$1; shift; timeout 60 "$@" --reps 10 --warmup 2 --out $R/ab/$name > $R/ab/$name.log 2>&1; el "$name rc=$?"; }
for k in 1 2; do
  run g4_old_$k $o/warpsort dist --gpus 4 --sizes $S
  run g4_new_$k $b/warpsort dist --gpus 4 --sizes $S
done
for g in 3 2; do
  run g${g}_old $o/warpsort dist --gpus $g --sizes $S
  run g${g}_new $b/warpsort dist --gpus $g --sizes $S
done
run g4_float32_old $o/warpsort dist --gpus 4 --type float32 --sizes 2^22,2^24,2^26
run g4_float32_new $b/warpsort dist --gpus 4 --type float32 --sizes 2^22,2^24,2^26
python3 - <<'PY'
import csv,glob,os
R=os.environ['OUT']+'/res/ab'
for f in sorted(glob.glob(R+'/*/dist.csv')):
    for r in csv.DictReader(open(f)):
        print(os.path.basename(os.path.dirname(f)), r['n'], '%.3f'%float(r['ms']), 'x%.2f'%float(r['speedup_vs_single_gpu']), 'loc %.3f exch %.3f merge %.3f'%(float(r['local_sort_ms']),float(r['exchange_ms']),float(r['merge_ms'])), r.get('sorted_early_runs','-'), r['gathered'], r['validated'])
PY

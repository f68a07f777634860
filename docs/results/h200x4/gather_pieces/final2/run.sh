#!/usr/bin/env bash
# Four H200s: the final build's checks (distributed suite with every GPU, float key maps, memcheck of
# the float paths through map_words, the CLI's distributed tests), the automatic rule against main
# on 4, 3 and 2 GPUs, ranges with their copies held until the whole sort (a diagnostic build), and
# float keys against main.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/checks $R/ab
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/fin.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin; o=/tmp/w/old; z=/tmp/w/serial; CS=/usr/local/cuda/bin/compute-sanitizer
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
(timeout 240 $b/test_distributed_gpu > $R/checks/test_distributed_gpu.log 2>&1; echo "rc=$?" >> $R/checks/test_distributed_gpu.log) &
(CUDA_VISIBLE_DEVICES=1 timeout 240 $b/test_key_types_gpu > $R/checks/test_key_types_gpu.log 2>&1; echo "rc=$?" >> $R/checks/test_key_types_gpu.log) &
(CUDA_VISIBLE_DEVICES=2 WARPSORT_TEST_MAX_N=65536 timeout 240 $CS --tool memcheck --error-exitcode 9 $b/test_distributed_gpu --gtest_filter='DistributedKeys/2.GatheredMergeOnAnyRanks:DistributedKeys/5.GatheredMergeOnAnyRanks' > $R/checks/memcheck_floats.log 2>&1; echo "rc=$?" >> $R/checks/memcheck_floats.log) &
wait; el checks; fin
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 150 $b/test_cli_process --gtest_filter='CliProcess.Dist*' > $R/checks/test_cli_process_dist.log 2>&1; echo "rc=$?" >> $R/checks/test_cli_process_dist.log)
el cli; fin
for f in $R/checks/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) |ERROR SUMMARY' $f | tr '\n' ' ') $(tail -n 1 $f)"; done
grep -E "^\[  FAILED|Failure" -A3 $R/checks/*.log | head -30
S=2^22,2^23,2^24,2^25,2^26,2^27,2^28
run() { local name=$1; shift; timeout 60 "$@" --reps 10 --warmup 2 --out $R/ab/$name > $R/ab/$name.log 2>&1; el $name; }
for g in 4 3 2; do
  run g${g}_old $o/warpsort dist --gpus $g --sizes $S
  run g${g}_auto $b/warpsort dist --gpus $g --sizes $S
  fin
done
for k in 2 4; do
  run g4_serial_p$k $z/warpsort dist --gpus 4 --gather always --gather-pieces $k --sizes 2^24,2^25,2^26
  run g4_p$k $b/warpsort dist --gpus 4 --gather always --gather-pieces $k --sizes 2^24,2^25,2^26
done
fin
for t in float32 float64; do
  run g4_${t}_old $o/warpsort dist --gpus 4 --type $t --sizes 2^24,2^26,2^28
  run g4_${t}_new $b/warpsort dist --gpus 4 --type $t --sizes 2^24,2^26,2^28
done
python3 - <<'PY'
import json,glob,os
for f in sorted(glob.glob('/tmp/res/ab/*/dist.json')):
  d=json.load(open(f))
  for r in d['results']:
    print(f.split('/')[-2], r['n'].bit_length()-1, round(r['ms'],3), '%.2fx' % (r.get('speedup_vs_single_gpu') or 0), 'l', round(r['local_sort_ms'],3), 'x', round(r['exchange_ms'],3), 'm', round(r['merge_ms'],3), 'g', int(r['gathered']), r.get('gather_pieces'), r['validated'])
PY

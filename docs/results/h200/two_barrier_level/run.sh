#!/usr/bin/env bash
# Four H200s: the two-barrier thread merge level. The whole GPU suite (test binaries spread over
# GPUs 1-3, test_distributed_gpu and the CLI's process tests with every GPU), memcheck and
# racecheck of the changed kernels on GPU 0; then on GPU 0 alone the bench of the build before
# (prev) and this one (new) alternated twice, and `components` at 2^28 of each.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/p/bin $R/suite/cp $R/checks $R/bench
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/all.tar.xz | tar -C /tmp/p -xf - bin/warpsort
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
G=$R/suite; nvidia-smi -L > $R/gpus.txt; CS=/usr/local/cuda/bin/compute-sanitizer
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
i=0
for t in /tmp/w/bin/test_*_gpu /tmp/w/bin/test_gpu_*; do
  n=$(basename $t)
  case $n in test_pipeline_gpu|test_distributed_gpu) continue ;; esac
  (CUDA_VISIBLE_DEVICES=$(( i % 3 + 1 )) WARPSORT_LARGE_TESTS=1 timeout 400 $t > $G/$n.log 2>&1; echo "rc $?" >> $G/$n.log) &
  i=$(( i + 1 ))
done
(timeout 300 /tmp/w/bin/test_distributed_gpu > $G/test_distributed_gpu.log 2>&1; echo "rc $?" >> $G/test_distributed_gpu.log) &
(export CUDA_VISIBLE_DEVICES=0
 timeout 200 .devcarry/test_thread_merge_gpu_broken_lane31 > $R/checks/broken_lane31.log 2>&1; echo "rc $?" >> $R/checks/broken_lane31.log
 for tool in memcheck racecheck; do
   timeout 200 $CS --tool $tool --error-exitcode 9 /tmp/w/bin/test_thread_merge_gpu > $R/checks/${tool}_thread_merge.log 2>&1; echo "rc $?" >> $R/checks/${tool}_thread_merge.log
   for ty in uint32 uint64; do
     for n in 1000003 131075; do
       timeout 200 $CS --tool $tool --error-exitcode 9 /tmp/w/bin/warpsort sort --dist uniform --type $ty --n $n --reps 1 --warmup 0 > $R/checks/${tool}_sort_${ty}_$n.log 2>&1; echo "rc $?" >> $R/checks/${tool}_sort_${ty}_$n.log
     done
   done
   timeout 200 $CS --tool $tool --error-exitcode 9 /tmp/w/bin/warpsort sort --dist uniform --type uint32 --values uint32 --n 1000003 --reps 1 --warmup 0 > $R/checks/${tool}_pairs.log 2>&1; echo "rc $?" >> $R/checks/${tool}_pairs.log
 done) &
wait; el suite; fin
(WARPSORT_CLI_BINARY=/tmp/w/bin/warpsort WARPSORT_CLI_TEST_DIR=$G/cp timeout 200 /tmp/w/bin/test_cli_process --gtest_filter='-*WithoutAGpu*' > $G/test_cli_process.log 2>&1; echo "rc $?" >> $G/test_cli_process.log)
el cli
(CUDA_VISIBLE_DEVICES=0 timeout 100 /tmp/w/bin/test_pipeline_gpu > $G/test_pipeline_gpu.log 2>&1; echo "rc $?" >> $G/test_pipeline_gpu.log); el pipeline
for f in $G/*.log $R/checks/*.log; do echo "$(basename $f) $(grep -E '^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY' $f | tr '\n' ' ') $(tail -n1 $f)"; done
grep -h '^\[  FAILED \]\|^\[  SKIPPED \]' $G/*.log | sort -u | head
fin
export CUDA_VISIBLE_DEVICES=0
for round in 1 2; do
  for b in prev new; do
    bin=/tmp/w/bin/warpsort; [ $b = prev ] && bin=/tmp/p/bin/warpsort
    timeout 150 $bin bench --types uint32,uint64,float32 --sizes 2^20,2^24,2^26,2^28 --dists uniform --algos warpsort,cub_merge --reps 11 --warmup 3 --no-e2e --quiet --out $R/bench/${b}_keys_$round > $R/bench/${b}_keys_$round.log 2>&1; el "$b keys $round rc=$?"
    timeout 150 $bin bench --types uint32 --values uint32 --sizes 2^24,2^26 --dists uniform --algos warpsort --reps 11 --warmup 3 --no-e2e --quiet --out $R/bench/${b}_pairs_$round > $R/bench/${b}_pairs_$round.log 2>&1; el "$b pairs $round rc=$?"
  done
  fin
done
for b in prev new; do
  bin=/tmp/w/bin/warpsort; [ $b = prev ] && bin=/tmp/p/bin/warpsort
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

#!/usr/bin/env bash
# Four H200s: the committed build's whole GPU suite (nothing skipped), the test binaries spread
# over the GPUs, test_distributed_gpu and the CLI's process tests with every GPU, then the timing
# tests of test_pipeline_gpu alone.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/suite/cp
fin() { cd /tmp && tar -czf $OUT/res.tgz res; cd - >/dev/null; }
trap fin EXIT
xz -dc .devcarry/all.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
G=$R/suite; nvidia-smi -L > $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
i=0
for t in /tmp/w/bin/test_*_gpu /tmp/w/bin/test_gpu_*; do
  n=$(basename $t)
  case $n in test_pipeline_gpu|test_distributed_gpu) continue ;; esac
  (CUDA_VISIBLE_DEVICES=$(( i % 3 + 1 )) WARPSORT_LARGE_TESTS=1 timeout 300 $t > $G/$n.log 2>&1; echo "rc $?" >> $G/$n.log) &
  i=$(( i + 1 ))
done
(timeout 300 /tmp/w/bin/test_distributed_gpu > $G/test_distributed_gpu.log 2>&1; echo "rc $?" >> $G/test_distributed_gpu.log) &
wait; el suite; fin
(WARPSORT_CLI_BINARY=/tmp/w/bin/warpsort WARPSORT_CLI_TEST_DIR=$G/cp timeout 200 /tmp/w/bin/test_cli_process --gtest_filter='-*WithoutAGpu*' > $G/test_cli_process.log 2>&1; echo "rc $?" >> $G/test_cli_process.log)
el cli; fin
(CUDA_VISIBLE_DEVICES=0 timeout 100 /tmp/w/bin/test_pipeline_gpu > $G/test_pipeline_gpu.log 2>&1; echo "rc $?" >> $G/test_pipeline_gpu.log); el pipeline
for f in $G/*.log; do echo "$(basename $f) $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(tail -n1 $f)"; done
grep -h '^\[  FAILED \]\|^\[  SKIPPED \]' $G/*.log | sort -u | head

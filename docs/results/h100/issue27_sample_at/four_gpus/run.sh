#!/usr/bin/env bash
# Four H200s, the build with equal_sequences::sample_at dividing once: the multi-GPU tests the one
# H100 skipped; then the exchange's number of parts now that a part's copies go as one batch.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/tests $R/parts
xz -dc .devcarry/suite.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin
nvidia-smi -L > $R/gpus.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
(timeout 250 $b/test_distributed_gpu > $R/tests/test_distributed_gpu.log 2>&1; echo "rc=$?" >> $R/tests/test_distributed_gpu.log)
el test_distributed_gpu
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 150 $b/test_cli_process --gtest_filter='CliProcess.Dist*' > $R/tests/test_cli_process_dist.log 2>&1; echo "rc=$?" >> $R/tests/test_cli_process_dist.log)
el cli
for k in 4 16 8; do
  timeout 90 $b/warpsort dist --gpus 4 --sizes 2^30,2^31 --exchange-parts $k --reps 5 --warmup 2 --out $R/parts/k$k > $R/parts/k$k.log 2>&1
  el "parts $k"
done
for f in $R/tests/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $f | tr '\n' ' ') $(tail -n 1 $f)"; done

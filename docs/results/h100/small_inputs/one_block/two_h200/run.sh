#!/usr/bin/env bash
# One block up to 4096 keys, on two H200s: the tests that need two GPUs (test_distributed_gpu,
# CliProcess.Dist*), and the Python module built from this tree with its pytest (CuPy, PyTorch,
# JAX) meanwhile.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/checks $R/python
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
b=/tmp/w/bin; L=$R/checks
nvidia-smi -L > $R/gpu.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
repo=$(pwd)
( (time python3 -m pip install --no-build-isolation . > $R/python/pip.log 2>&1) 2> $R/python/pip_time.txt; echo "rc=$?" >> $R/python/pip_time.txt ) &
pip_pid=$!
(WARPSORT_LARGE_TESTS=1 timeout 300 $b/test_distributed_gpu > $L/test_distributed_gpu.log 2>&1; echo "rc=$?" >> $L/test_distributed_gpu.log) &
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 300 $b/test_cli_process --gtest_filter='CliProcess.Dist*' > $L/test_cli_process_dist.log 2>&1; echo "rc=$?" >> $L/test_cli_process_dist.log) &
wait $pip_pid
el pip
(cd /tmp && XLA_PYTHON_CLIENT_PREALLOCATE=false CUDA_VISIBLE_DEVICES=1 timeout 200 python3 -m pytest -q -p no:cacheprovider $repo/python/tests > $R/python/pytest.txt 2>&1; echo "rc=$?" >> $R/python/pytest.txt)
el pytest
wait
el all
for f in $L/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(grep -c '^\[  SKIPPED \] [A-Za-z]' $f) skipped $(tail -n 1 $f)"; done
tail -3 $R/python/pytest.txt; cat $R/python/pip_time.txt

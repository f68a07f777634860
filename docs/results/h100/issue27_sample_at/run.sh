#!/usr/bin/env bash
# One GPU: main (890c90f) against the build whose equal_sequences::sample_at divides once (the
# layout's sample count a sequence instead of recomputing it), bench alternated twice; every GPU
# test binary; memcheck and racecheck of step 3; the Python module built from this tree and its
# pytest with CuPy, PyTorch and JAX.
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w /tmp/o $R/ab $R/checks $R/python
xz -dc .devcarry/suite.tar.xz | tar -C /tmp/w -xf -
xz -dc .devcarry/old890.xz > /tmp/o/warpsort && chmod +x /tmp/o/warpsort
export LD_LIBRARY_PATH=/tmp/w/lib
b=/tmp/w/bin
nvidia-smi -L > $R/gpu.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $R/gpu.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
for round in 1 2; do
  for v in old new; do
    W=$([ $v = old ] && echo /tmp/o/warpsort || echo $b/warpsort)
    $W bench --sizes 2^16,2^20,2^24,2^28 --dists uniform --types uint32,uint64 --algos warpsort,cub_merge --reps 7 --warmup 2 --no-e2e --quiet --out $R/ab/keys_${v}_$round > $R/ab/keys_${v}_$round.log 2>&1
    $W bench --sizes 2^20,2^22 --dists uniform --types uint32 --variants v4 --algos warpsort --reps 7 --warmup 2 --no-e2e --quiet --out $R/ab/v4_${v}_$round > $R/ab/v4_${v}_$round.log 2>&1
  done
  el "ab $round"
done
(cd $OLDPWD 2>/dev/null; true)
repo=$(pwd)
( (time python3 -m pip install --no-build-isolation . > $R/python/pip.log 2>&1) 2> $R/python/pip_time.txt; echo "rc=$?" >> $R/python/pip_time.txt ) &
pip_pid=$!
L=$R/checks
for t in $(find $b -type f \( -name 'test_*_gpu' -o -name 'test_gpu_*' \) | sort); do
  n=$(basename $t); [ $n = test_pipeline_gpu ] && continue
  (WARPSORT_LARGE_TESTS=1 timeout 330 $t > $L/$n.log 2>&1; echo "rc=$?" >> $L/$n.log) &
done
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 330 $b/test_cli_process --gtest_filter='-*WithoutAGpu*' > $L/test_cli_process.log 2>&1; echo "rc=$?" >> $L/test_cli_process.log) &
(export WARPSORT_TEST_MAX_N=70000; timeout 300 compute-sanitizer --tool memcheck --error-exitcode 90 $b/test_stages_gpu --gtest_filter='Step3*' > $L/memcheck_stages_step3.log 2>&1; echo "rc=$?" >> $L/memcheck_stages_step3.log;
 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 90 $b/test_stages_gpu --gtest_filter='Step3*' > $L/racecheck_stages_step3.log 2>&1; echo "rc=$?" >> $L/racecheck_stages_step3.log) &
wait $pip_pid
el pip
(cd /tmp && XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 150 python3 -m pytest -q $repo/python/tests > $R/python/pytest.txt 2>&1; echo "rc=$?" >> $R/python/pytest.txt)
el pytest
wait
(WARPSORT_LARGE_TESTS=1 timeout 100 $b/test_pipeline_gpu > $L/test_pipeline_gpu.log 2>&1; echo "rc=$?" >> $L/test_pipeline_gpu.log)
el all
for f in $L/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $f | tr '\n' ' ') $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tail -n 1) $(tail -n 1 $f)"; done
tail -2 $R/python/pytest.txt

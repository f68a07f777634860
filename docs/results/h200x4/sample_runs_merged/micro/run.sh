#!/usr/bin/env bash
# One H200: the merge of the runs' samples against CUB's radix sort (micro), its test and the
# run merge's tests, memcheck and racecheck of the new test.
set -u
R=/tmp/res; rm -rf $R; mkdir -p $R
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
export LD_LIBRARY_PATH=$PWD/.devcarry/m1
b=.devcarry/m1
nvidia-smi -L > $R/gpu.txt
timeout 120 $b/test_merge_runs_gpu > $R/test_merge_runs_gpu.log 2>&1; echo "rc=$?" >> $R/test_merge_runs_gpu.log
timeout 200 $b/sample_order > $R/micro.csv 2> $R/micro.err; echo "rc=$?" >> $R/micro.err
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 90 $b/test_merge_runs_gpu --gtest_filter='MergeSampleRuns*' > $R/memcheck.log 2>&1; echo "rc=$?" >> $R/memcheck.log
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 90 $b/test_merge_runs_gpu --gtest_filter='MergeSampleRuns*' > $R/racecheck.log 2>&1; echo "rc=$?" >> $R/racecheck.log
grep -E "PASSED|FAILED|rc=" $R/test_merge_runs_gpu.log
tail -n 3 $R/memcheck.log $R/racecheck.log
cat $R/micro.csv

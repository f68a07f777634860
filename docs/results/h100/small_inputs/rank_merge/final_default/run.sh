#!/usr/bin/env bash
# One H100: the build with rank_merge_keys 65536 (the default): every GPU test binary, and
# memcheck / racecheck of the sorts its new bound adds (24576 and 49152 uint32, 24576 uint64).
set -u
R=/tmp/res; rm -rf $R; mkdir -p /tmp/w $R/checks
fin() { cd /tmp && tar -czf $OUT/res.tgz res; }
trap fin EXIT
xz -dc .devcarry/new.tar.xz | tar -C /tmp/w -xf -
export LD_LIBRARY_PATH=/tmp/w/lib
b=/tmp/w/bin; L=$R/checks
nvidia-smi -L > $R/gpu.txt
t0=$(date +%s); el() { echo "$1 at $(( $(date +%s) - t0 )) s"; }
for t in $(find $b -type f -name 'test_*_gpu' | sort); do n=$(basename $t)
  case $n in test_pairs_gpu|test_pipeline_gpu) continue;; esac
  (WARPSORT_LARGE_TESTS=1 timeout 200 $t > $L/$n.log 2>&1; echo "rc=$?" >> $L/$n.log) &
done
(mkdir -p /tmp/cf; WARPSORT_CLI_BINARY=$b/warpsort WARPSORT_CLI_TEST_DIR=/tmp/cf timeout 200 $b/test_cli_process --gtest_filter='-*WithoutAGpu*' > $L/test_cli_process.log 2>&1; echo "rc=$?" >> $L/test_cli_process.log) &
wait
for n in test_pairs_gpu test_pipeline_gpu; do
  (WARPSORT_LARGE_TESTS=1 timeout 200 $b/$n > $L/$n.log 2>&1; echo "rc=$?" >> $L/$n.log)
done
el tests
for c in "uint32 24576" "uint32 49152" "uint64 24576"; do set -- $c
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 90 $b/warpsort sort --n $2 --type $1 --dist uniform > $L/memcheck_sort_$1_$2.log 2>&1; echo "rc=$?" >> $L/memcheck_sort_$1_$2.log
done
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 90 $b/warpsort sort --n 49152 --type uint32 --dist uniform > $L/racecheck_sort_uint32_49152.log 2>&1; echo "rc=$?" >> $L/racecheck_sort_uint32_49152.log
el sanitizers
for f in $L/*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(grep -cE '^\[  SKIPPED \] [A-Za-z]' $f) skipped; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f) $(tail -n 1 $f)"; done

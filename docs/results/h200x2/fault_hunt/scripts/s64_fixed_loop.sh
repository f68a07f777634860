#!/usr/bin/env bash
# the CUB merge-sort fix: (1) the thread-transport loop that faulted 44 runs in 70 (s63), now on the
# fixed build; (2) the new regression test, fixed against a deliberately broken build (public
# cub::DeviceMergeSort, dependent launch); (3) both test binaries whole
rm -rf /tmp/g && mkdir -p /tmp/g && xz -dc .devcarry/fixA/pack.tar.xz | tar -C /tmp/g -xf -
export LD_LIBRARY_PATH=/tmp/g/lib NCCL_NVLS_ENABLE=0
R=/tmp/res; rm -rf $R; mkdir -p $R/cores; trap 'tar -C /tmp -czf $OUT/res.tgz res' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_GENERATION_FLAGS='skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_local_memory,skip_constbank_memory'
END=$(( $(date +%s) + ${SECS:-180} ))
loop() {
  local i=0
  while [ $(date +%s) -lt $END ]; do i=$((i+1))
    CUDA_COREDUMP_FILE=$R/cores/core_$1_$i timeout 90 /tmp/g/bin/test_distributed_gpu --gtest_filter='DistributedKeys/4*:DistributedKeys/5*:DistributedFuzz.*' > $R/s$1_$i.log 2>&1
    rc=$?; echo "slot $1 rc $rc" >> $R/rc.txt; [ $rc -eq 0 ] && rm $R/s$1_$i.log
  done; }
loop 0 & loop 1 & loop 2 & loop 3 & wait
echo "== (1) loop, fixed build:"; sed 's/slot [0-9]/slot/' $R/rc.txt | sort | uniq -c; ls $R/cores | head
echo "== (2) regression test, broken vs fixed:"
for i in 1 2 3 4 5; do
  for b in broken fixed; do
    bin=/tmp/g/bin/test_streams_gpu; [ $b = broken ] && bin=/tmp/g/bin/test_streams_gpu_broken
    CUDA_COREDUMP_FILE=$R/cores/streams_${b}_$i timeout 60 $bin --gtest_filter='*MergeSortsOfManyThreads*' > $R/streams_${b}_$i.log 2>&1
    echo "$b run $i rc $? $(grep -h -m1 -E 'wrong order|illegal|Failure|cuda' $R/streams_${b}_$i.log | cut -c1-160)"
  done
done
echo "== (3) whole binaries (fixed):"
timeout 120 /tmp/g/bin/test_streams_gpu > $R/streams_whole.log 2>&1; echo "test_streams_gpu rc $? $(grep -E '^\[  (PASSED|FAILED)' $R/streams_whole.log | tr '\n' ' ')"
timeout 200 /tmp/g/bin/test_distributed_gpu > $R/dist_whole.log 2>&1; echo "test_distributed_gpu rc $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $R/dist_whole.log | tr '\n' ' ')"
ls $R/cores | wc -l

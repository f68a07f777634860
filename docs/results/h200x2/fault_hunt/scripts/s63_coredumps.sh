#!/usr/bin/env bash
# the test transport's fault: which kernel faults (GPU coredumps on exception, read by cuda-gdb);
# three plain loops and one with CUDA_LAUNCH_BLOCKING=1, side by side on one GPU
rm -rf /tmp/g && mkdir -p /tmp/g && xz -dc .devcarry/gpuA/gpu.tar.xz | tar -C /tmp/g -xf -
export LD_LIBRARY_PATH=/tmp/g/lib NCCL_NVLS_ENABLE=0
R=/tmp/res; rm -rf $R; mkdir -p $R/cores; trap 'tar -C /tmp -czf $OUT/res.tgz res' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; which cuda-gdb compute-sanitizer; ls /usr/local/cuda*/bin/cuda-gdb 2>/dev/null
export CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_GENERATION_FLAGS='skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_local_memory,skip_constbank_memory'
END=$(( $(date +%s) + ${SECS:-240} ))
loop() { # slot blocking
  local i=0
  while [ $(date +%s) -lt $END ]; do i=$((i+1))
    CUDA_LAUNCH_BLOCKING=$2 CUDA_COREDUMP_FILE=$R/cores/core_$1_$i timeout 90 /tmp/g/bin/test_distributed_gpu --gtest_filter='DistributedKeys/4*:DistributedKeys/5*:DistributedFuzz.*' > $R/s$1_$i.log 2>&1
    rc=$?; echo "slot $1 blocking $2 rc $rc" >> $R/rc.txt; [ $rc -eq 0 ] && rm $R/s$1_$i.log
  done; }
loop 0 0 & loop 1 0 & loop 2 0 & loop 3 1 & wait
sort $R/rc.txt | uniq -c
ls -la $R/cores | head
GDB=$(which cuda-gdb || ls /usr/local/cuda*/bin/cuda-gdb | head -1)
for c in $R/cores/core_*; do [ -f "$c" ] || continue
  echo "=== $c"; timeout 60 $GDB -batch -ex "target cudacore $c" -ex "info cuda kernels" -ex "bt" -ex "info cuda warps" -ex 'x/6i $pc-32' -ex 'info registers' 2>&1 | head -80 > $c.txt; head -40 $c.txt
  rm -f "$c"
done

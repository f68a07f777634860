#!/usr/bin/env bash
# nvidia-h200-x4 (carry .devcarry/twocopy2 = main da18001's warpsort, and this): the largest total
# four H200s hold (2^37 = 32 Gi keys a GPU, the most two held a GPU), and where the receivers'
# merge on duplicate-heavy keys loses: one round (every merge after the exchange) against eight.
[ -x /tmp/g/bin/warpsort ] || { mkdir -p /tmp/g && xz -dc .devcarry/twocopy2/gpu.tar.xz | tar -C /tmp/g -xf -; }
export LD_LIBRARY_PATH=/tmp/g/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=/tmp/g/bin/warpsort; R=$OUT/r; mkdir -p $R
for gi in 128 124; do n=$(( gi * (1 << 30) ))
  timeout 150 $W dist --gpus 4 --sizes $n --device-generate --reps 1 --warmup 0 --no-baseline --out $R/largest4_${gi}gi > $R/largest4_${gi}gi.log 2>&1
  rc=$?; echo "4 GPUs n=${gi} Gi rc=$rc"; grep -v '^\[' $R/largest4_${gi}gi.log | tail -2 | cut -c1-400
  [ $rc -eq 0 ] && break
done
D=uniform,deterministic_duplicates,entropy_0.201,zero,randomized_duplicates,nearly_sorted
for parts in 1 8; do
  timeout 150 $W dist --gpus 4 --sizes 2^31 --dists $D --exchange-parts $parts --reps 3 --no-baseline --out $R/parts$parts > $R/parts$parts.log 2>&1
  echo "parts $parts rc $?"; grep '^dist' $R/parts$parts.log | sed 's/ | largest.*//' | cut -c1-300
done
tar -C $OUT -cJf $OUT/r.tar.xz r && rm -rf $R

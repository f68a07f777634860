#!/usr/bin/env bash
# nvidia-h200-x4: the exchange's rounds against distributions (2^31, four GPUs), each with its one-H200 sort
[ -x /tmp/g/bin/warpsort ] || { mkdir -p /tmp/g && xz -dc .devcarry/twocopy2/gpu.tar.xz | tar -C /tmp/g -xf -; }
export LD_LIBRARY_PATH=/tmp/g/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=/tmp/g/bin/warpsort; R=$OUT/r; mkdir -p $R
D=deterministic_duplicates,entropy_0.201,uniform
for parts in 2 4 16 8; do
  timeout 200 $W dist --gpus 4 --sizes 2^31 --dists $D --exchange-parts $parts --reps 5 --out $R/parts$parts > $R/parts$parts.log 2>&1
  echo "parts $parts rc $?"; grep '^dist' $R/parts$parts.log | sed 's/ | largest[^|]*//' | cut -c1-330
done
tar -C $OUT -cJf $OUT/r.tar.xz r && rm -rf $R

#!/usr/bin/env bash
# nvidia-h200-x2 (carry .devcarry/twocopy2 = main da18001's warpsort, and this): issue 32's last item on
# the two-H200 kind itself: the largest total two H200s hold (33 Gi keys refused, 32 Gi sorted), validated.
rm -rf /tmp/g && mkdir -p /tmp/g && xz -dc .devcarry/twocopy2/gpu.tar.xz | tar -C /tmp/g -xf -
export LD_LIBRARY_PATH=/tmp/g/lib NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,memory.total,memory.free,driver_version --format=csv,noheader | tee $R/gpus.txt; nvidia-smi topo -m > $R/topo.txt
for gi in 33 32; do n=$(( gi * (1 << 30) ))
  timeout 150 /tmp/g/bin/warpsort dist --gpus 2 --sizes $n --device-generate --reps 2 --warmup 0 --no-baseline --out $R/largest_${gi}gi > $R/largest_${gi}gi.log 2>&1
  echo "2 GPUs n=${gi} Gi rc=$?"; grep -v '^\[' $R/largest_${gi}gi.log | tail -3 | cut -c1-400
done
tar -C $OUT -cJf $OUT/r.tar.xz r && rm -rf $R

#!/usr/bin/env bash
# The distributed sort's committed runs (docs/distributed.md), for a machine of G GPUs with the
# packed binaries (scripts/pack_gpu_binaries.sh) unpacked in W:
#   scripts/dist_runs.sh W OUT_DIR [G]
# 1. every distribution at 2^24, 2^28 and 2^31 keys in total (the small totals and the 1.8x
#    target), with the single-GPU sort of the same total in the same run;
# 2. the largest total the GPUs hold, generated on the GPUs (2^34 and up on two H200s);
# 3. the figures. NCCL_NVLS_ENABLE=0 in every process (the launcher sets it for its ranks too).
set -euo pipefail
w=$1
out=$2
gpus=${3:-$(nvidia-smi -L | wc -l)}
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH="$w/lib:${LD_LIBRARY_PATH:-}"
mkdir -p "$out"
"$w/bin/warpsort" dist --gpus "$gpus" --sizes 2^24,2^28,2^31 --dists all --reps 5 \
  --out "$out/sweep" | tee "$out/sweep.log"
"$w/bin/warpsort" dist --gpus 1 --sizes 2^24,2^28,2^31 --dists uniform --reps 5 \
  --out "$out/one_gpu" | tee "$out/one_gpu.log"
huge=$(( 1 << 33 ))  # 2^33 keys a GPU: 2^34 on two
"$w/bin/warpsort" dist --gpus "$gpus" --sizes "$(( huge * gpus ))" --dists uniform \
  --device-generate --reps 1 --warmup 0 --no-baseline --out "$out/largest" | tee "$out/largest.log"
python3 "$(dirname "$0")/plot_dist.py" --csv "$out/one_gpu/dist.csv" --csv "$out/sweep/dist.csv" \
  --out "$out"

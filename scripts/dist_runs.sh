#!/usr/bin/env bash
# The distributed sort's committed runs (docs/distributed.md, docs/results/h200x2/), for a
# machine of G GPUs with the packed binaries (scripts/pack_gpu_binaries.sh) unpacked in W:
#   scripts/dist_runs.sh W OUT_DIR [G] [STAGE ...]
# Stages (default: all, in this order):
#   small    every distribution at 2^24 and 2^28 keys in total, with the single-GPU sort of the
#            same total in the same run;
#   curve    uniform uint32 from 2^20 to 2^31 (the crossover against one GPU), then the same
#            to 2^28 with a blocking communicator (WARPSORT_NCCL_BLOCKING=1: what the
#            non-blocking one, which lets every wait have a deadline, costs);
#   large    2^31 on ten distributions, uint64 and float64 at 2^30, float32 at 2^31, float32
#            descending rebalanced at 2^31;
#   pairs    uint32 keys with uint32 and with uint64 values (their input indices; stability
#            checked across ranks) at 2^28 and 2^30 pairs, against one GPU's sort_pairs;
#   largest  2^33 keys a GPU generated on the GPUs (2^34 on two), two validated runs after a
#            warm-up (the first call maps its memory and connects NCCL's peers).
#   local    the same layer over CUB's radix and merge sorts as the local sort (--local), keys at
#            2^28 and 2^31 and uint32 pairs at 2^30, each against the same CUB sort on one GPU;
#   lastround  the local sort's last round run during the exchange (--last-round bucketed)
#            against the default (local), uniform uint32 from 2^26 to 2^31 (2 GPUs) or 2^32
#            (more), both in the same session (docs/results/h200x4/bucketed/);
#   exchange the keys copied straight into the peers' arenas (the default: copy engines, small
#            pieces by one kernel a round), by copy engines only, and by NCCL's send and receive,
#            uniform uint32 from 2^20 (30 runs a size to 2^26) to 2^31 (2 GPUs) or 2^32 (more);
#   gather   small totals: the gathered path (--gather always: every rank's keys to every rank,
#            each merging its slice) against the exchange (--gather never) and the default's
#            choice, uniform uint32 from 2^20 to 2^28 on 2 ... G GPUs (1 GPU's sort beside each);
#            the gathered path's local sort in 1, 2 and 4 ranges, each sent while the next sorts
#            (--gather-pieces); its copies by kernel and by copy engines, and its merge over
#            fewer runs (--merge-runs), at 2^22 and 2^24 on G GPUs;
#   network  uint32 uniform at 2^28 and 2^31 with NCCL's network transport (NCCL_P2P_DISABLE=1
#            NCCL_SHM_DISABLE=1: every peer as if on another node), then scripts/dist_model.py
#            network: each phase beside the model's for that link, and its figure
#            (plot_dist.py --network, OUT_DIR/network/figures) (not in the default list).
#   strong   strong scaling: uniform uint32 at 2^31 and 2^33 keys in total on 1, 2, 3 and 4 GPUs
#            (at most G) into OUT_DIR/strong_g1 ... strong_g4, each run with its own single-GPU
#            sort of the same total (every speed-up against a baseline of its own session; 2^33
#            uint32 keys, 32 GiB, fit one H200) (not in the default list);
#   weak     weak scaling: uniform uint32 at 2^29 keys a GPU on 1 ... G GPUs into
#            OUT_DIR/weak_g1 ... weak_gG (not in the default list).
# Figures: scripts/plot_dist.py over OUT_DIR/curve/dist.csv, and scripts/plot_dist.py --scaling
# OUT_DIR over strong_g*/ and weak_g*/ (where matplotlib is).
# NCCL_NVLS_ENABLE=0 in every process (the launcher sets it for its ranks too).
set -euo pipefail
w=$1
out=$2
gpus=${3:-$(nvidia-smi -L | wc -l)}
shift $(( $# < 3 ? $# : 3 ))
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(small curve large pairs local exchange largest)
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH="$w/lib:${LD_LIBRARY_PATH:-}"
mkdir -p "$out"
dist_on() {  # G NAME ARGS...: one `warpsort dist` run on G GPUs into OUT/NAME
  local on=$1 name=$2
  shift 2
  "$w/bin/warpsort" dist --gpus "$on" --out "$out/$name" "$@" 2>&1 | tee "$out/$name.log"
}
dist() {  # NAME ARGS...: one `warpsort dist` run on the G GPUs into OUT/NAME
  dist_on "$gpus" "$@"
}
for stage in "${stages[@]}"; do
  case $stage in
    small) dist small --sizes 2^24,2^28 --dists all --reps 5 ;;
    curve)
      dist curve --sizes 2^20,2^22,2^24,2^25,2^26,2^27,2^28,2^30,2^31 --reps 5
      WARPSORT_NCCL_BLOCKING=1 dist curve_blocking --sizes 2^20,2^22,2^24,2^25,2^26,2^28 --reps 5
      ;;
    large)
      dist large --sizes 2^31 --reps 3 --dists uniform,gaussian,zero,sorted,reverse_sorted,nearly_sorted,staggered,deterministic_duplicates,randomized_duplicates,entropy_0.201
      dist uint64 --type uint64 --sizes 2^30 --reps 3
      dist float64 --type float64 --sizes 2^30 --reps 3
      dist float32 --type float32 --sizes 2^31 --reps 3
      dist float32_rebalanced --type float32 --descending --rebalance --sizes 2^31 --reps 3
      ;;
    pairs)
      dist pairs --values uint32 --sizes 2^28,2^30 --reps 3
      dist pairs_uint64 --values uint64 --sizes 2^28,2^30 --reps 3
      ;;
    local)
      for local in cub_radix cub_merge; do
        dist "local_$local" --local "$local" --sizes 2^28,2^31 --reps 3
        dist "local_${local}_pairs" --local "$local" --values uint32 --sizes 2^30 --reps 3
      done
      ;;
    lastround)
      top=$([ "$gpus" -gt 2 ] && echo 2^32 || echo 2^31)
      dist last_round_bucketed --last-round bucketed --sizes "2^26,2^28,2^30,$top" --reps 5
      dist last_round_local --last-round local --sizes "2^26,2^28,2^30,$top" --reps 5 --no-baseline
      ;;
    exchange)
      # the keys copied straight into the peers' arenas (the default: copy engines, small pieces
      # by one kernel a round), by copy engines only, and by NCCL's send and receive (--exchange
      # nccl), uniform uint32, all in the same session; the small totals (the crossover against
      # one GPU) with more runs
      top=$([ "$gpus" -gt 2 ] && echo 2^32 || echo 2^31)
      for way in auto copy_engines nccl; do
        base=$([ "$way" = auto ] || echo --no-baseline)
        dist "exchange_${way}_small" --exchange "$way" --sizes 2^20,2^22,2^23,2^24,2^25,2^26 \
          --reps 30 --warmup 3 $base
        dist "exchange_${way}" --exchange "$way" --sizes "2^28,2^30,$top" --reps 5 $base
      done
      ;;
    gather)
      for (( g = 2; g <= gpus; ++g )); do
        for way in auto always never; do
          dist_on "$g" "gather_${way}_g$g" --gather "$way" \
            --sizes 2^20,2^22,2^23,2^24,2^25,2^26,2^27,2^28 --reps 10 --warmup 2
        done
        for k in 1 2 4; do
          dist_on "$g" "gather_pieces${k}_g$g" --gather always --gather-pieces "$k" \
            --sizes 2^22,2^23,2^24,2^25,2^26,2^27,2^28 --reps 10 --warmup 2
        done
      done
      for variant in "--exchange sm_copies" "--exchange copy_engines" "--merge-runs 16" "--merge-runs 32"; do
        name=$(echo "$variant" | tr -d '-' | tr ' ' '_')  # exchange_sm_copies, mergeruns_16, ...
        dist "gather_$name" --gather always $variant --sizes 2^22,2^24 --reps 10 --warmup 2
      done
      ;;
    network)
      NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 dist network --sizes 2^28,2^31 --reps 3
      python3 "$(dirname "$0")/dist_model.py" network "$out/network/dist.csv" | tee "$out/network_model.md"
      python3 "$(dirname "$0")/plot_dist.py" --network "$out/network/dist.csv" --out "$out/network/figures"
      ;;
    largest)
      dist largest --sizes "$(( (1 << 33) * gpus ))" --device-generate --reps 2 --warmup 1 \
        --no-baseline
      ;;
    strong)
      # the same totals on 1 ... min(G, 4) GPUs, each with its own single-GPU baseline
      for (( g = 1; g <= (gpus < 4 ? gpus : 4); ++g )); do
        dist_on "$g" "strong_g$g" --sizes 2^31,2^33 --reps 3
      done
      ;;
    weak)
      # 2^29 keys a GPU on 1 ... G GPUs (the single-GPU sort of each total beside it)
      for (( g = 1; g <= gpus; ++g )); do
        dist_on "$g" "weak_g$g" --sizes "$(( (1 << 29) * g ))" --reps 5
      done
      ;;
    *) echo "dist_runs.sh: unknown stage $stage" >&2; exit 2 ;;
  esac
done

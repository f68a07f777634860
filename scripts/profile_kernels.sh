#!/usr/bin/env bash
# Per-kernel profile (Nsight Compute) of one sort of N uniform uint32 keys by the textbook
# bitonic sort (seed reports 000 and 003) and by warpsort, then the table of
# scripts/summarize_profile.py. Needs a GPU, ncu and a built `warpsort` binary.
#   scripts/profile_kernels.sh [OUT_DIR] [N]     (defaults: docs/results/h100/profile, 2^24)
# Environment: W (the binary, default build/src/cli/warpsort), NCU (default ncu).
# Clocks are left as the GPU runs them (--clock-control none), as in docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/results/h100/profile}
n=${2:-2^24}
W=${W:-build/src/cli/warpsort}
NCU=${NCU:-ncu}
command -v "$NCU" >/dev/null || { echo "profile_kernels.sh: '$NCU' not found (set NCU)" >&2; exit 1; }
[ -x "$W" ] || { echo "profile_kernels.sh: no binary at $W (run scripts/build.sh)" >&2; exit 1; }

# achieved occupancy, the two Nsight "speed of light" throughputs, DRAM, threads per executed
# instruction (warp execution efficiency x 32), warp instructions, time
metrics=gpu__time_duration.sum
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,smsp__thread_inst_executed_per_inst_executed.ratio
metrics+=,smsp__inst_executed.sum

mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/warpsort_profile.XXXXXX")
trap 'rm -rf "$work"' EXIT
profile() {  # profile NAME KERNEL_REGEX [NCU OPTIONS] COMMAND...
  local name=$1 regex=$2
  shift 2
  local opts=()
  while [ "${1:-}" != "${1#--}" ]; do opts+=("$1" "$2"); shift 2; done
  "$NCU" --clock-control none --print-kernel-base function --print-units base --page raw --csv \
    --metrics "$metrics" -k "regex:$regex" "${opts[@]}" --log-file "$out/$name.csv" "$@" \
    >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log" >&2; exit 1; }
}
# The textbook sort: `bench` with no warm-up and one timed run sorts once; the kernel filter
# leaves out the CUB baselines and the validation.
profile bitonic_textbook 'tile_sort_kernel|tile_merge_kernel|global_step_kernel|fill_kernel' \
  "$W" bench --algos bitonic_textbook --sizes "$n" --dists uniform --types uint32 --reps 1 \
  --warmup 0 --no-e2e --quiet --out "$work/bench"
# `warpsort sort` brackets one sort (its step-timed run) with cudaProfilerStart/Stop: with
# --profile-from-start off only that sort's kernels are profiled (step 3's CUB sample sort
# included, the validation's thrust::sort left out).
profile warpsort '.*' --profile-from-start off \
  "$W" sort --dist uniform --n "$n" --reps 1 --warmup 0
python3 scripts/summarize_profile.py --n "$n" --out "$out/profile.md" \
  "$out/bitonic_textbook.csv" "$out/warpsort.csv"
cat "$out/profile.md"

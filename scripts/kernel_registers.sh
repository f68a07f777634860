#!/usr/bin/env bash
# Registers and spills of version 5's on-chip kernels (step 1's sort_blocks_by_threads, step 4's
# merge_set_groups), as the build compiles them: with its own flags, since a compile without
# -DNDEBUG reported 3 registers fewer than the build. The budget that matters (docs/performance.md):
# step 4 runs 576 threads a block for uint32 at the default C = 16384, and two blocks an SM need
# at most 56 registers a thread. Needs a configured build/ (each step's compile flags) and nvcc;
# no GPU.
#   scripts/kernel_registers.sh [KEY ...]   (default: uint32_t uint64_t; the pairs sort as uint64 words)
# Prints one line a kernel, ascending order only.
set -euo pipefail
cd "$(dirname "$0")/../build/src/stages" 2>/dev/null ||
  { echo "kernel_registers.sh: no build/src/stages (run scripts/build.sh)" >&2; exit 1; }
keys=("$@")
[ ${#keys[@]} -gt 0 ] || keys=(uint32_t uint64_t)
work=$(mktemp -d "${TMPDIR:-/tmp}/warpsort_regs.XXXXXX")
trap 'rm -rf "$work"' EXIT
for key in "${keys[@]}"; do
  for step in sort_chunks merge_groups; do
    # each step's unit is compiled once per key type (src/stages/CMakeLists.txt): its own flags
    target_dir=CMakeFiles/warpsort_step_${step}_${key}.dir
    [ -f "$target_dir/flags.make" ] || { echo "kernel_registers.sh: no $target_dir (a key type of the build?)" >&2; exit 1; }
    flag() { sed -n "s/^$1 = //p" "$target_dir/flags.make"; }
    read -r -a cuda_flags <<<"$(flag CUDA_FLAGS) $(flag CUDA_DEFINES) $(flag CUDA_INCLUDES)"
    "${NVCC:-nvcc}" "${cuda_flags[@]}" -c -Xptxas=-v -o "$work/k.o" "../../../src/stages/${step}.cu" \
      > "$work/ptxas.txt" 2>&1 || { cat "$work/ptxas.txt" >&2; exit 1; }
    # ptxas prints "Compiling entry function 'NAME'", then "... N bytes spill stores ...", then
    # "Used R registers"; keep version 5's kernels in the ascending order
    awk -v key="$key" '
      /Compiling entry function/ { name = $0; spill = ""; next }
      /bytes spill stores/ && name != "" { spill = $5 "+" $9 }
      /Used [0-9]+ registers/ && name != "" {
        if (name ~ /(sort_blocks_by_threads|merge_set_groups)_kernel/ && name !~ /greater/) {
          kernel = name ~ /sort_blocks_by_threads/ ? "sort_blocks_by_threads" : "merge_set_groups"
          match($0, /Used [0-9]+ registers/)
          regs = substr($0, RSTART + 5, RLENGTH - 15)
          printf "%-16s %-24s %3d registers, spill stores+loads %s bytes\n", key, kernel, regs, spill
        }
        name = ""
      }' "$work/ptxas.txt"
  done
done

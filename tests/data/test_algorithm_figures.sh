#!/usr/bin/env bash
# CTest: scripts/draw_algorithm_figures.py writes its algorithm diagrams.
#   test_algorithm_figures.sh DRAW_SCRIPT [PYTHON_FOUND_BY_CMAKE]
# Uses the first interpreter that can import matplotlib and numpy: /usr/bin/python3 (Debian's,
# with python3-matplotlib), then the one CMake found, then python3 on PATH. Fails, rather than
# skipping, when none can. The script checks its own simulations (sorted outputs, group bounds)
# and exits with an error if one is wrong.
set -u
script=$1
cmake_python=${2:-}

source "$(dirname "$0")/find_python.sh"
find_python "matplotlib, numpy" "python3-matplotlib python3-numpy" "$cmake_python"

out=$(mktemp -d "${TMPDIR:-/tmp}/warpsort_algfig.XXXXXX")
trap 'rm -rf "$out"' EXIT

if ! "$py" "$script" --out "$out"; then
  echo "FAIL: draw_algorithm_figures.py exited with an error"
  exit 1
fi

status=0
for f in step1_bitonic_chunk.png step2_merge_buffer.png step2_merge_tiles.png step3_splitting.png step4_final_merge.png; do
  if is_png "$out/$f"; then
    echo "ok: $f ($(wc -c <"$out/$f") bytes)"
  else
    echo "FAIL: $out/$f missing, empty or not a PNG"
    status=1
  fi
done
[ $status -eq 0 ] && echo "PASS"
exit $status

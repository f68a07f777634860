#!/usr/bin/env bash
# CTest: scripts/plot_ablation.py redraws the ablation figure from the committed CSV, and the
# committed table (docs/results/h100/ablation/table.md, which docs/results.md quotes) is what
# that CSV gives.
#   test_plot_ablation.sh PLOT_SCRIPT ABLATION_DIR [PYTHON_FOUND_BY_CMAKE]
# Uses the first interpreter that can import pandas and matplotlib (find_python.sh); fails,
# rather than skipping, when none can (as the other figure tests).
set -u
source "$(dirname "$0")/find_python.sh"
find_python "pandas, matplotlib" "python3-pandas python3-matplotlib" "${3:-}"
make_scratch ablation
script=$1 dir=$2 status=0

if ! "$py" "$script" --csv "$dir/bench.csv" --out "$out" --table "$out/table.md"; then
  echo "FAIL: plot_ablation.py exited with an error on $dir/bench.csv"
  exit 1
fi
if is_png "$out/ablation.png"; then
  echo "ok: ablation.png ($(wc -c <"$out/ablation.png") bytes)"
else
  echo "FAIL: ablation.png missing, empty or not a PNG"
  status=1
fi
if diff -u "$dir/table.md" "$out/table.md"; then
  echo "ok: the committed table.md is what bench.csv gives"
else
  echo "FAIL: $dir/table.md differs from the table bench.csv gives (regenerate it with --table)"
  status=1
fi

# A row that failed validation is refused: the figure shows validated runs only.
sed '2s/,true$/,false/' "$dir/bench.csv" >"$out/bad.csv"
if "$py" "$script" --csv "$out/bad.csv" --out "$out/bad" >/dev/null 2>&1; then
  echo "FAIL: a CSV with a row that failed validation was accepted"
  status=1
fi

[ $status -eq 0 ] && echo "PASS"
exit $status

#!/usr/bin/env bash
# CTest: docs/results/h100/tables.md is what scripts/results_tables.py prints from the committed
# CSVs (so every table in the write-up comes from a committed script and committed results).
#   test_results_tables.sh SCRIPT RESULTS_DIR [PYTHON_FOUND_BY_CMAKE]
set -u
script=$1
dir=$2
py=${3:-}
[ -n "$py" ] && "$py" -c 'import csv' 2>/dev/null || py=python3
got=$(mktemp "${TMPDIR:-/tmp}/warpsort_tables.XXXXXX")
trap 'rm -f "$got"' EXIT
if ! "$py" "$script" --results "$dir" >"$got"; then
  echo "FAIL: results_tables.py exited with an error on $dir"
  exit 1
fi
if ! diff -u "$dir/tables.md" "$got"; then
  echo "FAIL: $dir/tables.md is not what results_tables.py prints (regenerate it)"
  exit 1
fi
echo "PASS: $dir/tables.md matches the committed CSVs"

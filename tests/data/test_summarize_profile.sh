#!/usr/bin/env bash
# CTest: scripts/summarize_profile.py rebuilds the committed kernel-profile table
# (docs/results/h100/profile/profile.md) from the committed ncu CSVs, and refuses bad input.
#   test_summarize_profile.sh SCRIPT PROFILE_DIR [PYTHON_FOUND_BY_CMAKE]
# Standard library only: any python3 will do.
set -u
script=$1
dir=$2
py=${3:-}
[ -n "$py" ] && "$py" -c 'import csv' 2>/dev/null || py=python3
out=$(mktemp -d "${TMPDIR:-/tmp}/warpsort_profile_test.XXXXXX")
trap 'rm -rf "$out"' EXIT
status=0
n=$(sed -n 's/.*one sort of n = \([^ ]*\) .*/\1/p' "$dir/profile.md" | head -1)
if ! "$py" "$script" --n "$n" --out "$out/profile.md" "$dir/bitonic_textbook.csv" "$dir/warpsort.csv"; then
  echo "FAIL: summarize_profile.py exited with an error on the committed profiles"
  exit 1
fi
if diff -u "$dir/profile.md" "$out/profile.md"; then
  echo "ok: the committed table is what the committed profiles give (n = $n)"
else
  echo "FAIL: docs/results/h100/profile/profile.md differs from the table its CSVs give"
  status=1
fi
printf 'not,an,ncu,file\n1,2,3,4\n' >"$out/bad.csv"
if "$py" "$script" --n 1024 --out "$out/bad.md" "$out/bad.csv" 2>/dev/null; then
  echo "FAIL: a CSV without ncu's header was accepted"
  status=1
fi
[ $status -eq 0 ] && echo "PASS"
exit $status

#!/usr/bin/env bash
# CTest: scripts/plot_results.py draws key_types.png from the committed key-type and pairs
# results (docs/results/h100/key_types/bench.csv), and skips it, with a note, for one key type.
#   test_plot_key_types.sh PLOT_SCRIPT KEY_TYPES_CSV ONE_TYPE_CSV [PYTHON_FOUND_BY_CMAKE]
set -u
script=$1
csv=$2
one=$3
source "$(dirname "$0")/find_python.sh"
find_python "pandas, matplotlib" "python3-pandas python3-matplotlib" "${4:-}"
out=$(mktemp -d "${TMPDIR:-/tmp}/warpsort_keytypes.XXXXXX")
trap 'rm -rf "$out"' EXIT
status=0
if ! "$py" "$script" --csv "$csv" --out "$out/kt" >/dev/null ||
   [ "$(head -c 8 "$out/kt/key_types.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
  echo "FAIL: no key_types.png from $csv"
  status=1
else
  echo "ok: key_types.png ($(wc -c <"$out/kt/key_types.png") bytes)"
fi
log=$("$py" "$script" --csv "$one" --out "$out/one")
if [ -e "$out/one/key_types.png" ] || ! echo "$log" | grep -q "skipping key_types.png"; then
  echo "FAIL: a CSV of one key type should skip key_types.png with a note"
  status=1
fi
[ $status -eq 0 ] && echo "PASS"
exit $status

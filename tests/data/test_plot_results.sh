#!/usr/bin/env bash
# CTest: scripts/plot_results.py on a small benchmark CSV writes every figure.
#   test_plot_results.sh PLOT_SCRIPT CSV [PYTHON_FOUND_BY_CMAKE]
# Uses the first interpreter that can import pandas and matplotlib: /usr/bin/python3 (Debian's,
# with python3-pandas and python3-matplotlib), then the one CMake found, then python3 on PATH.
# Fails, rather than skipping, when none can.
set -u
script=$1
csv=$2
cmake_python=${3:-}

source "$(dirname "$0")/find_python.sh"
find_python "pandas, matplotlib" "python3-pandas python3-matplotlib" "$cmake_python"

out=$(mktemp -d "${TMPDIR:-/tmp}/warpsort_plot.XXXXXX")
trap 'rm -rf "$out"' EXIT
status=0

# 1. The full fixture: all six figures.
if ! "$py" "$script" --csv "$csv" --out "$out/all"; then
  echo "FAIL: plot_results.py exited with an error on $csv"
  exit 1
fi
for f in throughput.png throughput_uniform.png steps.png ratio.png speedup_cpu.png end_to_end.png; do
  if is_png "$out/all/$f"; then
    echo "ok: $f ($(wc -c <"$out/all/$f") bytes)"
  else
    echo "FAIL: $out/all/$f missing, empty or not a PNG"
    status=1
  fi
done

# 2. --key-type selects rows; an absent key type is an error.
if ! "$py" "$script" --csv "$csv" --out "$out/kt" --key-type uint32 >/dev/null; then
  echo "FAIL: --key-type uint32 failed"
  status=1
fi
if "$py" "$script" --csv "$csv" --out "$out/none" --key-type float64 >/dev/null 2>&1; then
  echo "FAIL: --key-type float64 (absent from the CSV) did not fail"
  status=1
fi

# 3. Missing data: CPU rows only. Figures without data are skipped with a note, not an error.
head -n 1 "$csv" >"$out/cpu_only.csv"
grep ',cpu,' "$csv" >>"$out/cpu_only.csv"
log=$("$py" "$script" --csv "$out/cpu_only.csv" --out "$out/cpu")
rc=$?
echo "$log" | sed 's/^/  cpu-only: /'
if [ $rc -ne 0 ] || ! is_png "$out/cpu/throughput.png" || [ -e "$out/cpu/steps.png" ] ||
   [ -e "$out/cpu/speedup_cpu.png" ] || [ -e "$out/cpu/end_to_end.png" ] ||
   ! echo "$log" | grep -q "skipping steps.png"; then
  echo "FAIL: a CSV without GPU rows should give throughput figures and skip the others"
  status=1
fi

# 4. A CSV missing columns is refused.
printf 'algorithm,n\nwarpsort,1024\n' >"$out/bad.csv"
if "$py" "$script" --csv "$out/bad.csv" --out "$out/bad" >/dev/null 2>&1; then
  echo "FAIL: a CSV without the benchmark columns was accepted"
  status=1
fi

[ $status -eq 0 ] && echo "PASS"
exit $status

#!/usr/bin/env bash
# CTest: scripts/plot_dist.py draws both figures from a `warpsort dist` CSV, and refuses a CSV
# that is not one or that holds an invalid row; --scaling draws the strong and weak scaling
# figures from per-GPU-count directories; --network the network runs beside the model.
#   test_plot_dist.sh PLOT_SCRIPT CSV [PYTHON_FOUND_BY_CMAKE]
set -u
source "$(dirname "$0")/find_python.sh"
find_python "pandas, matplotlib" "python3-pandas python3-matplotlib" "${3:-}"
make_scratch plot_dist
script=$1 csv=$2 status=0
if ! "$py" "$script" --csv "$csv" --out "$out/all"; then echo "FAIL: plot_dist.py failed on $csv"; exit 1; fi
for f in dist_throughput.png dist_phases.png dist_time.png; do
  if is_png "$out/all/$f"; then echo "ok: $f"; else echo "FAIL: $f missing or not a PNG"; status=1; fi
done
# the network runs beside the model (the committed four-H200 run)
network="$(dirname "$script")/../docs/results/h200x4/network/network.csv"
if "$py" "$script" --network "$network" --out "$out/net" >/dev/null && is_png "$out/net/dist_network_model.png"; then
  echo "ok: dist_network_model.png"
else
  echo "FAIL: --network drew no dist_network_model.png from $network"; status=1
fi
if "$py" "$script" --network "$csv" --out "$out/net1" >/dev/null 2>&1; then
  echo "FAIL: --network drew a CSV without two runs that timed NCCL's all-to-all"; status=1
fi
sed 's/,true$/,false/' "$csv" > "$out/invalid.csv"
if "$py" "$script" --csv "$out/invalid.csv" --out "$out/inv" >/dev/null 2>&1; then
  echo "FAIL: a CSV with invalid rows was drawn"; status=1
fi
printf 'gpus,n\n1,1024\n' > "$out/bad.csv"
if "$py" "$script" --csv "$out/bad.csv" --out "$out/bad" >/dev/null 2>&1; then
  echo "FAIL: a CSV without the dist columns was accepted"; status=1
fi
# --scaling: strong_g*/ and weak_g*/ of `dist_runs.sh W OUT G strong weak`, faked from the CSV
for kind in strong weak; do
  for g in 1 2; do
    mkdir -p "$out/scaling/${kind}_g$g"
    sed "2,\$s/^1,/$g,/" "$csv" > "$out/scaling/${kind}_g$g/dist.csv"
  done
done
if ! "$py" "$script" --scaling "$out/scaling" --out "$out/scaling_fig" >/dev/null; then
  echo "FAIL: plot_dist.py --scaling failed"; status=1
fi
for f in dist_strong_scaling.png dist_weak_scaling.png; do
  if is_png "$out/scaling_fig/$f"; then echo "ok: $f"; else echo "FAIL: $f missing or not a PNG"; status=1; fi
done
[ $status -eq 0 ] && echo "PASS"
exit $status

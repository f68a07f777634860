#!/usr/bin/env python3
"""The CSVs of this directory, rebuilt from the runs' logs: the device returned the logs but
not the CSVs (too many files under $OUT for one call), and the machine was gone after it.
Every field is the value the run printed (3 decimals); columns the log does not print are left out.
Run here: python3 from_logs.py (writes strong_g*/dist.csv and weak_g*/dist.csv)."""
import csv
import glob
import os
import re

LINE = re.compile(
    r"dist (\d+) GPUs (\S+) (\S+) n=(\d+): ([\d.]+) ms \(([\d.]+) Gkeys/s\) \| local ([\d.]+) "
    r"split ([\d.]+) exchange ([\d.]+) \((\d+) rounds, (\S+), ([\d.]+) GB/s a GPU; NCCL all-to-all "
    r"([\d.]+)\) merge ([\d.]+) rebalance ([\d.]+) \| largest/mean ([\d.]+) \| one GPU ([\d.]+) ms, "
    r"([\d.]+)x \| valid")
COLS = ["gpus", "type", "distribution", "n", "ms", "keys_per_s", "local_sort_ms", "splitters_ms",
        "exchange_ms", "exchange_rounds", "exchange", "exchange_gb_s_per_gpu",
        "nccl_alltoall_gb_s_per_gpu", "merge_ms", "rebalance_ms", "largest_over_mean_max",
        "single_gpu_ms", "speedup_vs_single_gpu", "validated"]

here = os.path.dirname(os.path.abspath(__file__))
for log in sorted(glob.glob(os.path.join(here, "*_g*.log"))):
    rows = []
    for line in open(log):
        m = LINE.search(line)
        if m:
            g = list(m.groups())
            g[5] = str(float(g[5]) * 1e9)  # Gkeys/s -> keys/s
            rows.append(dict(zip(COLS, g + ["true"])))
    os.makedirs(log[:-4], exist_ok=True)
    with open(os.path.join(log[:-4], "dist.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, COLS)
        w.writeheader()
        w.writerows(rows)
    print(os.path.basename(log[:-4]), len(rows), "rows")

#!/usr/bin/env python3
"""The ablation from the paper's Warp Sort to version 5: figure and table from a bench CSV.

    python3 scripts/plot_ablation.py --csv docs/results/h100/ablation/bench.csv \
        --out docs/results/h100/figures [--table docs/results/h100/ablation/table.md]

The CSV is `warpsort bench --variants paper,...`'s (one row per algorithm, key type,
distribution and n; the rungs are the algorithms warpsort@PRESET). Writes:
    OUT/ablation.png  Gkeys/s of every rung and of the baselines (cub_merge, cub_radix,
                      thrust_sort), one panel per (n, distribution), log scale
    TABLE             (with --table) the markdown table docs/results.md quotes: median ms of each
                      rung and baseline, and each rung's speed against cub_merge
Every row must be validated (the bench marks a failed check); a CSV missing a rung at some
(n, distribution) draws what it has. Needs pandas and matplotlib.
"""

import argparse
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

# The ladder's order (tuning.cpp's preset_names) and what each rung adds.
RUNGS = [
    ("warpsort@paper", "paper", "the paper's algorithm (t = 128, L = S = 1024, K = 32)"),
    ("warpsort@onchip_step1", "+ step 1 on chip", "a block sorts 8192 keys on chip"),
    ("warpsort@positions", "+ (key, position) splitters", "groups balanced on duplicates"),
    ("warpsort@tiles", "+ merge-path tiles", "step 2: many warps a pair"),
    ("warpsort@onchip_step4", "+ step 4 on chip", "one pass, L = 16"),
    ("warpsort@v4", "version 4", "its tuning"),
    ("warpsort@v5", "version 5", "k-way rounds, thread merges"),
]
BASELINES = [("cub_merge", "cub_merge"), ("cub_radix", "cub_radix"), ("thrust_sort", "thrust_sort")]
DISTRIBUTIONS = ["uniform", "zero", "entropy_0.201"]
REQUIRED = ["algorithm", "key_type", "distribution", "n", "median_ms", "keys_per_s", "validated"]


def size_label(n):
    k = int(round(math.log2(n)))
    return f"2^{k}" if 1 << k == n else str(n)


def load(path):
    df = pd.read_csv(path)
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        sys.exit(f"plot_ablation.py: {path} lacks the columns {', '.join(missing)}")
    bad = df[df["validated"].astype(str).str.lower() != "true"]
    if len(bad):
        sys.exit(f"plot_ablation.py: {len(bad)} rows of {path} failed validation")
    rungs = df[df["algorithm"].str.startswith("warpsort@")]
    if rungs.empty:
        sys.exit(f"plot_ablation.py: {path} has no warpsort@PRESET rows")
    return df


def figure(df, out):
    sizes = sorted(df["n"].unique())
    dists = [d for d in DISTRIBUTIONS if d in set(df["distribution"])]
    algos = [(a, label) for a, label, _ in RUNGS] + BASELINES
    algos = [(a, label) for a, label in algos if a in set(df["algorithm"])]
    fig, axes = plt.subplots(len(dists), len(sizes), figsize=(4.2 * len(sizes), 3.4 * len(dists)),
                             squeeze=False, sharey=True)
    colors = plt.cm.viridis([i / max(1, len(RUNGS) - 1) for i in range(len(RUNGS))])
    for i, dist in enumerate(dists):
        for j, n in enumerate(sizes):
            ax = axes[i][j]
            cell = df[(df["distribution"] == dist) & (df["n"] == n)]
            for x, (a, label) in enumerate(algos):
                row = cell[cell["algorithm"] == a]
                if row.empty:
                    continue
                gkeys = float(row["keys_per_s"].iloc[0]) / 1e9
                rung = next((k for k, (r, _, _) in enumerate(RUNGS) if r == a), None)
                color = colors[rung] if rung is not None else "0.6"
                ax.bar(x, gkeys, color=color, hatch=None if rung is not None else "//",
                       edgecolor="black", linewidth=0.4)
            ax.set_yscale("log")
            ax.set_title(f"{dist}, n = {size_label(n)}", fontsize=9)
            ax.set_xticks(range(len(algos)))
            ax.set_xticklabels([label for _, label in algos], rotation=60, ha="right", fontsize=7)
            if j == 0:
                ax.set_ylabel("Gkeys/s (log)")
            ax.grid(axis="y", which="both", alpha=0.3)
    fig.suptitle("From the paper's Warp Sort to version 5, one idea a rung (uint32, H100)", fontsize=11)
    fig.tight_layout()
    path = os.path.join(out, "ablation.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}")


def fmt_ms(ms):
    return f"{ms:.3f}" if ms < 10 else f"{ms:.1f}" if ms < 1000 else f"{ms:.0f}"


def ratio(r):
    return f"{r:.2f}x" if r >= 0.095 else f"{r:.3f}x" if r >= 0.00095 else f"{r:.1e}x"


def table(df):
    sizes = sorted(df["n"].unique())
    dists = [d for d in DISTRIBUTIONS if d in set(df["distribution"])]
    cols = [(d, n) for d in dists for n in sizes]
    lines = ["| rung | " + " | ".join(f"{d} {size_label(n)}" for d, n in cols) + " |",
             "|---|" + "---|" * len(cols)]

    def ms_of(a, d, n):
        row = df[(df["algorithm"] == a) & (df["distribution"] == d) & (df["n"] == n)]
        return None if row.empty else float(row["median_ms"].iloc[0])

    for a, label, _ in RUNGS:
        if a not in set(df["algorithm"]):
            continue
        cells = []
        for d, n in cols:
            ms, merge = ms_of(a, d, n), ms_of("cub_merge", d, n)
            cells.append("" if ms is None else
                         f"{fmt_ms(ms)} ({ratio(merge / ms)})" if merge else fmt_ms(ms))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    for a, label in BASELINES:
        if a not in set(df["algorithm"]):
            continue
        cells = [("" if ms_of(a, d, n) is None else fmt_ms(ms_of(a, d, n))) for d, n in cols]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--out", required=True, help="folder of ablation.png")
    ap.add_argument("--table", help="write the markdown table here")
    args = ap.parse_args()
    df = load(args.csv)
    df = df[df["key_type"] == "uint32"]
    os.makedirs(args.out, exist_ok=True)
    figure(df, args.out)
    if args.table:
        with open(args.table, "w") as f:
            f.write("Median ms (speed against cub_merge: its ms / the rung's), uint32, H100; "
                    "from bench.csv by scripts/plot_ablation.py.\n\n")
            f.write(table(df))
        print(f"wrote {args.table}")


if __name__ == "__main__":
    main()

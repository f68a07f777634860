#!/usr/bin/env python3
"""Figures of `warpsort dist` results: throughput against the total n for each number of GPUs
(with the single-GPU sort of the same total beside it), and each phase's time.

    scripts/plot_dist.py --csv A/dist.csv [--csv B/dist.csv ...] --out DIR [--distribution uniform]

Writes DIR/dist_throughput.png and DIR/dist_phases.png. Rows of several runs (e.g. 1, 2, 4 and 8
GPUs) are combined; only validated rows are drawn (a CSV with an invalid row is refused). Where the
CSVs say how the keys moved (column `exchange`: copy_engines, sm_copies or nccl), each way is its own line.
"""
import argparse
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

PHASES = ["local_sort_ms", "splitters_ms", "exchange_ms", "merge_ms", "rebalance_ms"]
NEEDED = ["gpus", "type", "distribution", "n", "ms", "keys_per_s", "single_gpu_ms", "validated"] + PHASES


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--csv", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--distribution", default="uniform")
    a = ap.parse_args()
    frames = []
    for path in a.csv:
        df = pd.read_csv(path)
        missing = [c for c in NEEDED if c not in df.columns]
        if missing:
            print(f"{path}: not a `warpsort dist` CSV (missing {', '.join(missing)})", file=sys.stderr)
            return 1
        if not df["validated"].astype(str).str.lower().eq("true").all():
            print(f"{path}: holds rows that failed validation", file=sys.stderr)
            return 1
        frames.append(df)
    df = pd.concat(frames)
    df = df[df["distribution"] == a.distribution]
    if df.empty:
        print(f"no rows of distribution {a.distribution}", file=sys.stderr)
        return 1
    import os

    os.makedirs(a.out, exist_ok=True)
    key_type = ", ".join(sorted(df["type"].unique()))
    if "exchange" not in df.columns:
        df["exchange"] = ""
    df["exchange"] = df["exchange"].fillna("").astype(str)
    ways = df["exchange"].nunique() > 1

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (gpus, way), g in df.groupby(["gpus", "exchange"]):
        g = g.sort_values("n")
        label = f"warpsort dist, {gpus} GPU(s)" + (f", {way.replace('_', ' ')}" if ways else "")
        ax.plot(g["n"], g["keys_per_s"] / 1e9, marker="o", ls="-" if way != "nccl" else ":", label=label)
    one = df.dropna(subset=["single_gpu_ms"]).drop_duplicates("n").sort_values("n")
    if not one.empty:
        ax.plot(one["n"], one["n"] / (one["single_gpu_ms"] * 1e-3) / 1e9, marker="s", ls="--",
                color="black", label="warpsort, one GPU (same total, same run)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("total keys n")
    ax.set_ylabel("Gkeys/s")
    ax.set_title(f"Distributed sort throughput ({key_type}, {a.distribution})")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{a.out}/dist_throughput.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    rows = df.sort_values(["n", "gpus", "exchange"])
    labels = [f"2^{int(n).bit_length() - 1}\n{g} GPU" + (f"\n{'copy' if w == 'copy_engines' else w}" if ways else "")
              for n, g, w in zip(rows["n"], rows["gpus"], rows["exchange"])]
    bottom = [0.0] * len(rows)
    for phase in PHASES:
        vals = rows[phase].tolist()
        ax.bar(range(len(rows)), vals, bottom=bottom, label=phase.replace("_ms", ""))
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(range(len(rows)), labels, fontsize=8)
    ax.set_ylabel("ms (slowest rank, median of runs)")
    ax.set_title(f"Phases of the distributed sort ({key_type}, {a.distribution})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(f"{a.out}/dist_phases.png", dpi=120)
    plt.close(fig)
    print(f"wrote {a.out}/dist_throughput.png and {a.out}/dist_phases.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())

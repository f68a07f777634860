#!/usr/bin/env python3
"""Figures of `warpsort dist` results: throughput against the total n for each number of GPUs
(with the single-GPU sort of the same total beside it), and each phase's time; or strong and weak
scaling against the number of GPUs.

    scripts/plot_dist.py --csv A/dist.csv [--csv B/dist.csv ...] --out DIR [--distribution uniform]
    scripts/plot_dist.py --scaling RESULTS_DIR --out DIR [--distribution uniform]
    scripts/plot_dist.py --network CSV --out DIR

The first form writes DIR/dist_throughput.png, DIR/dist_phases.png and DIR/dist_time.png (the
time against n, and the ratio to the single-GPU sort of the same total with the crossover marked). Rows of several runs (e.g.
1, 2, 4 and 8 GPUs) are combined; only validated rows are drawn (a CSV with an invalid row is
refused). Where the CSVs say how the keys moved (column `exchange`: copy_engines, sm_copies or
nccl), each way is its own line.

The second form reads RESULTS_DIR/strong_g*/dist.csv and RESULTS_DIR/weak_g*/dist.csv (the
`strong` and `weak` stages of scripts/dist_runs.sh; the GPU count from the column `gpus`, else
from the directory's name: strong_g3 is 3) and writes, for whichever of the two it finds:
  DIR/dist_strong_scaling.png  each total's speed-up against the single-GPU sort of the same total
                               in the same run (`speedup_vs_single_gpu`, else single_gpu_ms / ms)
                               beside the ideal (G), and its time beside the ideal (the
                               single-GPU time over G), against the GPU count;
  DIR/dist_weak_scaling.png    the time at a fixed count of keys a GPU against the GPU count, the
                               phases (slowest rank's, median of runs) stacked, the whole sort's
                               time marked, the one-GPU run's time as the ideal, and the
                               single-GPU sort of the same total where the runs timed it.

The third form reads the runs of scripts/dist_runs.sh's `network` stage (NCCL's network
transport) and writes DIR/dist_network_model.png: each run's phases beside what
scripts/dist_model.py network prices for that link (our exchange's share of NCCL's all-to-all
measured on the run that moves the most bytes, the others predicted with it).
"""
import argparse
import glob
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

PHASES = ["local_sort_ms", "splitters_ms", "exchange_ms", "merge_ms", "rebalance_ms"]
NEEDED = ["gpus", "type", "distribution", "n", "ms", "keys_per_s", "single_gpu_ms", "validated"] + PHASES


def pow2_label(n: int) -> str:
    n = int(n)
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else f"{n:,}"


def read_checked(path: str, needed: list) -> "pd.DataFrame | None":
    """A `warpsort dist` CSV with the needed columns and only validated rows, else None (said)."""
    df = pd.read_csv(path)
    missing = [c for c in needed if c not in df.columns]
    if missing:
        print(f"{path}: not a `warpsort dist` CSV (missing {', '.join(missing)})", file=sys.stderr)
        return None
    if not df["validated"].astype(str).str.lower().eq("true").all():
        print(f"{path}: holds rows that failed validation", file=sys.stderr)
        return None
    return df


SCALING_NEEDED = ["type", "distribution", "n", "ms", "single_gpu_ms", "validated"] + PHASES


def read_scaling(results: str, kind: str, distribution: str) -> "pd.DataFrame | None":
    """Every RESULTS/KIND_g<G>/dist.csv's rows of the distribution, with the GPU count; an empty
    frame where there are none, None on an error (said)."""
    frames = []
    for path in sorted(glob.glob(os.path.join(results, f"{kind}_g*", "dist.csv"))):
        m = re.fullmatch(rf"{kind}_g(\d+)", os.path.basename(os.path.dirname(path)))
        if not m:
            continue
        df = read_checked(path, SCALING_NEEDED)
        if df is None:
            return None
        named = int(m.group(1))
        if "gpus" not in df.columns:
            df["gpus"] = named
        elif df["gpus"].isna().any() or (df["gpus"] != named).any():
            print(f"{path}: column gpus says {sorted(df['gpus'].dropna().unique())}, the directory "
                  f"{named}; the column is taken", file=sys.stderr)
            df["gpus"] = df["gpus"].fillna(named)
        frames.append(df)
    if not frames:
        return pd.DataFrame()
    df = pd.concat(frames, ignore_index=True)
    df = df[df["distribution"] == distribution].copy()
    df["gpus"] = df["gpus"].astype(int)
    df["n"] = df["n"].astype("int64")
    # the speed-up against the single-GPU sort of the same run (absent where it did not fit)
    if "speedup_vs_single_gpu" not in df.columns:
        df["speedup_vs_single_gpu"] = float("nan")
    df["speedup_vs_single_gpu"] = df["speedup_vs_single_gpu"].fillna(df["single_gpu_ms"] / df["ms"])
    return df


def plot_strong(df: "pd.DataFrame", out: str, distribution: str) -> str:
    key_type = ", ".join(sorted(df["type"].unique()))
    fig, (sp, tm) = plt.subplots(1, 2, figsize=(11, 4.5))
    gmax = int(df["gpus"].max())
    ticks = list(range(1, gmax + 1))
    sp.plot(ticks, ticks, ls="--", color="gray", label="ideal (G)")
    for i, (n, g) in enumerate(df.groupby("n")):
        g = g.sort_values("gpus")
        color = f"C{i}"
        have = g.dropna(subset=["speedup_vs_single_gpu"])
        if len(have) < len(g):
            print(f"strong, n = {pow2_label(n)}: no single-GPU time on "
                  f"{sorted(set(g['gpus']) - set(have['gpus']))} GPU(s); no speed-up drawn there",
                  file=sys.stderr)
        sp.plot(have["gpus"], have["speedup_vs_single_gpu"], marker="o", color=color,
                label=f"n = {pow2_label(n)}")
        tm.plot(g["gpus"], g["ms"], marker="o", color=color, label=f"n = {pow2_label(n)}, warpsort dist")
        one = g["single_gpu_ms"].dropna()
        if not one.empty:
            t1 = one.median()  # the single-GPU sort of this total, over the runs
            tm.plot(ticks, [t1 / k for k in ticks], ls="--", color=color, alpha=0.6,
                    label=f"n = {pow2_label(n)}, ideal (one GPU {t1:.0f} ms / G)")
    sp.set_xlabel("GPUs")
    sp.set_ylabel("speed-up against one GPU (same total, same run)")
    sp.set_title("Strong scaling: speed-up")
    tm.set_xlabel("GPUs")
    tm.set_ylabel("ms (slowest rank, median of runs)")
    tm.set_yscale("log")
    tm.set_title("Strong scaling: time")
    for ax in (sp, tm):
        ax.set_xticks(ticks)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Distributed sort, strong scaling ({key_type}, {distribution})")
    fig.tight_layout()
    path = f"{out}/dist_strong_scaling.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_weak(df: "pd.DataFrame", out: str, distribution: str) -> str:
    key_type = ", ".join(sorted(df["type"].unique()))
    df = df.copy()
    df["per_gpu"] = df["n"] // df["gpus"]
    per = sorted(df["per_gpu"].unique())
    if len(per) > 1:
        print(f"weak: several counts a GPU ({', '.join(pow2_label(p) for p in per)}); drawing "
              f"{pow2_label(per[0])}", file=sys.stderr)
        df = df[df["per_gpu"] == per[0]]
    rows = df.sort_values("gpus").drop_duplicates("gpus", keep="last")
    x = rows["gpus"].tolist()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    bottom = [0.0] * len(rows)
    for phase in PHASES:
        vals = rows[phase].fillna(0).tolist()
        ax.bar(x, vals, bottom=bottom, width=0.6, label=phase.replace("_ms", ""))
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.plot(x, rows["ms"], marker="o", color="black", ls="-", label="whole sort")
    one = rows[rows["gpus"] == 1]
    if not one.empty:
        ax.axhline(float(one["ms"].iloc[0]), color="black", ls="--", alpha=0.6,
                   label=f"one GPU, {pow2_label(per[0])} keys (ideal)")
    same = rows.dropna(subset=["single_gpu_ms"])
    if not same.empty:
        ax.plot(same["gpus"], same["single_gpu_ms"], marker="s", ls=":", color="gray",
                label="one GPU, the same total (same run)")
    ax.set_xticks(x)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("ms (slowest rank, median of runs)")
    ax.set_title(f"Distributed sort, weak scaling: {pow2_label(per[0])} keys a GPU ({key_type}, {distribution})")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = f"{out}/dist_weak_scaling.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def scaling(results: str, out: str, distribution: str) -> int:
    strong = read_scaling(results, "strong", distribution)
    weak = read_scaling(results, "weak", distribution)
    if strong is None or weak is None:
        return 1
    if strong.empty and weak.empty:
        print(f"{results}: no strong_g*/dist.csv or weak_g*/dist.csv with rows of distribution "
              f"{distribution}", file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    wrote = []
    if not strong.empty:
        wrote.append(plot_strong(strong, out, distribution))
    if not weak.empty:
        wrote.append(plot_weak(weak, out, distribution))
    print("wrote " + " and ".join(wrote))
    return 0


def plot_network(csv_path: str, out: str) -> int:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import dist_model  # noqa: E402 (beside this script)

    if read_checked(csv_path, NEEDED) is None:
        return 1
    rows, calibration, share = dist_model.network_runs([csv_path])
    rows = sorted(rows, key=lambda r: int(r["n"]))
    phases = [("local", "local_sort_ms"), ("exchange", "exchange_ms"), ("merge", "merge_ms"),
              ("total", "ms")]
    fig, axes = plt.subplots(1, len(rows), figsize=(4.5 * len(rows), 4.2), squeeze=False)
    for ax, r in zip(axes[0], rows):
        ranks, total = int(r["gpus"]), int(r["n"])
        key_bytes = 8 if r["type"] in ("uint64", "int64", "float64") else 4
        m = dist_model.model(total, ranks, key_bytes, **dist_model.network_links(r, share))
        measured = [float(r[column]) for _, column in phases]
        modelled = [m[phase] for phase, _ in phases]
        x = list(range(len(phases)))
        ax.bar([i - 0.2 for i in x], measured, 0.4, label="measured")
        ax.bar([i + 0.2 for i in x], modelled, 0.4, label="model")
        for i, (got, want) in enumerate(zip(measured, modelled)):
            ax.annotate(f"{want / got:.2f}", (i + 0.2, want), ha="center", va="bottom", fontsize=8)
        ax.set_yscale("log")
        ax.set_xticks(x)
        ax.set_xticklabels([phase for phase, _ in phases])
        ax.set_ylabel("ms (slowest rank)")
        role = "share measured here" if r is calibration else "predicted"
        ax.set_title(f"{ranks} ranks, {pow2_label(total)} {r['type']} ({role})", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"NCCL's network transport, runs beside the model (our exchange at {share:.3f}x "
                 f"NCCL's all-to-all);\nmodel / measured above each bar", fontsize=9)
    fig.tight_layout()
    os.makedirs(out, exist_ok=True)
    fig.savefig(f"{out}/dist_network_model.png", dpi=120)
    print(f"wrote {out}/dist_network_model.png")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--csv", action="append", help="a `warpsort dist` dist.csv (repeatable)")
    what.add_argument("--scaling", metavar="RESULTS_DIR",
                      help="a directory of strong_g*/ and weak_g*/ runs (scripts/dist_runs.sh)")
    what.add_argument("--network", metavar="CSV",
                      help="the runs of scripts/dist_runs.sh's network stage, beside the model")
    ap.add_argument("--out", required=True)
    ap.add_argument("--distribution", default="uniform")
    a = ap.parse_args()
    if a.scaling:
        return scaling(a.scaling, a.out, a.distribution)
    if a.network:
        return plot_network(a.network, a.out)
    frames = []
    for path in a.csv:
        df = read_checked(path, NEEDED)
        if df is None:
            return 1
        frames.append(df)
    df = pd.concat(frames)
    df = df[df["distribution"] == a.distribution]
    if df.empty:
        print(f"no rows of distribution {a.distribution}", file=sys.stderr)
        return 1
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
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    # one line a GPU count, unless runs of several exchange paths time the same totals (a run's
    # automatic path changes with the total)
    by_way = df.duplicated(["gpus", "n"]).any()
    for (gpus, way), g in df.groupby(["gpus", "exchange" if by_way else "gpus"]):
        g = g.sort_values("n")
        label = f"{gpus} GPU(s)" + (f", {way.replace('_', ' ')}" if by_way else "")
        style = ":" if by_way and way == "nccl" else "-"
        left.plot(g["n"], g["ms"], marker="o", ls=style, label=label)
        ratio = g["single_gpu_ms"] / g["ms"]
        right.plot(g["n"], ratio, marker="o", ls=style, label=label)
        # the crossover: the smallest total from which every larger one is at least one GPU's
        # speed, where a smaller total measured was slower (else the runs do not show it)
        at_least = (ratio >= 1.0).tolist()
        for i in range(1, len(at_least)):
            if all(at_least[i:]) and ratio.notna().iloc[i]:
                n0 = int(g["n"].iloc[i])
                right.annotate(f"from {pow2_label(n0)}", (n0, ratio.iloc[i]), textcoords="offset points",
                               xytext=(6, -14), fontsize=8)
                break
    if not one.empty:
        left.plot(one["n"], one["single_gpu_ms"], marker="s", ls="--", color="black",
                  label="one GPU (same total, same run)")
    right.axhline(1.0, color="black", ls="--", lw=1, label="one GPU")
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("total keys n")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    left.set_yscale("log")
    left.set_ylabel("ms (median of runs)")
    left.set_title("Time")
    right.set_ylabel("one GPU's time / this time")
    right.set_title("Against one GPU: the crossover")
    fig.suptitle(f"Distributed sort ({key_type}, {a.distribution})")
    fig.tight_layout()
    fig.savefig(f"{a.out}/dist_time.png", dpi=120)
    plt.close(fig)
    print(f"wrote {a.out}/dist_throughput.png, {a.out}/dist_phases.png and {a.out}/dist_time.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Figures from a warpsort benchmark CSV.

    python3 scripts/plot_results.py --csv results.csv --out figures/ [--key-type uint32]

The CSV is the benchmark's long format, one row per (algorithm, key type, distribution, n):
    algorithm,platform,key_type,distribution,n,reps,median_ms,min_ms,max_ms,keys_per_s,
    bandwidth_gbs,ratio_vs_cub_merge,ratio_vs_cub_radix,e2e_pageable_ms,e2e_pinned_ms,
    step1_ms,step2_ms,step3_ms,step4_ms,validated
Empty cells mean "not applicable" (step*_ms outside warpsort, e2e_* on the CPU).

Writes into --out:
    throughput.png          keys/s against n, one line per algorithm, one panel per distribution
    throughput_uniform.png  the same for the uniform distribution alone
    steps.png               warpsort's four steps, stacked, per n (uniform distribution)
    ratio.png               warpsort's speed as a ratio to cub::DeviceMergeSort (and to
                            cub::DeviceRadixSort where timed) against n, uniform keys; the
                            sizes below 1.0x labelled
    speedup_cpu.png         warpsort's speedup over each CPU baseline at the same n
    end_to_end.png          warpsort device-only time against end-to-end time with pageable
                            and with pinned host memory
    key_types.png           (only when the CSV holds several key types, pairs included:
                            "uint32+uint32") warpsort and CUB's merge and radix sorts, keys/s
                            per key type, one panel per n, uniform keys
A figure whose data is absent is skipped with a note on stdout. Needs pandas and matplotlib.
"""

import argparse
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

COLUMNS = [
    "algorithm", "platform", "key_type", "distribution", "n", "reps", "median_ms", "min_ms",
    "max_ms", "keys_per_s", "bandwidth_gbs", "ratio_vs_cub_merge", "ratio_vs_cub_radix",
    "e2e_pageable_ms", "e2e_pinned_ms", "step1_ms", "step2_ms", "step3_ms", "step4_ms",
    "validated",
]
NUMERIC = [c for c in COLUMNS if c not in ("algorithm", "platform", "key_type", "distribution",
                                           "validated")]
STEPS = ["step1_ms", "step2_ms", "step3_ms", "step4_ms"]
STEP_LABELS = ["1: sort chunks", "2: merge pairs", "3: split", "4: merge groups"]

# Legend order and styles: warpsort first, then the GPU baselines, then the CPU ones.
ALGORITHMS = [
    "warpsort", "cub_radix", "cub_merge", "thrust_sort", "thrust_sort_comparator",
    "bitonic_textbook", "cpu_bitonic_seq", "cpu_bitonic_par", "std_sort", "tbb_parallel_sort",
]
DISTRIBUTIONS = [
    "uniform", "gaussian", "zero", "sorted", "reverse_sorted", "nearly_sorted", "bucket_sorted",
    "staggered", "g_group", "deterministic_duplicates", "randomized_duplicates",
    "entropy_0.811", "entropy_0.544", "entropy_0.337", "entropy_0.201",
]
MARKERS = "os^vD<>ph*x+"


def ordered(values, preferred):
    values = list(dict.fromkeys(values))
    return [v for v in preferred if v in values] + sorted(v for v in values if v not in preferred)


def style(algorithm, algorithms):
    i = algorithms.index(algorithm)
    cpu = algorithm.startswith("cpu_") or algorithm in ("std_sort", "tbb_parallel_sort")
    return dict(
        color=plt.get_cmap("tab10")(i % 10),
        marker=MARKERS[i % len(MARKERS)],
        linestyle="--" if cpu else "-",
        linewidth=2.4 if algorithm == "warpsort" else 1.4,
        markersize=5,
    )


def n_label(n):
    n = int(n)
    if n > 0 and n & (n - 1) == 0:
        return f"$2^{{{n.bit_length() - 1}}}$"
    return f"{n:,}"


def log2_x(ax):
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (keys)")
    ax.grid(True, which="major", alpha=0.3)


def panel_grid(count, width=4.6, height=3.6):
    cols = min(3, count)
    rows = math.ceil(count / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


def save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {path}")


def note(message):
    print(f"note: {message}")


def load(csv_path, key_type):
    try:
        df = pd.read_csv(csv_path, dtype={"algorithm": str, "platform": str, "key_type": str,
                                          "distribution": str, "validated": str})
    except FileNotFoundError:
        sys.exit(f"error: {csv_path}: no such file")
    except pd.errors.EmptyDataError:
        sys.exit(f"error: {csv_path}: empty file")
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        sys.exit(f"error: {csv_path}: missing columns: {', '.join(missing)}")
    if df.empty:
        sys.exit(f"error: {csv_path}: no measurements")
    for c in NUMERIC:
        df[c] = pd.to_numeric(df[c], errors="coerce")
    df = df[df["n"].notna() & (df["n"] > 0)].copy()
    df["n"] = df["n"].astype("int64")
    # keys/s from the time where the column is empty.
    fill = df["keys_per_s"].isna() & (df["median_ms"] > 0)
    df.loc[fill, "keys_per_s"] = df.loc[fill, "n"] / (df.loc[fill, "median_ms"] / 1e3)
    df["validated"] = df["validated"].fillna("").str.strip().str.lower()

    types = ordered(df["key_type"].dropna().unique(), ["uint32", "int32", "float32", "uint64",
                                                       "int64", "float64"])
    if key_type is None:
        if not types:
            sys.exit(f"error: {csv_path}: no key_type values")
        key_type = types[0]
        if len(types) > 1:
            note(f"the CSV holds key types {', '.join(types)}; plotting {key_type} "
                 f"(choose with --key-type)")
    elif key_type not in types:
        sys.exit(f"error: {csv_path}: no rows for key type {key_type!r} "
                 f"(present: {', '.join(types) or 'none'})")
    df = df[df["key_type"] == key_type]

    bad = df[df["validated"] != "true"]
    if not bad.empty:
        note(f"{len(bad)} row(s) not validated (sorted output not checked or wrong); plotted anyway: "
             + "; ".join(f"{r.algorithm} {r.distribution} n={r.n}" for r in bad.head(5).itertuples())
             + (" ..." if len(bad) > 5 else ""))
    # Several rows for one point (repeated runs): their median.
    df = (df.groupby(["algorithm", "platform", "distribution", "n"], as_index=False)[NUMERIC[1:]]
            .median())
    return df, key_type


KEY_TYPES = ["uint32", "int32", "float32", "uint64", "int64", "float64", "uint32+uint32",
             "uint32+uint64", "uint64+uint32", "uint64+uint64"]
# For pairs the comparable baselines are CUB's stable merge sort and radix sort of pairs.
BASELINES = {"cub_merge": ["cub_merge", "cub_merge_stable_pairs"],
             "cub_radix": ["cub_radix", "cub_radix_pairs"]}


def plot_key_types(csv_path, out_dir):
    """key_types.png from the raw CSV (every key type), or a note when it holds only one."""
    df = pd.read_csv(csv_path, dtype={"algorithm": str, "key_type": str, "distribution": str})
    df = df[df["distribution"] == "uniform"].copy()
    for c in ("n", "median_ms"):
        df[c] = pd.to_numeric(df[c], errors="coerce")
    df = df[(df["n"] > 0) & (df["median_ms"] > 0)]
    types = ordered(df["key_type"].dropna().unique(), KEY_TYPES)
    if len(types) < 2:
        note("one key type in the CSV: skipping key_types.png")
        return
    df["keys_per_s"] = df["n"] / (df["median_ms"] / 1e3)
    sizes = sorted(df["n"].unique())
    fig, axes = panel_grid(len(sizes), width=7.0, height=3.8)
    series = [("warpsort", ["warpsort"], "#D62728")] + \
             [(name, algos, col) for (name, algos), col in
              zip(BASELINES.items(), ["#1F77B4", "#2CA02C"])]
    width = 0.8 / len(series)
    for ax, n in zip(axes, sizes):
        at_n = df[df["n"] == n]
        for i, (label, algos, colour) in enumerate(series):
            ys = []
            for t in types:
                rows = at_n[(at_n["key_type"] == t) & (at_n["algorithm"].isin(algos))]
                ys.append(rows["keys_per_s"].median() / 1e9 if not rows.empty else float("nan"))
            xs = [x + (i - (len(series) - 1) / 2) * width for x in range(len(types))]
            ax.bar(xs, ys, width=width, color=colour, label=label)
        ax.set_xticks(range(len(types)))
        ax.set_xticklabels(types, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("Gkeys/s")
        ax.set_title(f"n = {n_label(n)}, uniform")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8, title="pairs: stable merge / radix pairs", title_fontsize=7)
    fig.suptitle("Key types and key-value pairs (device time, median)")
    save(fig, out_dir, "key_types.png")


def plot_throughput(df, out_dir, key_type):
    algorithms = ordered(df["algorithm"].unique(), ALGORITHMS)
    dists = ordered(df["distribution"].unique(), DISTRIBUTIONS)
    data = df[df["keys_per_s"] > 0]
    if data.empty:
        note("no keys_per_s or median_ms values: skipping throughput.png")
        return

    def draw(ax, dist):
        sub = data[data["distribution"] == dist]
        for alg in algorithms:
            rows = sub[sub["algorithm"] == alg].sort_values("n")
            if not rows.empty:
                ax.plot(rows["n"], rows["keys_per_s"], label=alg, **style(alg, algorithms))
        ax.set_yscale("log")
        log2_x(ax)
        ax.set_ylabel("keys / s")
        ax.set_title(dist)

    fig, axes = panel_grid(len(dists))
    for ax, dist in zip(axes, dists):
        draw(ax, dist)
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    order = [labels.index(a) for a in algorithms if a in labels]
    fig.legend([handles[i] for i in order], [labels[i] for i in order], loc="lower center",
               ncol=min(5, len(order)), bbox_to_anchor=(0.5, -0.02 - 0.03 * math.ceil(len(order) / 5)),
               frameon=False)
    fig.suptitle(f"Sorting throughput, {key_type} keys")
    fig.tight_layout()
    save(fig, out_dir, "throughput.png")

    if "uniform" in dists:
        fig, ax = plt.subplots(figsize=(7.5, 5))
        draw(ax, "uniform")
        ax.set_title(f"Sorting throughput, {key_type} keys, uniform distribution")
        ax.legend(fontsize=8, ncol=2)
        fig.tight_layout()
        save(fig, out_dir, "throughput_uniform.png")
    else:
        note("no uniform rows: skipping throughput_uniform.png")


def plot_steps(df, out_dir, key_type):
    rows = df[(df["algorithm"] == "warpsort") & (df["distribution"] == "uniform")]
    rows = rows.dropna(subset=STEPS, how="all").sort_values("n")
    if rows.empty:
        note("no warpsort step times for the uniform distribution: skipping steps.png")
        return
    steps = rows[STEPS].fillna(0.0)
    total = steps.sum(axis=1)
    per_key = 1e6 / rows["n"]  # ms -> ns per key
    x = list(range(len(rows)))
    labels = [n_label(n) for n in rows["n"]]
    fig, (ax_ns, ax_pct) = plt.subplots(1, 2, figsize=(12, 4.6))
    bottom_ns = [0.0] * len(rows)
    bottom_pct = [0.0] * len(rows)
    colors = plt.get_cmap("Set2").colors
    for i, (col, label) in enumerate(zip(STEPS, STEP_LABELS)):
        ns = list(steps[col] * per_key)
        pct = [100.0 * v / t if t > 0 else 0.0 for v, t in zip(steps[col], total)]
        ax_ns.bar(x, ns, bottom=bottom_ns, label=label, color=colors[i])
        ax_pct.bar(x, pct, bottom=bottom_pct, label=label, color=colors[i])
        bottom_ns = [b + v for b, v in zip(bottom_ns, ns)]
        bottom_pct = [b + v for b, v in zip(bottom_pct, pct)]
    if rows["median_ms"].notna().any():
        ax_ns.plot(x, list(rows["median_ms"] * per_key), "k_", markersize=22, markeredgewidth=2,
                   label="whole sort (median)")
    for ax in (ax_ns, ax_pct):
        ax.set_xticks(x)
        ax.set_xticklabels(labels)
        ax.set_xlabel("n (keys)")
        ax.grid(True, axis="y", alpha=0.3)
    ax_ns.set_ylabel("time per key (ns)")
    ax_ns.set_title("warpsort steps, stacked (time per key)")
    ax_ns.legend(fontsize=8)
    ax_pct.set_ylabel("share of the four steps (%)")
    ax_pct.set_ylim(0, 100)
    ax_pct.set_title("share of each step")
    fig.suptitle(f"warpsort step breakdown, {key_type} keys, uniform distribution")
    fig.tight_layout()
    save(fig, out_dir, "steps.png")


def plot_ratio(df, out_dir, key_type):
    rows = df[(df["algorithm"] == "warpsort") & (df["distribution"] == "uniform")]
    rows = rows.dropna(subset=["ratio_vs_cub_merge"]).sort_values("n")
    if rows.empty:
        note("no warpsort ratio to cub_merge for the uniform distribution: skipping ratio.png")
        return
    fig, ax = plt.subplots(figsize=(9, 4.6))
    ax.plot(rows["n"], rows["ratio_vs_cub_merge"], "o-", color="tab:blue",
            label="/ cub::DeviceMergeSort (same process)")
    radix = rows.dropna(subset=["ratio_vs_cub_radix"])
    if not radix.empty:
        ax.plot(radix["n"], radix["ratio_vs_cub_radix"], "s--", color="tab:gray", markersize=4,
                label="/ cub::DeviceRadixSort")
    ax.axhline(1.0, color="black", linewidth=1)
    for i, r in enumerate(rows[rows["ratio_vs_cub_merge"] < 1.0].itertuples()):
        ax.annotate(n_label(r.n), (r.n, r.ratio_vs_cub_merge), textcoords="offset points",
                    xytext=(0, -13 if i % 2 == 0 else -23), ha="center", fontsize=7,
                    color="tab:red")
    log2_x(ax)
    ax.set_ylabel("speed ratio (CUB time / warpsort time)")
    ax.set_title(f"warpsort against CUB, {key_type} keys, uniform (above 1: warpsort faster)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, out_dir, "ratio.png")


def plot_speedup_cpu(df, out_dir, key_type):
    ws = df[df["algorithm"] == "warpsort"][["distribution", "n", "median_ms"]].dropna()
    cpu = df[df["platform"] == "cpu"][["algorithm", "distribution", "n", "median_ms"]].dropna()
    if ws.empty or cpu.empty:
        note("need warpsort rows and CPU baseline rows: skipping speedup_cpu.png")
        return
    both = cpu.merge(ws, on=["distribution", "n"], suffixes=("_cpu", "_ws"))
    both = both[(both["median_ms_ws"] > 0) & (both["median_ms_cpu"] > 0)]
    if both.empty:
        note("no n/distribution with both warpsort and a CPU baseline: skipping speedup_cpu.png")
        return
    both["speedup"] = both["median_ms_cpu"] / both["median_ms_ws"]
    algorithms = ordered(df["algorithm"].unique(), ALGORITHMS)
    dists = ordered(both["distribution"].unique(), DISTRIBUTIONS)
    fig, axes = panel_grid(len(dists))
    for ax, dist in zip(axes, dists):
        sub = both[both["distribution"] == dist]
        for alg in ordered(sub["algorithm"].unique(), ALGORITHMS):
            rows = sub[sub["algorithm"] == alg].sort_values("n")
            ax.plot(rows["n"], rows["speedup"], label=f"vs {alg}", **style(alg, algorithms))
        ax.axhline(1.0, color="grey", linewidth=1)
        ax.set_yscale("log")
        log2_x(ax)
        ax.set_ylabel("speedup (CPU time / warpsort time)")
        ax.set_title(dist)
        ax.legend(fontsize=8)
    fig.suptitle(f"warpsort (GPU) speedup over CPU sorts, {key_type} keys")
    fig.tight_layout()
    save(fig, out_dir, "speedup_cpu.png")


def plot_end_to_end(df, out_dir, key_type):
    ws = df[df["algorithm"] == "warpsort"]
    ws = ws.dropna(subset=["e2e_pageable_ms", "e2e_pinned_ms"], how="all")
    if ws.empty:
        note("no warpsort end-to-end times: skipping end_to_end.png")
        return
    dists = ordered(ws["distribution"].unique(), DISTRIBUTIONS)
    fig, axes = panel_grid(len(dists))
    series = [("median_ms", "device only", "-", "o"),
              ("e2e_pinned_ms", "end to end, pinned host memory", "--", "s"),
              ("e2e_pageable_ms", "end to end, pageable host memory", ":", "^")]
    for ax, dist in zip(axes, dists):
        rows = ws[ws["distribution"] == dist].sort_values("n")
        for col, label, ls, marker in series:
            r = rows.dropna(subset=[col])
            if not r.empty:
                ax.plot(r["n"], r[col], linestyle=ls, marker=marker, label=label)
        ax.set_yscale("log")
        log2_x(ax)
        ax.set_ylabel("time (ms)")
        ax.set_title(dist)
        ax.legend(fontsize=8)
    fig.suptitle(f"warpsort: device-only vs end-to-end time (host copies in and out), {key_type} keys")
    fig.tight_layout()
    save(fig, out_dir, "end_to_end.png")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--csv", required=True, help="benchmark CSV file")
    parser.add_argument("--out", required=True, help="directory for the PNG files (created)")
    parser.add_argument("--key-type", default=None,
                        help="key type to plot (default: uint32 if present, else the first)")
    args = parser.parse_args(argv)
    df, key_type = load(args.csv, args.key_type)
    os.makedirs(args.out, exist_ok=True)
    plot_throughput(df, args.out, key_type)
    plot_steps(df, args.out, key_type)
    plot_ratio(df, args.out, key_type)
    plot_speedup_cpu(df, args.out, key_type)
    plot_end_to_end(df, args.out, key_type)
    plot_key_types(args.csv, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

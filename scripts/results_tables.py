#!/usr/bin/env python3
"""The result tables of the write-up, printed from the committed benchmark CSVs.

    python3 scripts/results_tables.py --results docs/results/h100 > docs/results/h100/tables.md

Reads RESULTS/bench.csv (the full sweep), RESULTS/key_types/bench.csv and
RESULTS/seeds/*/bench.csv (written by `warpsort bench`, merged by scripts/merge_results.py)
and prints markdown: issue 12's targets, the uniform summary, the four steps with end-to-end
times, every distribution, CPU baselines, key types and pairs, and the seed reports'
experiments. Every number in docs/ that comes from a sweep is in these tables. Standard
library only, so CI checks that the committed tables.md is what the committed CSVs give.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

GPU_ALGOS = ["warpsort", "cub_merge", "cub_radix", "thrust_sort", "thrust_sort_comparator",
             "bitonic_textbook"]
CPU_ALGOS = ["cpu_bitonic_seq", "cpu_bitonic_par", "std_sort", "tbb_parallel_sort"]
LARGE = [2 ** 24, 2 ** 26, 2 ** 28]


def n_label(n):
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}"


def load(path):
    if not os.path.exists(path):
        sys.exit(f"results_tables.py: {path}: no such file")
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["validated"].strip().lower() != "true":
                sys.exit(f"results_tables.py: {path}: a row is not validated: "
                         f"{r['algorithm']} {r['key_type']} {r['distribution']} n={r['n']}")
            rows[(r["algorithm"], r["key_type"], r["distribution"], int(r["n"]))] = r
    if not rows:
        sys.exit(f"results_tables.py: {path}: no rows")
    return rows


def num(r, col):
    v = r.get(col, "") if r else ""
    return float(v) if v not in ("", None) else None


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def table(header, body):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(row) + " |" for row in body]
    return out + [""]


def sizes_of(rows, algo="warpsort", key="uint32", dist="uniform"):
    return sorted({n for (a, k, d, n) in rows if a == algo and k == key and d == dist})


def targets(rows, types):
    def ratio(a, k, n, col="ratio_vs_cub_merge"):
        return num(rows.get((a, k, "uniform", n)), col)
    body = []
    for n in LARGE:
        r = rows[("warpsort", "uint32", "uniform", n)]
        body.append([f"uint32 uniform {n_label(n)}", ">= 1.5", fmt(num(r, "ratio_vs_cub_merge"), 2),
                     fmt(num(r, "ratio_vs_cub_radix"), 2), fmt(num(r, "median_ms"))])
    dists = sorted({d for (a, k, d, n) in rows if a == "warpsort" and k == "uint32"})
    for n in LARGE:
        ratios = [(num(rows[("warpsort", "uint32", d, n)], "ratio_vs_cub_merge"), d) for d in dists]
        lo, hi = min(ratios), max(ratios)
        body.append([f"every distribution {n_label(n)}", ">= 1.3",
                     f"{lo[0]:.2f} ({lo[1]}) .. {hi[0]:.2f} ({hi[1]})", "-", "-"])
    for n in LARGE:
        uni = num(rows[("warpsort", "uint32", "uniform", n)], "median_ms")
        worst = max((num(rows[("warpsort", "uint32", d, n)], "median_ms") / uni, d) for d in dists)
        body.append([f"no cliff {n_label(n)}: slowest / uniform", "<= 1.1",
                     f"{worst[0]:.3f} ({worst[1]})", "-", "-"])
    for key, label in (("uint32+uint32", "pairs uint32+uint32"), ("uint64", "uint64 keys")):
        r = types.get(("warpsort", key, "uniform", 2 ** 26))
        body.append([f"{label} 2^26", ">= 1.3", fmt(num(r, "ratio_vs_cub_merge"), 2),
                     fmt(num(r, "ratio_vs_cub_radix"), 2), fmt(num(r, "median_ms"))])
    for n in sizes_of(rows):
        if n in LARGE:
            continue
        r = rows[("warpsort", "uint32", "uniform", n)]
        body.append([f"every power of two: uint32 uniform {n_label(n)}", ">= 1.0",
                     fmt(num(r, "ratio_vs_cub_merge"), 2), fmt(num(r, "ratio_vs_cub_radix"), 2),
                     fmt(num(r, "median_ms"), 4)])
    return table(["target (issue 12)", "bar (x cub_merge)", "warpsort / cub_merge",
                  "warpsort / cub_radix", "warpsort ms"], body)


def uniform_summary(rows):
    body = []
    for n in sizes_of(rows):
        cells = [n_label(n)]
        for a in GPU_ALGOS:
            r = rows.get((a, "uint32", "uniform", n))
            cells.append(fmt(num(r, "keys_per_s") / 1e9 if r else None, 2))
        w = rows[("warpsort", "uint32", "uniform", n)]
        cells += [fmt(num(w, "ratio_vs_cub_merge"), 2), fmt(num(w, "ratio_vs_cub_radix"), 2)]
        body.append(cells)
    return table(["n"] + GPU_ALGOS + ["warpsort / cub_merge", "warpsort / cub_radix"], body)


def steps(rows):
    body = []
    for n in sizes_of(rows):
        w = rows[("warpsort", "uint32", "uniform", n)]
        body.append([n_label(n), fmt(num(w, "median_ms"), 4)] +
                    [fmt(num(w, f"step{i}_ms"), 4) for i in range(1, 5)] +
                    [fmt(num(w, "e2e_pageable_ms"), 2), fmt(num(w, "e2e_pinned_ms"), 2)])
    return table(["n", "whole sort ms", "1 sort chunks", "2 merge pairs", "3 split",
                  "4 merge groups", "e2e pageable ms", "e2e pinned ms"], body)


def distributions(rows):
    dists = sorted({d for (a, k, d, n) in rows if a == "warpsort" and k == "uint32"})
    body = []
    for d in dists:
        cells = [d]
        for n in LARGE:
            w = rows[("warpsort", "uint32", d, n)]
            uni = num(rows[("warpsort", "uint32", "uniform", n)], "median_ms")
            cells += [fmt(num(w, "median_ms"), 2), fmt(num(w, "ratio_vs_cub_merge"), 2),
                      fmt(num(w, "median_ms") / uni, 3)]
        body.append(cells)
    header = ["distribution"]
    for n in LARGE:
        header += [f"{n_label(n)} ms", "/ cub_merge", "/ own uniform"]
    return table(header, body)


def cpu(rows, n=2 ** 24):
    w = rows[("warpsort", "uint32", "uniform", n)]
    dev, pinned = num(w, "median_ms"), num(w, "e2e_pinned_ms")
    body = []
    for a in CPU_ALGOS:
        r = rows.get((a, "uint32", "uniform", n))
        if not r:
            continue
        ms = num(r, "median_ms")
        body.append([a, fmt(ms, 0), "yes" if ms < 1000 else "no", f"{ms / dev:.0f}x",
                     f"{ms / pinned:.0f}x"])
    return table([f"CPU baseline ({n_label(n)} uniform uint32)", "ms", "under 1 s (seed 001 goal)",
                  "warpsort speedup, device time", "warpsort speedup, end to end pinned"], body)


def key_types(types):
    order = ["uint32", "int32", "float32", "uint64", "int64", "float64", "uint32+uint32"]
    body = []
    for k in order:
        for n in sorted({n for (a, kk, d, n) in types if a == "warpsort" and kk == k}):
            w = types[("warpsort", k, "uniform", n)]
            body.append([k, n_label(n), fmt(num(w, "median_ms"), 4),
                         fmt(num(w, "keys_per_s") / 1e9, 2), fmt(num(w, "ratio_vs_cub_merge"), 2),
                         fmt(num(w, "ratio_vs_cub_radix"), 2)])
    return table(["key type", "n", "warpsort ms", "Gkeys/s", "/ cub_merge (pairs: stable)",
                  "/ cub_radix"], body)


def seed003(rows):
    (n,) = {n for (a, k, d, n) in rows}
    body = [["seed report 003 (G80, 2008): bitonic sort", "312.1", "-", "-"],
            ["seed report 003: host CPU", "5079.6", "-", "-"]]
    for a in ["warpsort", "bitonic_textbook", "cub_merge", "cub_radix"] + CPU_ALGOS:
        r = rows.get((a, "uint32", "uniform", n))
        if r:
            body.append([f"H100: {a}" if a not in CPU_ALGOS else f"host CPU: {a}",
                         fmt(num(r, "median_ms"), 2), fmt(num(r, "e2e_pinned_ms"), 2),
                         fmt(num(r, "e2e_pageable_ms"), 2)])
    return table([f"{n:,} uniform uint32 keys", "sort ms", "end to end pinned ms",
                  "end to end pageable ms"], body)


def seed001(rows):
    (n,) = {n for (a, k, d, n) in rows}
    body = []
    for a in ["warpsort", "bitonic_textbook", "cub_merge", "cub_radix"]:
        r = rows.get((a, "uint32", "uniform", n))
        if r:
            vals = [num(r, c) for c in ("median_ms", "e2e_pinned_ms", "e2e_pageable_ms")]
            body.append([a] + [fmt(v / 1e3, 3) for v in vals] +
                        ["yes" if max(vals) < 20000 else "no"])
    return table([f"{n_label(n)} uniform uint32 keys on the H100", "sort s", "end to end pinned s",
                  "end to end pageable s", "under 20 s (seed 001 goal)"], body)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True, help="directory of the committed results")
    args = ap.parse_args(argv)
    rows = load(os.path.join(args.results, "bench.csv"))
    types = load(os.path.join(args.results, "key_types", "bench.csv"))
    s3 = load(os.path.join(args.results, "seeds", "doc003_16M", "bench.csv"))
    s1 = load(os.path.join(args.results, "seeds", "doc001_2e30", "bench.csv"))
    out = ["# Result tables (generated)", "",
           "Printed by `python3 scripts/results_tables.py --results docs/results/h100` from the "
           "committed CSVs of this directory; do not edit by hand (CI checks they agree). Times "
           "are medians in ms of device time unless marked; ratios are measured in one process "
           "(> 1: warpsort faster).", ""]
    sections = [
        ("Issue 12's targets (uint32 unless said)", targets(rows, types)),
        ("Uniform uint32 keys: Gkeys/s", uniform_summary(rows)),
        ("warpsort's four steps and end-to-end times (uniform uint32)", steps(rows)),
        ("Every distribution at the large sizes (uint32)", distributions(rows)),
        ("CPU baselines", cpu(rows)),
        ("Key types and pairs (uniform; key_types/bench.csv)", key_types(types)),
        ("Seed report 003: 16M keys, GPU against CPU (seeds/doc003_16M)", seed003(s3)),
        ("Seed report 001: 2^30 keys on the GPU (seeds/doc001_2e30)", seed001(s1)),
    ]
    for title, lines in sections:
        out += [f"## {title}", ""] + lines
    sys.stdout.write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Per-kernel table of Nsight Compute profiles written by scripts/profile_kernels.sh.

Each input is `ncu --csv --page raw --print-units base` output (one row per kernel launch) of
one sort of N keys. The table gives, per kernel: launches, time and share of the sort, and the
time-weighted mean of achieved occupancy, memory and compute (SM) throughput, DRAM throughput
and threads per executed instruction (32 = no divergence), plus warp instructions per key.
Standard library only, so CI can run it.

    summarize_profile.py --n 2^24 --out profile.md bitonic_textbook.csv warpsort.csv
"""
import argparse
import csv
import io
import os
import sys
from collections import OrderedDict

TIME = "gpu__time_duration.sum"
WEIGHTED = [  # (metric, column title)
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy %"),
    ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory throughput %"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "compute (SM) throughput %"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput %"),
    ("smsp__thread_inst_executed_per_inst_executed.ratio", "threads / executed instruction"),
]
INSTRUCTIONS = "smsp__inst_executed.sum"
TIME_SCALE = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0,
              "ms": 1.0, "second": 1e3, "s": 1e3}


def parse_n(text):
    text = text.strip()
    if "^" in text:
        base, exp = text.split("^")
        return int(base) ** int(exp)
    return int(text)


def number(text):
    return float(text.replace(",", ""))


def read_launches(path):
    """Rows of one ncu raw CSV: [(kernel name, {metric: value})], time in ms."""
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        raise ValueError(f"{path}: no ncu CSV header (a line starting with \"ID\")")
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header, body = rows[0], rows[1:]
    for need in ["Kernel Name", TIME, INSTRUCTIONS] + [m for m, _ in WEIGHTED]:
        if need not in header:
            raise ValueError(f"{path}: column {need} missing")
    col = {name: i for i, name in enumerate(header)}
    units = {}
    if body and body[0][col["ID"]] == "":  # the units row of --page raw
        units = {name: body[0][i] for name, i in col.items()}
        body = body[1:]
    scale = TIME_SCALE.get(units.get(TIME, "nsecond"), None)
    if scale is None:
        raise ValueError(f"{path}: unknown time unit {units.get(TIME)}")
    launches = []
    for r in body:
        if len(r) != len(header):
            continue
        values = {m: number(r[col[m]]) for m in [TIME, INSTRUCTIONS] + [m for m, _ in WEIGHTED]}
        values[TIME] *= scale
        launches.append((r[col["Kernel Name"]], values))
    if not launches:
        raise ValueError(f"{path}: no kernel launches")
    return launches


def summarize(launches, n):
    kernels = OrderedDict()
    for name, v in launches:
        kernels.setdefault(name, []).append(v)
    total = sum(v[TIME] for _, v in launches)
    rows = []
    for name, runs in list(kernels.items()) + [("all kernels", [v for _, v in launches])]:
        t = sum(v[TIME] for v in runs)
        row = OrderedDict(kernel=name, launches=len(runs), ms=t, share=100.0 * t / total)
        for metric, title in WEIGHTED:
            row[title] = sum(v[metric] * v[TIME] for v in runs) / t if t > 0 else 0.0
        row["warp instructions / key"] = sum(v[INSTRUCTIONS] for v in runs) / n
        rows.append(row)
    return rows


def table(label, rows):
    titles = ["kernel", "launches", "ms", "% of sort"] + [t for _, t in WEIGHTED] + \
             ["warp instructions / key"]
    out = [f"**{label}**", "", "| " + " | ".join(titles) + " |",
           "|" + "---|" * len(titles)]
    for r in rows:
        cells = [f"`{r['kernel']}`" if r["kernel"] != "all kernels" else "**all kernels**",
                 str(r["launches"]), f"{r['ms']:.3f}", f"{r['share']:.1f}"]
        cells += [f"{r[t]:.1f}" for _, t in WEIGHTED]
        cells.append(f"{r['warp instructions / key']:.2f}")
        out.append("| " + " | ".join(cells) + " |")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", required=True, help="keys sorted in each profile (e.g. 2^24)")
    ap.add_argument("--out", required=True, help="markdown file to write")
    ap.add_argument("profiles", nargs="+", help="ncu raw CSV files; the name labels the table")
    args = ap.parse_args(argv)
    n = parse_n(args.n)
    lines = [f"Nsight Compute, one sort of n = {args.n} uniform uint32 keys per algorithm "
             f"(`--clock-control none`); means weighted by kernel time. Written by "
             f"scripts/summarize_profile.py.", ""]
    for path in args.profiles:
        try:
            rows = summarize(read_launches(path), n)
        except (OSError, ValueError) as e:
            print(f"summarize_profile.py: {e}", file=sys.stderr)
            return 1
        lines += table(os.path.splitext(os.path.basename(path))[0], rows) + [""]
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Merges the CSV/JSON of several `warpsort bench` runs (one sweep split over processes, e.g.
to fit time limits) into one bench.csv and bench.json. Ratios are never recomputed across
runs: each row keeps the ratios measured inside its own process. Refuses duplicate rows.

usage: merge_results.py --out DIR RUN_DIR [RUN_DIR ...]   (each RUN_DIR holds bench.csv/.json)
"""
import argparse
import csv
import json
import pathlib
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("runs", nargs="+", type=pathlib.Path)
    args = ap.parse_args()

    header, rows, runs, seen = None, [], [], set()
    for index, run in enumerate(args.runs):
        with open(run / "bench.csv", newline="") as f:
            reader = csv.reader(f)
            h = next(reader)
            if header is None:
                header = h
            elif h != header:
                sys.exit(f"merge_results: {run}/bench.csv has a different header")
            for row in reader:
                key = tuple(row[:5])  # algorithm, platform, key_type, distribution, n
                if key in seen:
                    sys.exit(f"merge_results: duplicate row {key} in {run}")
                seen.add(key)
                rows.append(row)
        meta = json.loads((run / "bench.json").read_text())
        runs.append({"part": index, "source": str(run), "metadata": meta["metadata"],
                     "method": meta.get("method"), "notes": meta.get("notes", []),
                     "rows": sum(1 for _ in meta["results"])})
        for r in meta["results"]:
            r["part"] = index
        runs[-1]["results"] = meta["results"]

    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "bench.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    merged = {"runs": [{k: v for k, v in r.items() if k != "results"} for r in runs],
              "results": [row for r in runs for row in r["results"]]}
    (args.out / "bench.json").write_text(json.dumps(merged, indent=1) + "\n")
    print(f"merged {len(rows)} rows from {len(runs)} runs into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

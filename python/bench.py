#!/usr/bin/env python3
"""warpsort against torch.sort and cupy.sort in one process: 1-D keys on the GPU, 2^16..2^28.

Each run sorts a fresh copy of the input (made before the timed region), timed by CUDA events
on one stream; warm-up runs first, then the median of --runs; every output is checked against
the other sorts' (keys, bit-exact; the inputs have no NaN or -0.0). Prints a Markdown table.
With --op argsort: warpsort.argsort against torch.argsort(stable=True) and cupy.argsort, int64
indices; warpsort's must equal torch's exactly (a stable argsort has one answer) and cupy's must
order the keys the same way.

    python3 python/bench.py --dtypes uint32,float32 --sizes 16..28
    python3 python/bench.py --op argsort --dtypes float32,float64,int64 --sizes 20,24,26
"""
import argparse
import os
import statistics
import sys

# the installed package, not python/warpsort beside this script (which has no built module)
_here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import cupy as cp  # noqa: E402
import torch  # noqa: E402

import warpsort  # noqa: E402


def parse_sizes(text):
    if ".." in text:
        lo, hi = (int(t) for t in text.split(".."))
        return [1 << e for e in range(lo, hi + 1, 2 if hi - lo > 6 else 1)]
    return [1 << int(t) for t in text.split(",")]


def make_input(dtype, n, seed):
    rs = cp.random.RandomState(seed)
    if dtype.startswith("float"):
        return rs.standard_normal(n, dtype=getattr(cp, dtype))
    return rs.randint(0, 2**31, n, dtype=getattr(cp, dtype))


def time_runs(fn, x, clone, runs, warmup, stream):
    """Median ms of fn(clone(x)) over runs, by CUDA events on `stream` (every sort runs there);
    the copy is made before the start event."""
    times, out = [], None
    for i in range(warmup + runs):
        xc = clone(x)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record(stream)
        out = fn(xc)
        stop.record(stream)
        stop.synchronize()
        if i >= warmup:
            times.append(cp.cuda.get_elapsed_time(start, stop))
    return statistics.median(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtypes", default="uint32,float32")
    ap.add_argument("--sizes", default="16..28", help="log2 sizes: LO..HI (even steps if wide) or a,b,c")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--op", choices=("sort", "argsort"), default="sort")
    args = ap.parse_args()
    argsort = args.op == "argsort"
    if argsort:
        ops = (warpsort.argsort, cp.argsort, lambda a: torch.argsort(a, stable=True))
    else:
        ops = (warpsort.sort, cp.sort, lambda a: torch.sort(a).values)

    stream = cp.cuda.Stream(non_blocking=True)
    torch_stream = torch.cuda.ExternalStream(stream.ptr)
    rows = []
    with stream, torch.cuda.stream(torch_stream):
        for dtype in args.dtypes.split(","):
            for n in parse_sizes(args.sizes):
                x = make_input(dtype, n, seed=n)
                ws_ms, ws = time_runs(ops[0], x, cp.copy, args.runs, args.warmup, stream)
                cp_ms, ref = time_runs(ops[1], x, cp.copy, args.runs, args.warmup, stream)
                tx = torch.from_dlpack(x)
                try:
                    th_ms, th = time_runs(ops[2], tx, torch.clone, args.runs, args.warmup, stream)
                except (RuntimeError, TypeError) as e:  # e.g. no torch.sort for this dtype
                    print(f"torch.{args.op} {dtype}: {e}", file=sys.stderr)
                    th_ms, th = float("nan"), None
                stream.synchronize()
                if argsort:  # indices: torch's exactly; cupy's (stable or not) the same keys
                    ok = bool(cp.array_equal(x[ws], x[ref])) and ws.dtype == cp.int64 and (
                        th is None or bool(cp.array_equal(ws, cp.from_dlpack(th))))
                else:
                    ok = bool(cp.array_equal(ws, ref)) and (th is None or bool(cp.array_equal(cp.from_dlpack(th), ref)))
                if not ok:
                    print(f"MISMATCH: {dtype} n={n}", file=sys.stderr)
                rows.append((dtype, n, ws_ms, th_ms, cp_ms, ok))
                print(f"{dtype} 2^{n.bit_length() - 1}: warpsort {ws_ms:.3f} ms, torch {th_ms:.3f}, cupy {cp_ms:.3f}",
                      file=sys.stderr, flush=True)

    what = "argsort" if argsort else "sort"
    torch_name = "torch.argsort(stable=True)" if argsort else "torch.sort"
    print(f"| keys | n | warpsort.{what} (ms) | {torch_name} (ms) | cupy.{what} (ms) | torch / warpsort | cupy / warpsort | checked |")
    print("|---|---|---|---|---|---|---|---|")
    for dtype, n, w, t, c, ok in rows:
        tt, tr = ("n/a", "n/a") if t != t else (f"{t:.3f}", f"{t / w:.2f}x")  # t != t: NaN, no torch.sort
        print(f"| {dtype} | 2^{n.bit_length() - 1} | {w:.3f} | {tt} | {c:.3f} | {tr} | {c / w:.2f}x | {'yes' if ok else 'MISMATCH'} |")
    print(f"\nwarpsort {warpsort.__version__}, torch {torch.__version__}, cupy {cp.__version__}, "
          f"{torch.cuda.get_device_name()}; median of {args.runs} runs after {args.warmup} warm-up, "
          "fresh copy before each, CUDA events on one stream")
    return 0 if all(r[-1] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

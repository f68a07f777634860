#!/usr/bin/env python3
"""The distributed sort's time, modelled from its measured components (docs/distributed.md, Model).

A rank of P sorts n = N / P keys: step 1 and the version-5 rounds that leave S = max_sequences / P
sequences (the same plan as src/host/plan.cpp), priced by `warpsort components` on one GPU
(step 1, and a round of k-way merges, both linear in n); the splitters (a fit of the measured
phase against P); the exchange of n (P - 1) / P keys, intra-node peers over NVLink and the others
over the network at the same time; the receivers' merge of P S runs priced as a k-way round; the
exchange in K parts, each merged while the next travels.

    scripts/dist_model.py check CSV...     measured runs (warpsort dist's dist.csv) beside the model
    scripts/dist_model.py predict          P = 8, 16, 64 GPUs (nodes of 8, 400 Gb/s a GPU between)
    scripts/dist_model.py network CSV      runs whose NCCL used its network transport
                                           (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1): every peer
                                           over the network, at each run's NCCL all-to-all
                                           speed, our exchange's share of it measured on the
                                           run that moves the most bytes and predicted for the
                                           others

Pure Python (no NumPy): it runs wherever the repository does.
"""
import argparse
import csv
import math
import sys

# One H200, uint32 uniform, 2^30 keys (docs/results/h200x2/experiments/components_2e30.txt;
# 2^32 gave 4.0x these: linear in n).
COMPONENT_KEYS = 2 ** 30
STEP1_MS = 9.367  # 8192-key blocks
ROUND_MS = {2: 0.641 + 4.108, 4: 0.676 + 4.889, 8: 0.743 + 5.986, 16: 0.886 + 7.666,
            32: 1.244 + 9.537, 64: 1.929 + 13.563}  # step 3 + step 4 of one round of k-way sets
BLOCK_KEYS = 8192
MAX_SEQUENCES = 32  # the policy's (a round's ways, and the runs a receiver merges)
MOST_RUNS = 64
PER_ROUND_BITS = 5  # floor(log2(MAX_SEQUENCES))

PASS_FIXED_MS = 0.075  # each pass's launches and tail, fitted at 2^24-2^26 keys a rank
MERGE_FIXED_MS = 0.1   # the last part's merge: sample sort, cuts, launches

# Links, as GB/s a GPU. NVLink: NCCL's all-to-all of the same volume measured on P H200s of one
# host (2^31-2^32 keys: 302 / 220 / 322 on 2 / 3 / 4; 330 assumed on 8), and our exchange phase
# against it (0.97 / 0.96 / 0.61: on four, overlapped with the merges, it shares the SMs with
# them). Network: 400 Gb/s a GPU, NCCL's all-to-all at 0.85 of it (an assumption), and our
# exchange at 0.95 of that (its copies are the NIC's, not the SMs').
NCCL_NVLINK_GBS = {2: 302.0, 3: 220.0, 4: 322.0}
NCCL_NVLINK_DEFAULT_GBS = 330.0
OUR_NVLINK_SHARE = {2: 0.97, 3: 0.96}
OUR_NVLINK_SHARE_DEFAULT = 0.61
NETWORK_GBS = 50.0 * 0.85
OUR_NETWORK_SHARE = 0.95
EXCHANGE_ROUND_MS = 0.1  # a round's NCCL launch and host wait (non-blocking communicator)
NODE_GPUS = 8


def local_sequences(ranks, runs):
    s = 1
    while 2 * s * ranks <= runs:
        s *= 2
    return s


def rounds_of(n, left_sequences):
    """The k of each version-5 round that leaves `left_sequences` sequences (plan_rounds)."""
    sequences = max(1, math.ceil(n / BLOCK_KEYS))
    all_bits = math.ceil(math.log2(sequences)) if sequences > 1 else 0
    left_bits = int(math.floor(math.log2(left_sequences)))
    bits = max(0, all_bits - left_bits)
    rounds = math.ceil(bits / PER_ROUND_BITS) if bits else 0
    return [2 ** (bits // rounds + (1 if r < bits % rounds else 0)) for r in range(rounds)]


def round_ms(k, n):
    k = min(max(k, 2), 64)
    lo = 2 ** int(math.floor(math.log2(k)))
    return ROUND_MS[lo] * n / COMPONENT_KEYS


def local_plan(n, ranks):
    """Sequences left a rank (plan_local's rule) and the local rounds' ways."""
    most = local_sequences(ranks, MOST_RUNS)
    wide = min(most, local_sequences(ranks, MAX_SEQUENCES))
    rounds = rounds_of(n, wide)
    more = rounds_of(n, most)
    return (most, more) if len(more) < len(rounds) else (wide, rounds)


def single_gpu_ms(n):
    return STEP1_MS * n / COMPONENT_KEYS + sum(round_ms(k, n) for k in rounds_of(n, 1))


def splitters_ms(ranks):
    # measured at 2^28+ keys: 0.24 / 0.29 / 0.33 ms on 2 / 3 / 4 ranks
    return 0.15 + 0.045 * ranks


def parts_of(n):
    return 4 if n >= 2 ** 26 else 2 if n >= 2 ** 24 else 1


def model(total, ranks, key_bytes=4, node_gpus=NODE_GPUS, network_gbs=NETWORK_GBS,
          all_network=False, network_share=OUR_NETWORK_SHARE):
    """Phase times (ms) of one rank, as warpsort dist reports them."""
    n = total / ranks
    left, rounds = local_plan(n, ranks)
    width = key_bytes / 4  # the components are for 4-byte keys: time ~ bytes moved
    local = (STEP1_MS * n / COMPONENT_KEYS + sum(round_ms(k, n) for k in rounds)) * width + \
        PASS_FIXED_MS * (1 + len(rounds))
    runs = ranks * left
    merge = round_ms(runs, n) * width
    peers = ranks - 1
    on_node = 0 if all_network else min(ranks, node_gpus) - 1
    off_node = peers - on_node
    piece = n * key_bytes / ranks  # bytes to each peer
    group = min(ranks, node_gpus)
    nvlink = NCCL_NVLINK_GBS.get(group, NCCL_NVLINK_DEFAULT_GBS) * \
        OUR_NVLINK_SHARE.get(group, OUR_NVLINK_SHARE_DEFAULT)
    network = network_gbs * network_share
    k = parts_of(n)
    exchange = max(on_node * piece / (nvlink * 1e6) if on_node else 0.0,
                   off_node * piece / (network * 1e6) if off_node else 0.0) + k * EXCHANGE_ROUND_MS
    # warpsort dist's phases: "exchange" ends when the last part has arrived (the merges of
    # the parts before it run meanwhile), "merge" is what the merges add after that
    first = exchange / k
    exchange_phase = first + (k - 1) / k * max(exchange, merge)
    merge_after = merge / k + max(0.0, (k - 1) / k * (merge - exchange)) + MERGE_FIXED_MS
    return {"local": local, "splitters": splitters_ms(ranks), "exchange": exchange_phase,
            "merge": merge_after, "total": local + splitters_ms(ranks) + exchange_phase + merge_after,
            "exchange_alone": exchange, "runs": runs}


def read_runs(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            rows += [r for r in csv.DictReader(f)
                     if r["distribution"] == "uniform" and r["values"] == "none"
                     and r["rebalance"] == "false" and r.get("local", "warpsort") == "warpsort"
                     and r.get("last_round", "local") in ("local", "")]
    return rows


def pow2(n):
    k = math.log2(n)
    return f"2^{int(k)}" if k == int(k) else str(int(n))


def network_runs(paths):
    """The uniform keys-only runs of `paths` that timed NCCL's all-to-all, the one of them that
    moves the most bytes, and our exchange's share of NCCL's all-to-all measured on it (the
    network check: that share predicts the others)."""
    rows = [r for r in read_runs(paths) if r["nccl_alltoall_gb_s_per_gpu"]]
    if len(rows) < 2:
        sys.exit("dist_model.py: the network check needs two uniform keys-only runs that "
                 "measured NCCL's all-to-all, one to measure the share and one to predict; in " +
                 " ".join(paths))
    calibration = max(rows, key=lambda r: float(r["exchange_bytes_per_gpu"]))
    share = float(calibration["exchange_gb_s_per_gpu"]) / float(calibration["nccl_alltoall_gb_s_per_gpu"])
    return rows, calibration, share


def network_links(row, share):
    """model()'s link arguments for a run over the network at its own all-to-all speed."""
    return {"network_gbs": float(row["nccl_alltoall_gb_s_per_gpu"]), "all_network": True,
            "network_share": share}


def check(paths, **links):
    return check_rows(read_runs(paths), lambda r: links)


def check_rows(rows, links_of, note_of=lambda r: ""):
    """Prints each run's phases beside the model's (links_of(row): model()'s link arguments)
    and returns the largest misses of the rows note_of leaves unmarked."""
    print("| GPUs | total | phase | measured ms | model ms | model / measured |")
    print("|---|---|---|---|---|---|")
    worst = {"phase": 0.0, "total": 0.0}
    for r in rows:
        ranks, total = int(r["gpus"]), int(r["n"])
        if total / ranks < 2 ** 26:
            continue  # below, fixed costs the model leaves out (host waits, launches) dominate
        key_bytes = 8 if r["type"] in ("uint64", "int64", "float64") else 4
        m = model(total, ranks, key_bytes, **links_of(r))
        note = note_of(r)
        for phase, column in (("local", "local_sort_ms"), ("splitters", "splitters_ms"),
                              ("exchange", "exchange_ms"), ("merge", "merge_ms"), ("total", "ms")):
            got = float(r[column])
            ratio = m[phase] / got if got > 0 else float("nan")
            if note:
                pass  # shown, not judged
            elif phase == "total":
                worst["total"] = max(worst["total"], abs(ratio - 1))
            elif phase != "splitters" and got >= 1.0:  # phases under a millisecond: fixed costs
                worst["phase"] = max(worst["phase"], abs(ratio - 1))
            print(f"| {ranks} | {pow2(total)} {r['type']}{note} | {phase} | {got:.3f} | {m[phase]:.3f} | {ratio:.2f} |")
    return worst


def predict():
    print("| GPUs | total | keys a GPU | local | splitters | exchange (alone) | merge after | total | one GPU (extrapolated) | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for total, label in ((2 ** 34, "strong"), (None, "weak")):
        for ranks in (1, 2, 4, 8, 16, 64):
            n_total = total if total else ranks * 2 ** 29
            one = single_gpu_ms(n_total)
            if ranks == 1:
                print(f"| 1 | {pow2(n_total)} | {pow2(n_total)} | | | | | {one:.1f} | {one:.1f} | 1.00x |")
                continue
            m = model(n_total, ranks)
            print(f"| {ranks} | {pow2(n_total)} | {pow2(n_total / ranks)} | {m['local']:.1f} | "
                  f"{m['splitters']:.2f} | {m['exchange']:.1f} ({m['exchange_alone']:.1f}) | "
                  f"{m['merge']:.1f} | {m['total']:.1f} | {one:.1f} | {one / m['total']:.2f}x |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    c = sub.add_parser("check")
    c.add_argument("csv", nargs="+")
    c.add_argument("--max-total-miss", type=float, default=None,
                   help="exit with status 1 where a total misses by more (a fraction)")
    sub.add_parser("predict")
    n = sub.add_parser("network")
    n.add_argument("csv", nargs="+")
    n.add_argument("--tolerance", type=float, default=0.25)
    a = ap.parse_args()
    if a.what == "check":
        worst = check(a.csv)
        print(f"\nlargest miss: totals {worst['total']:.0%}, phases of 1 ms or more {worst['phase']:.0%}")
        if a.max_total_miss is not None and worst["total"] > a.max_total_miss:
            sys.exit(1)
    elif a.what == "predict":
        predict()
    else:
        # every peer over the network, each run at the speed NCCL's all-to-all measured in it;
        # our exchange's share of that speed (0.97 / 0.96 / 0.61 on NVLink) measured on the run
        # that moves the most bytes, and the others predicted with it
        rows, calibration, share = network_runs(a.csv)
        speeds = ", ".join("%.2f" % float(r["nccl_alltoall_gb_s_per_gpu"]) for r in rows)
        print(f"network: NCCL's all-to-all {speeds} GB/s a GPU; our exchange at {share:.3f}x it, "
              f"measured at {pow2(int(calibration['n']))} (marked *) and predicted for the others\n")
        worst = check_rows(rows, lambda r: network_links(r, share),
                           lambda r: " *" if r is calibration else "")
        miss = max(worst.values())
        print(f"\nlargest miss of the predicted runs: totals {worst['total']:.0%}, phases of 1 ms or "
              f"more {worst['phase']:.0%} ({'within' if miss <= a.tolerance else 'outside'} {a.tolerance:.0%})")
        sys.exit(0 if miss <= a.tolerance else 1)


if __name__ == "__main__":
    main()

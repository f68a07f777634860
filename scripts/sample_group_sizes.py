#!/usr/bin/env python3
"""Group sizes of step 3's regular sampling, modelled on the CPU (numpy): why the preset "paper"
(K = 32 < L = 1024) makes unbalanced groups on uniform keys and K >= L does not.

    python3 scripts/sample_group_sizes.py [--log2n 24] [--L 1024] [--S 1024] [--K 32 1024]

Models warpsort's plan for groups_on_chip = 0 (src/host/plan.cpp): L sorted sequences of n / L
uniform keys, every s-th key sampled (positions s-1, 2s-1, ...; s = n / (S K)), the sample sorted,
every K-th sample a splitter, every sequence cut after its keys <= the splitter (key-only
splitters, cut_by_key). Prints the groups' mean, max and min size for each K.
"""
import argparse

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log2n", type=int, default=24)
    ap.add_argument("--L", type=int, default=1024)
    ap.add_argument("--S", type=int, default=1024)
    ap.add_argument("--K", type=int, nargs="+", default=[32, 1024])
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    n = 1 << a.log2n
    seq = n // a.L
    x = np.random.default_rng(a.seed).integers(0, 2**32, size=n, dtype=np.uint64).reshape(a.L, seq)
    x.sort(axis=1)
    for K in a.K:
        s = max(1, n // (a.S * K))
        samples = np.sort(x[:, s - 1::s].ravel())
        splitters = samples[K - 1::K][: a.S - 1]
        below = np.zeros(len(splitters), dtype=np.int64)
        for i in range(a.L):
            below += np.searchsorted(x[i], splitters, side="right")
        sizes = np.diff(np.concatenate([[0], below, [n]]))
        print(f"n=2^{a.log2n} L={a.L} S={a.S} K={K}: stride {s}, {len(samples)} samples, "
              f"{len(sizes)} groups: mean {sizes.mean():.0f}, max {sizes.max()}, min {sizes.min()}")


if __name__ == "__main__":
    main()

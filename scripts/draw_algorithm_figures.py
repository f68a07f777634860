#!/usr/bin/env python3
"""Diagrams of warpsort's four steps, computed from small real examples.

    python3 scripts/draw_algorithm_figures.py --out docs/figures/algorithm

Every drawing is the result of running the index rules of include/warpsort/detail/stages/index_math.hpp
(keeps_min, run_ascends, merge_path, bitonic_tile_slot, sample_site_of, splitter_rank,
cut_sequence), re-implemented below, on a small example with a fixed seed, so the figures
follow the algorithm rather than a hand-drawn picture of it. The step 2 buffer figure runs the
paper's t-buffer rules (reversed_source, choose_refill), which version 1 of warpsort
implemented and version 2 replaced by merge tiles. Each simulation checks its result (sorted
output, group sizes within the bound) before anything is drawn.

Writes into --out (150 dpi PNGs):
    step1_bitonic_chunk.png  bitonic sorting network on a 16-key chunk, blocked layout,
                             4 keys a lane: comparator directions, register swaps vs shuffles
    step2_merge_buffer.png   the paper's warp merge buffer, round by round, on two 12-key
                             sequences (t = 8): reversed loads, network, emitted half, refill
    step2_merge_tiles.png    the merge as implemented (steps 2 and 4): outputs cut into tiles
                             by merge path, each tile loaded bitonic and sorted by one network
    step3_splitting.png      regular sampling of L = 4 sequences with duplicate keys, the sorted
                             sample and its splitters, the (key, position) cuts and the groups
    step4_final_merge.png    one group's L pieces merged pairwise in ceil(log2 L) rounds and
                             written at the group's offset (a prefix sum of the group sizes)
Needs matplotlib and numpy (Debian: /usr/bin/python3 with python3-matplotlib).
"""

import argparse
import heapq
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Patch, Rectangle  # noqa: E402

DPI = 150
plt.rcParams.update({
    "font.size": 11,
    "font.family": "DejaVu Sans",
    "axes.titlesize": 13,
    "figure.titlesize": 15,
    "savefig.facecolor": "white",
})

COL_A = "#4C78A8"       # input A / in-lane comparators
COL_A_LIGHT = "#C6D7EC"
COL_B = "#F58518"       # input B / cross-lane comparators
COL_B_LIGHT = "#FCD9B5"
COL_EMIT = "#2CA02C"
GROUP_COLOURS = ["#8DD3C7", "#FFED6F", "#BEBADA", "#FB8072", "#80B1D3", "#FDB462"]
SEQ_COLOURS = ["#A6CEE3", "#B2DF8A", "#FDBF6F", "#CAB2D6", "#FB9A99", "#E5D8BD"]


# ------------------------------------------------------------------ index rules (index_math.hpp)

def run_ascends(slot, k):
    return (slot & k) == 0


def keeps_min(slot, k, j):
    return ((slot & j) == 0) == run_ascends(slot, k)


def blocked_lane(slot, keys_per_lane):
    """Blocked layout: lane l holds slots l*V .. l*V+V-1 (blocked_slot(lane, reg, V))."""
    return slot // keys_per_lane


def reversed_source(slot, half):
    return half - 1 - slot


FROM_A, FROM_B, NONE = "A", "B", "none"


def choose_refill(a_left, b_left, b_last_before_a_last):
    if a_left and (not b_left or not b_last_before_a_last):
        return FROM_A
    if b_left:
        return FROM_B
    return NONE


def samples_in(length, stride):
    return length // stride


def sample_site_of(m, seq_len, stride):
    per_seq = samples_in(seq_len, stride)
    return m // per_seq, (m % per_seq + 1) * stride - 1


def splitter_rank(j, oversampling):
    return (j + 1) * oversampling - 1


def cut_sequence(seq, seq_index, splitter_seq, splitter_pos, splitter_key):
    """Ascending order (comp = <)."""
    if seq_index == splitter_seq:
        return splitter_pos + 1
    upper = seq_index < splitter_seq
    lo, hi = 0, len(seq)
    while lo < hi:
        mid = (lo + hi) // 2
        skip = (not splitter_key < seq[mid]) if upper else (seq[mid] < splitter_key)
        if skip:
            lo = mid + 1
        else:
            hi = mid
    return lo


def ceil_log2(x):
    r = 0
    while (1 << r) < x:
        r += 1
    return r


# ------------------------------------------------------------------ drawing helpers

def cells(ax, x, y, values, facecolors, w=1.0, h=1.0, fontsize=10, edge="#444444", lw=0.8,
          textcolors=None, bold=None):
    """A row of boxed cells, the first with its lower-left corner at (x, y)."""
    for i, v in enumerate(values):
        fc = facecolors[i] if isinstance(facecolors, (list, tuple)) else facecolors
        ax.add_patch(Rectangle((x + i * w, y), w, h, facecolor=fc, edgecolor=edge, lw=lw))
        if v is not None and v != "":
            tc = textcolors[i] if textcolors else "black"
            fw = "bold" if bold and bold[i] else "normal"
            ax.text(x + (i + 0.5) * w, y + h / 2, str(v), ha="center", va="center",
                    fontsize=fontsize, color=tc, fontweight=fw)


def arrow(ax, p, q, colour="#333333", lw=1.4, style="-|>", mutation=14, **kw):
    ax.add_patch(FancyArrowPatch(p, q, arrowstyle=style, mutation_scale=mutation, color=colour,
                                 lw=lw, shrinkA=0, shrinkB=0, **kw))


def save(fig, out, name):
    path = os.path.join(out, name)
    fig.savefig(path, dpi=DPI, bbox_inches="tight", pad_inches=0.15)
    plt.close(fig)
    print(f"wrote {path}")


# ------------------------------------------------------------------ step 1

def bitonic_network(n):
    """[(k, j, [(lower, upper, lower_keeps_min), ...]), ...] for a full bitonic sort."""
    steps = []
    k = 2
    while k <= n:
        j = k // 2
        while j >= 1:
            comps = []
            for slot in range(n):
                partner = slot ^ j
                if partner > slot:
                    km = keeps_min(slot, k, j)
                    # the partner makes the mirror-image choice (compare_exchange_lanes)
                    assert keeps_min(partner, k, j) == (not km)
                    comps.append((slot, partner, km))
            steps.append((k, j, comps))
            j //= 2
        k *= 2
    return steps


def draw_step1(out):
    n, v = 16, 4                     # 16 slots, 4 keys a lane (4 lanes); 128 = 32 x 4 for real
    lanes = n // v
    rng = np.random.default_rng(1)
    keys = [int(x) for x in rng.choice(np.arange(10, 100), size=n, replace=False)]
    steps = bitonic_network(n)

    # simulate, recording the keys after each phase (k)
    vals = list(keys)
    after_phase = {}
    for k, j, comps in steps:
        for lo, hi, km in comps:
            if (vals[hi] < vals[lo]) if km else (vals[lo] < vals[hi]):
                vals[lo], vals[hi] = vals[hi], vals[lo]
        if j == 1:
            after_phase[k] = list(vals)
    assert vals == sorted(keys), "bitonic network did not sort"

    # x layout: one sub-column per comparator family (slot mod j) so lines never overlap
    x = 2.2
    gap_step, gap_sub, gap_phase = 0.75, 0.42, 1.6
    positions = []             # per step: x of each comparator
    phase_span = {}
    value_x = {}
    for si, (k, j, comps) in enumerate(steps):
        if j == k // 2:
            start = x
        xs = [x + (lo % j) * gap_sub for lo, _, _ in comps]
        positions.append(xs)
        x += (j - 1) * gap_sub + gap_step
        if j == 1:
            phase_span[k] = (start - 0.35, x - gap_step + 0.35)
            value_x[k] = x - gap_step + 0.75
            x += gap_phase
    x_end = x - gap_phase + 0.6

    fig, ax = plt.subplots(figsize=(15, 8.2))
    y_of = lambda s: n - 1 - s  # slot 0 on top

    # lane bands
    for lane in range(lanes):
        y0 = y_of(lane * v + v - 1) - 0.5
        ax.add_patch(Rectangle((-1.8, y0), x_end + 2.6, v, facecolor="#F2F2F2" if lane % 2 else
                               "white", edgecolor="none", zorder=0))
        ax.text(-1.65, y0 + v / 2, f"lane {lane}", rotation=90, ha="center", va="center",
                fontsize=11, fontweight="bold", color="#555555")
    # phase bands
    for k, (x0, x1) in phase_span.items():
        ax.add_patch(Rectangle((x0, -0.75), x1 - x0, n + 0.5, facecolor="none",
                               edgecolor="#999999", lw=0.9, ls=":", zorder=1))
        ax.text((x0 + x1) / 2, n + 0.05, f"phase k = {k}\n(runs of {k})", ha="center",
                va="bottom", fontsize=10.5)
    # wires, slot labels, input and output keys
    for s in range(n):
        y = y_of(s)
        ax.plot([0.9, x_end], [y, y], color="#555555", lw=0.9, zorder=2)
        ax.text(-0.95, y, f"slot {s}\nr{s % v}", ha="center", va="center", fontsize=8.5,
                color="#555555", linespacing=0.9)
        ax.text(0.45, y, str(keys[s]), ha="center", va="center", fontsize=10,
                bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="#888888", lw=0.7))
    ax.text(0.45, n - 0.3, "input", ha="center", va="bottom", fontsize=10, fontweight="bold")
    # keys after every phase
    for k, xv in value_x.items():
        final = k == n
        for s in range(n):
            ax.text(xv, y_of(s), str(after_phase[k][s]), ha="center", va="center",
                    fontsize=9.5 if final else 8.5, zorder=5,
                    fontweight="bold" if final else "normal",
                    bbox=dict(boxstyle="round,pad=0.15", fc="#FFFBE6" if not final else "#E7F5E1",
                              ec="#BBBBBB", lw=0.5))
        if final:
            ax.text(xv, n - 0.3, "sorted", ha="center", va="bottom", fontsize=10,
                    fontweight="bold")
    # comparators
    for (k, j, comps), xs in zip(steps, positions):
        for (lo, hi, km), xc in zip(comps, xs):
            in_lane = blocked_lane(lo, v) == blocked_lane(hi, v)
            colour = COL_A if in_lane else COL_B
            # arrowhead at the slot that receives the larger key
            src, dst = (lo, hi) if km else (hi, lo)
            ax.plot([xc], [y_of(src)], "o", color=colour, ms=4.5, zorder=4)
            arrow(ax, (xc, y_of(src)), (xc, y_of(dst)), colour=colour, lw=1.7, mutation=11,
                  zorder=4)
        ax.text(xs[0] + (j - 1) * gap_sub / 2, -0.95, f"j={j}", ha="center", va="top",
                fontsize=8.5, color="#333333")

    handles = [
        Line2D([0], [0], color=COL_A, lw=2.2, marker="o", ms=5,
               label="partners in the same lane: register compare-exchange (j < 4)"),
        Line2D([0], [0], color=COL_B, lw=2.2, marker="o", ms=5,
               label="partners in different lanes: __shfl_xor_sync, lane mask j/4 (j >= 4)"),
    ]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.005), ncol=2,
              fontsize=10, frameon=False)
    ax.text(0.5, -0.06,
            "Arrow: from the slot that keeps the smaller key to the slot that receives the larger "
            "(keeps_min(slot, k, j) = ((slot & j) == 0) == ((slot & k) == 0)).  Blocked layout: "
            "lane l holds slots 4l..4l+3 in registers r0..r3.\nYellow boxes: keys after each "
            "phase (runs of k, alternately ascending and descending).  Every lane runs the same "
            "selects: no divergent branch.",
            transform=ax.transAxes, ha="center", va="top", fontsize=9.5, color="#333333")
    ax.set_xlim(-1.9, x_end + 0.8)
    ax.set_ylim(-1.5, n + 1.2)
    ax.axis("off")
    ax.set_title("Step 1: a warp sorts a chunk with a bitonic network\n"
                 "(16 keys, 4 lanes x 4 keys shown; 128 keys = 32 lanes x 4 in the "
                 "implementation, 28 steps)", fontsize=14)
    save(fig, out, "step1_bitonic_chunk.png")


# ------------------------------------------------------------------ step 2

def merge_network(buf, tags):
    """bitonic_merge_warp: the last phase (k = t) of the network, all ascending."""
    t = len(buf)
    j = t // 2
    while j >= 1:
        for s in range(t):
            p = s ^ j
            if p > s:
                km = keeps_min(s, t, j)
                assert km  # the last phase ascends everywhere
                if buf[p] < buf[s]:  # equal keys stay put
                    buf[s], buf[p] = buf[p], buf[s]
                    tags[s], tags[p] = tags[p], tags[s]
        j //= 2


def simulate_merge(a, b, t):
    """merge_by_warp on the host, recording every round. Keys past an input's end: sentinel."""
    half = t // 2
    sentinel = math.inf
    na, nb = len(a), len(b)

    def block(seq, tag, start, rev):
        ks = [(seq[start + i], f"{tag}{start + i}") if start + i < len(seq) else (sentinel, "pad")
              for i in range(half)]
        if rev:
            ks = [ks[reversed_source(s, half)] for s in range(half)]
        return ks

    lower = block(a, "A", 0, True)
    upper = block(b, "B", 0, False)
    buf = [k for k, _ in lower + upper]
    tags = [g for _, g in lower + upper]
    a_next = b_next = half
    a_last, b_last = buf[0], buf[t - 1]
    rounds, out = [], []
    total = na + nb
    while True:
        source = choose_refill(a_next < na, b_next < nb, b_last < a_last)
        info = dict(before=list(buf), before_tags=list(tags), a_last=a_last, b_last=b_last,
                    source=source, a_next=a_next, b_next=b_next)
        nxt = None
        if source == FROM_A:
            nxt = block(a, "A", a_next, True)
            a_next += half
        elif source == FROM_B:
            nxt = block(b, "B", b_next, True)
            b_next += half
        merge_network(buf, tags)
        assert buf == sorted(buf)
        info.update(after=list(buf), after_tags=list(tags), refill=nxt)
        out.extend(zip(buf[:half], tags[:half]))  # store_striped: only real outputs count
        if source == NONE:
            out.extend((k, g) for k, g in zip(buf[half:], tags[half:]) if k != sentinel)
            info["flush"] = True
            rounds.append(info)
            break
        rounds.append(info)
        buf[:half] = [k for k, _ in nxt]
        tags[:half] = [g for _, g in nxt]
        last = buf[0]
        if source == FROM_A:
            a_last = last
        else:
            b_last = last
    out = out[:total]
    assert [k for k, _ in out] == sorted(a + b), "merge simulation is wrong"
    return rounds, out


def tag_colour(tag, strong=False, pad="#DDDDDD"):
    """Cell colour of a key tagged A... or B... (or padding)."""
    if tag.startswith("A"):
        return COL_A if strong else COL_A_LIGHT
    if tag.startswith("B"):
        return COL_B if strong else COL_B_LIGHT
    return pad


def merge_figure(rows, row_h, header):
    """A figure for `rows` rows of row_h under a header of the given height: (fig, ax, top)."""
    top = rows * row_h + header
    fig, ax = plt.subplots(figsize=(16, 0.52 * (top + 1.8)))
    return fig, ax, top


def side_note(ax, x, top, text):
    ax.text(x, top - 1.75, text, ha="left", va="center", fontsize=10, color="#333333")


def merge_columns(width):
    """x of the network's input, of its output and of the output row; output cell width."""
    return 2.6, 2.6 + width + 2.4, 2.6 + 2 * width + 5.0, 0.62


def column_headers(ax, yh, columns):
    """Bold headers [(x centre, text)] at height yh."""
    for x, text in columns:
        ax.text(x, yh, text, ha="center", va="bottom", fontsize=10.5, fontweight="bold")


def two_sorted_inputs(seed, na, nb, high):
    rng = np.random.default_rng(seed)
    return (sorted(int(x) for x in rng.integers(1, high, size=na)),
            sorted(int(x) for x in rng.integers(1, high, size=nb)))


def draw_inputs(ax, xa, top, a, b):
    """The rows A = ... and B = ...; returns [(name, seq, y)] for the per-figure marks."""
    rows = [("A", a, top - 0.9), ("B", b, top - 2.65)]
    for name, seq, y in rows:
        strong, light = (COL_A, COL_A_LIGHT) if name == "A" else (COL_B, COL_B_LIGHT)
        cells(ax, xa, y, seq, [light] * len(seq), fontsize=10.5)
        ax.text(xa - 0.3, y + 0.5, f"{name} =", ha="right", va="center", fontsize=12,
                fontweight="bold", color=strong)
    return rows


def finish_merge_figure(ax, handles, xmax, ymin, top, title, fontsize):
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(handles),
              fontsize=10, frameon=False)
    ax.set_xlim(0, xmax)
    ax.set_ylim(ymin, top + 0.6)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=fontsize)


def draw_step2(out):
    t, half, n_each = 8, 4, 12
    a, b = two_sorted_inputs(7, n_each, n_each, 60)
    rounds, merged = simulate_merge(a, b, t)

    # which round loaded each block of A and B
    loaded_in = {("A", 0): 0, ("B", 0): 0}
    for r, info in enumerate(rounds):
        if info["source"] == FROM_A:
            loaded_in[("A", info["a_next"] // half)] = r + 1
        elif info["source"] == FROM_B:
            loaded_in[("B", info["b_next"] // half)] = r + 1

    colour = tag_colour
    nr = len(rounds)
    row_h = 2.35
    fig, ax, top = merge_figure(nr, row_h, 5.0)

    # inputs A and B with their blocks
    xa = 2.6
    for name, seq, y in draw_inputs(ax, xa, top, a, b):
        for blk in range(len(seq) // half):
            x0 = xa + blk * half
            ax.add_patch(Rectangle((x0, y), half, 1, fill=False, ec=colour(name, True), lw=2.2))
            r = loaded_in.get((name, blk))
            ax.text(x0 + half / 2, y + 1.08, f"block {blk}: round {r}", ha="center",
                    va="bottom", fontsize=8.5, color="#333333")
    side_note(ax, xa + n_each + 0.8, top,
              f"two sorted inputs of {n_each} keys; buffer t = {t} keys, halves of {half};\n"
              "block labels: the round whose buffer the block enters\n"
              "(version 1 of warpsort used t = 128, halves of 64, striped over 32 lanes:\n"
              " register r of lane l holds slot 32r + l)")

    # column headers
    xb, xc, xo, cw = merge_columns(t)
    yh = top - 4.05
    column_headers(ax, yh, [
        (xb + t / 2, "buffer entering the network\n(bitonic: lower half reversed)"),
        (xc + t / 2, "after the bitonic merge network\n(lower half is final: emitted)"),
        (xo + (2 * n_each) * cw / 2, "output so far")])

    done = 0
    for r, info in enumerate(rounds):
        y = yh - 1.35 - r * row_h
        ax.text(0.2, y + 0.5, f"round {r}", ha="left", va="center", fontsize=11,
                fontweight="bold")
        show = lambda ks: ["" if k == math.inf else k for k in ks]
        cells(ax, xb, y, show(info["before"]), [colour(g) for g in info["before_tags"]],
              fontsize=10.5)
        ax.plot([xb + half, xb + half], [y - 0.1, y + 1.1], color="black", lw=2)
        ax.text(xb + half / 2, y - 0.08, "lower half", ha="center", va="top", fontsize=8,
                color="#555555")
        ax.text(xb + half * 1.5, y - 0.08, "upper half", ha="center", va="top", fontsize=8,
                color="#555555")
        arrow(ax, (xb + t + 0.3, y + 0.5), (xc - 0.3, y + 0.5), lw=1.6)
        ax.text((xb + t + xc) / 2, y + 0.75, "network", ha="center", va="bottom", fontsize=8.5)
        cells(ax, xc, y, show(info["after"]), [colour(g) for g in info["after_tags"]],
              fontsize=10.5)
        n_emit = t if info.get("flush") else half
        ax.add_patch(Rectangle((xc - 0.06, y - 0.06), n_emit + 0.12, 1.12, fill=False,
                               ec=COL_EMIT, lw=2.6))
        arrow(ax, (xc + t + 0.3, y + 0.5), (xo - 0.3, y + 0.5), colour=COL_EMIT, lw=1.6)
        ax.text((xc + t + xo) / 2 + 0.1, y + 0.75, "emit" if not info.get("flush") else
                "emit all 8", ha="center", va="bottom", fontsize=8.5, color=COL_EMIT)
        # output so far
        new = done + n_emit
        ks = [k for k, _ in merged[:new]]
        fcs = [colour(g, False) for _, g in merged[:new]]
        cells(ax, xo, y, ks, fcs, w=cw, fontsize=8.5, bold=[i >= done for i in range(new)])
        if new > done:
            ax.add_patch(Rectangle((xo + done * cw, y), (new - done) * cw, 1, fill=False,
                                   ec=COL_EMIT, lw=2.2))
        done = new
        # refill decision
        src = info["source"]
        if src == NONE:
            txt = "both inputs spent: store the lower half, then flush the upper half"
        else:
            blk = (info["a_next"] if src == FROM_A else info["b_next"]) // half
            seq = a if src == FROM_A else b
            nxt_keys = seq[blk * half:(blk + 1) * half]
            other = "B" if src == FROM_A else "A"
            mine = info["a_last"] if src == FROM_A else info["b_last"]
            theirs = info["b_last"] if src == FROM_A else info["a_last"]
            why = ("B is spent" if info["b_next"] >= len(b) else
                   "A is spent" if info["a_next"] >= len(a) else
                   f"{src}'s {mine} = {other}'s {theirs}: ties go to A" if mine == theirs else
                   f"{src}'s {mine} < {other}'s {theirs}")
            txt = (f"choose_refill: last loaded A = {info['a_last']}, B = {info['b_last']}  ->  "
                   f"refill from {src} ({why}): next lower half = {src} block {blk} "
                   f"{nxt_keys} reversed")
        ax.text(xb, y - 0.62, txt, ha="left", va="top", fontsize=9, style="italic",
                color=colour(src, True) if src != NONE else "#333333")

    handles = [Patch(fc=COL_A_LIGHT, ec="#444444", label="key from A"),
               Patch(fc=COL_B_LIGHT, ec="#444444", label="key from B"),
               Patch(fc="white", ec=COL_EMIT, lw=2.2, label="emitted (final) keys")]
    finish_merge_figure(ax, handles, xo + 2 * n_each * cw + 0.5,
                        yh - 1.35 - (nr - 1) * row_h - 1.2, top,
                        "The paper's step 2: a warp merges two sorted sequences through a t-key "
                        "buffer (merge_by_warp, choose_refill)", 14)
    save(fig, out, "step2_merge_buffer.png")


def merge_path(a, b, diag):
    """merge_path (index_math.hpp): outputs among the first `diag` taken from A, ties to A."""
    lo, hi = max(0, diag - len(b)), min(diag, len(a))
    while lo < hi:
        mid = (lo + hi) // 2
        if b[diag - 1 - mid] < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def bitonic_tile_slot(slot, na, nb, tile):
    """bitonic_tile_slot (index_math.hpp): A's share ascending, B's reversed, padding between."""
    if slot < na:
        return "A", slot
    if slot >= tile - nb:
        return "B", tile - 1 - slot
    return "pad", 0


def simulate_tiles(a, b, tile):
    """merge_range_by_warp on the host: every tile cut by merge path, loaded bitonic, merged."""
    total = len(a) + len(b)
    tiles, out, a0 = [], [], 0
    for d in range(0, total, tile):
        count = min(tile, total - d)
        a1 = merge_path(a, b, d + count)
        na, nb, b0 = a1 - a0, count - (a1 - a0), d - a0
        buf, tags = [], []
        for s in range(tile):
            src, i = bitonic_tile_slot(s, na, nb, tile)
            if src == "A":
                buf.append(a[a0 + i])
                tags.append(f"A{a0 + i}")
            elif src == "B":
                buf.append(b[b0 + i])
                tags.append(f"B{b0 + i}")
            else:
                buf.append(math.inf)
                tags.append("pad")
        before, before_tags = list(buf), list(tags)
        merge_network(buf, tags)
        assert buf == sorted(buf), "tile network did not sort"
        out.extend(zip(buf[:count], tags[:count]))
        tiles.append(dict(d=d, count=count, a0=a0, a1=a1, b0=b0, b1=b0 + nb, before=before,
                          before_tags=before_tags, after=buf, after_tags=tags))
        a0 = a1
    assert [k for k, _ in out] == sorted(a + b), "tile merge simulation is wrong"
    return tiles, out


def draw_step2_tiles(out):
    tile, na_, nb_ = 8, 12, 9
    a, b = two_sorted_inputs(11, na_, nb_, 40)
    tiles, merged = simulate_tiles(a, b, tile)
    tile_cols = ["#8DD3C7", "#FFED6F", "#BEBADA", "#FB8072"]

    def colour(tag):
        return tag_colour(tag, pad="#EEEEEE")

    nt = len(tiles)
    row_h = 2.6
    fig, ax, top = merge_figure(nt, row_h, 5.2)
    xa = 2.6
    # inputs, each key framed in the colour of the tile that takes it
    owner = {}
    for t_i, t in enumerate(tiles):
        for i in range(t["a0"], t["a1"]):
            owner[("A", i)] = t_i
        for i in range(t["b0"], t["b1"]):
            owner[("B", i)] = t_i
    for name, seq, y in draw_inputs(ax, xa, top, a, b):
        for i in range(len(seq)):
            t_i = owner[(name, i)]
            ax.add_patch(Rectangle((xa + i + 0.08, y - 0.32), 0.84, 0.2,
                                   color=tile_cols[t_i % len(tile_cols)], lw=0))
    side_note(ax, xa + max(na_, nb_) + 0.8, top,
              f"two sorted sequences ({na_} and {nb_} keys), tiles of {tile} outputs;\n"
              "the bar under a key: the tile that outputs it (cut by merge path)\n"
              "(tiles of 256 outputs, 8 keys a lane over 32 lanes, in the implementation;\n"
              " a short last tile uses a 64- or 128-key network)")

    xb, xc, xo, cw = merge_columns(tile)
    yh = top - 4.3
    column_headers(ax, yh, [
        (xb + tile / 2, "tile loaded bitonic\n(A's share ascending, B's reversed)"),
        (xc + tile / 2, f"after the {ceil_log2(tile)}-level bitonic\nmerge network"),
        (xo + len(merged) * cw / 2, "output")])
    show = lambda ks: ["" if k == math.inf else k for k in ks]
    for t_i, t in enumerate(tiles):
        y = yh - 1.35 - t_i * row_h
        ax.add_patch(Rectangle((0.15, y + 0.1), 0.35, 0.8, color=tile_cols[t_i % len(tile_cols)],
                               lw=0))
        ax.text(0.65, y + 0.5, f"tile {t_i}", ha="left", va="center", fontsize=11,
                fontweight="bold")
        cells(ax, xb, y, show(t["before"]), [colour(g) for g in t["before_tags"]], fontsize=10.5)
        arrow(ax, (xb + tile + 0.3, y + 0.5), (xc - 0.3, y + 0.5), lw=1.6)
        ax.text((xb + tile + xc) / 2, y + 0.75, "network", ha="center", va="bottom",
                fontsize=8.5)
        cells(ax, xc, y, show(t["after"]), [colour(g) for g in t["after_tags"]], fontsize=10.5)
        ax.add_patch(Rectangle((xc - 0.06, y - 0.06), t["count"] + 0.12, 1.12, fill=False,
                               ec=COL_EMIT, lw=2.6))
        arrow(ax, (xc + tile + 0.3, y + 0.5), (xo + t["d"] * cw - 0.3, y + 0.5),
              colour=COL_EMIT, lw=1.6)
        seg = merged[t["d"]:t["d"] + t["count"]]
        cells(ax, xo + t["d"] * cw, y, [k for k, _ in seg], [colour(g) for _, g in seg], w=cw,
              fontsize=8.5)
        pad = tile - t["count"]
        txt = (f"outputs [{t['d']}, {t['d'] + t['count']}): merge_path gives "
               f"A[{t['a0']}, {t['a1']}) and B[{t['b0']}, {t['b1']})"
               + (f"; {pad} padding slots (sort last)" if pad else ""))
        ax.text(xb, y - 0.25, txt, ha="left", va="top", fontsize=9, style="italic",
                color="#333333")
    handles = [Patch(fc=COL_A_LIGHT, ec="#444444", label="key from A"),
               Patch(fc=COL_B_LIGHT, ec="#444444", label="key from B"),
               Patch(fc="#EEEEEE", ec="#444444", label="padding (sentinel)"),
               Patch(fc="white", ec=COL_EMIT, lw=2.2, label="the tile's outputs")]
    finish_merge_figure(ax, handles, xo + len(merged) * cw + 0.5,
                        yh - 1.35 - (nt - 1) * row_h - 1.2, top,
                        "Steps 2 and 4 as implemented: each tile of outputs cut by merge path, "
                        "loaded as one bitonic sequence, sorted by one network "
                        "(merge_range_by_warp)", 13)
    save(fig, out, "step2_merge_tiles.png")


# ------------------------------------------------------------------ step 3

def split_example():
    """L sorted sequences with duplicates, sampled, split and cut as in split.cu."""
    L, seq_len, s, K = 4, 16, 4, 4
    rng = np.random.default_rng(3)
    seqs = []
    for i in range(L):
        keys = rng.integers(0, 12, size=seq_len)
        if i == 1:
            keys[3:11] = 5  # a run of one repeated key
        seqs.append(sorted(int(x) for x in keys))
    per_seq = samples_in(seq_len, s)
    M = L * per_seq
    samples = []
    for m in range(M):
        seq, pos = sample_site_of(m, seq_len, s)
        samples.append((seqs[seq][pos], seq * seq_len + pos, seq, pos))  # (key, global pos)
    order = sorted(samples)  # by (key, position): a stable sort by key of the gathered sample
    S = M // K
    splitters = [order[splitter_rank(j, K)] for j in range(S - 1)]
    cuts = [[cut_sequence(seqs[i], i, sp[2], sp[3], sp[0]) for sp in splitters] + [seq_len]
            for i in range(L)]
    # check: the cuts hold exactly the elements ordered at or before each splitter
    everything = sorted((seqs[i][p], i * seq_len + p) for i in range(L) for p in range(seq_len))
    for j, sp in enumerate(splitters):
        before = sum(1 for e in everything if e <= (sp[0], sp[1]))
        assert sum(cuts[i][j] for i in range(L)) == before
    sizes = [sum(cuts[i][j] - (cuts[i][j - 1] if j else 0) for i in range(L)) for j in range(S)]
    offsets = [0]
    for sz in sizes:
        offsets.append(offsets[-1] + sz)
    bound = (K + L) * s
    assert max(sizes) <= bound
    group_of = [[next(j for j in range(S) if p < cuts[i][j]) for p in range(seq_len)]
                for i in range(L)]
    return dict(L=L, seq_len=seq_len, s=s, K=K, S=S, M=M, seqs=seqs, samples=samples,
                order=order, splitters=splitters, cuts=cuts, sizes=sizes, offsets=offsets,
                bound=bound, group_of=group_of)


def draw_step3(out):
    ex = split_example()
    L, n, s, K, S = ex["L"], ex["seq_len"], ex["s"], ex["K"], ex["S"]
    seqs, cuts, group_of = ex["seqs"], ex["cuts"], ex["group_of"]
    splitter_sites = {(sp[2], sp[3]): j for j, sp in enumerate(ex["splitters"])}
    sample_sites = {(smp[2], smp[3]) for smp in ex["samples"]}

    fig = plt.figure(figsize=(15, 8.6))
    ax = fig.add_axes([0.0, 0.345, 0.74, 0.575])
    ax.set_anchor("W")  # both panels keep the same x scale and left edge
    x0 = 2.2
    row_gap = 2.3
    y_top = (L - 1) * row_gap + 3.2
    # column index ruler
    for p in range(n):
        ax.text(x0 + p + 0.5, y_top + 0.15, str(p), ha="center", va="bottom", fontsize=8,
                color="#666666")
    ax.text(x0 - 0.2, y_top + 0.15, "position", ha="right", va="bottom", fontsize=8,
            color="#666666")
    for i in range(L):
        y = y_top - 1.0 - i * row_gap
        fcs = [GROUP_COLOURS[group_of[i][p]] for p in range(n)]
        cells(ax, x0, y, seqs[i], fcs, fontsize=11)
        ax.text(x0 - 0.25, y + 0.5, f"seq {i}", ha="right", va="center", fontsize=11.5,
                fontweight="bold")
        for p in range(n):
            if (i, p) in sample_sites:
                is_sp = (i, p) in splitter_sites
                ax.add_patch(Rectangle((x0 + p, y), 1, 1, fill=False,
                                       ec="#C00000" if is_sp else "black",
                                       lw=3.0 if is_sp else 1.8))
                ax.plot([x0 + p + 0.5], [y - 0.22], marker="*" if is_sp else "^",
                        color="#C00000" if is_sp else "black", ms=11 if is_sp else 6)
                if is_sp:
                    ax.text(x0 + p + 0.5, y - 0.45, f"splitter {splitter_sites[(i, p)]}",
                            ha="center", va="top", fontsize=8.5, color="#C00000")
        # cuts: thick lines, labelled by splitter (several splitters can cut at one place)
        at = {}
        for j in range(S - 1):
            at.setdefault(cuts[i][j], []).append(j)
        for c, js in at.items():
            xc = x0 + c
            ax.plot([xc, xc], [y - 0.15, y + 1.35], color="#C00000", lw=2.6)
            lab = ",".join(str(j) for j in js)
            ax.text(xc, y + 1.38, f"cut {lab}", ha="center", va="bottom", fontsize=8.5,
                    color="#C00000")
        # per-row piece sizes
        pieces = [cuts[i][j] - (cuts[i][j - 1] if j else 0) for j in range(S)]
        ax.text(x0 + n + 0.4, y + 0.5, "pieces " + " | ".join(str(q) for q in pieces),
                ha="left", va="center", fontsize=9.5)
    ax.set_xlim(0, x0 + n + 4.5)
    ax.set_ylim(y_top - 1.0 - (L - 1) * row_gap - 1.2, y_top + 0.8)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"L = {L} sorted sequences: sampled every s = {s}th key (positions s-1, 2s-1, "
                 f"...), cut at every splitter", fontsize=12, loc="left")

    # the sorted sample
    ax2 = fig.add_axes([0.0, 0.045, 0.74, 0.25])
    ax2.set_anchor("W")
    M = ex["M"]
    order = ex["order"]
    w = 1.0
    for r, (key, gpos, seq, pos) in enumerate(order):
        is_sp = (r + 1) % K == 0 and r < (S - 1) * K
        g = min(r // K, S - 1)
        ax2.add_patch(Rectangle((x0 + r * w, 0), w, 1.4, facecolor=GROUP_COLOURS[g],
                                edgecolor="#C00000" if is_sp else "#444444",
                                lw=3.0 if is_sp else 0.8))
        ax2.text(x0 + (r + 0.5) * w, 0.95, str(key), ha="center", va="center", fontsize=11,
                 fontweight="bold")
        ax2.text(x0 + (r + 0.5) * w, 0.36, f"seq{seq}\npos{pos}", ha="center", va="center",
                 fontsize=7, linespacing=0.9)
        ax2.text(x0 + (r + 0.5) * w, 1.5, str(r), ha="center", va="bottom", fontsize=8,
                 color="#666666")
        if is_sp:
            ax2.plot([x0 + (r + 0.5) * w], [-0.3], marker="*", color="#C00000", ms=12)
            ax2.text(x0 + (r + 0.5) * w, -0.55, f"splitter {(r + 1) // K - 1}\n"
                     f"rank {r} = (j+1)K-1", ha="center", va="top", fontsize=8,
                     color="#C00000")
    ax2.text(x0 - 0.25, 0.7, "sorted\nsample", ha="right", va="center", fontsize=11,
             fontweight="bold")
    ax2.text(x0 - 0.2, 1.5, "rank", ha="right", va="bottom", fontsize=8, color="#666666")
    ax2.set_xlim(0, x0 + n + 4.5)
    ax2.set_ylim(-1.8, 2.2)
    ax2.set_aspect("equal")
    ax2.axis("off")
    ax2.set_title(f"the M = {M} samples (key, sequence, position) sorted by (key, position);"
                  f" every K = {K}th is a splitter", fontsize=12, loc="left")

    # group sizes against the bound
    ax3 = fig.add_axes([0.80, 0.53, 0.18, 0.36])
    sizes, bound = ex["sizes"], ex["bound"]
    ax3.bar(range(S), sizes, color=[GROUP_COLOURS[g] for g in range(S)], edgecolor="#444444")
    for g, sz in enumerate(sizes):
        ax3.text(g, sz + 0.6, str(sz), ha="center", va="bottom", fontsize=10)
    mean = L * n / S
    ax3.axhline(bound, color="#C00000", ls="--", lw=1.6, label=f"bound (K+L)s = {bound}")
    ax3.axhline(mean, color="#555555", ls=":", lw=1.6, label=f"mean = {mean:g} (about Ks)")
    ax3.legend(loc="upper left", fontsize=8.5, frameon=False)
    ax3.set_xticks(range(S))
    ax3.set_xticklabels([f"group {g}" for g in range(S)], fontsize=9, rotation=30)
    ax3.set_ylabel("keys in the group")
    ax3.set_ylim(0, bound * 1.45)
    ax3.set_title("group sizes", fontsize=12)
    ax3.spines[["top", "right"]].set_visible(False)

    # the cut rule
    fig.text(0.77, 0.43,
             "Cut rule for a splitter (key k, sequence i*, position p*),\n"
             "so that each cut keeps exactly the keys ordered at or\n"
             "before the splitter in (key, position) order:\n"
             "  - sequences i < i*: cut after the keys <= k (upper bound)\n"
             "  - sequences i > i*: cut before the keys >= k (lower bound)\n"
             "  - sequence i* itself: cut just after position p*\n\n"
             "Group j = the keys between cuts j-1 and j in every row;\n"
             "it holds K samples, so at most (K + L)s keys:\n"
             "duplicates are divided by position (see the run of 5s).\n\n"
             f"Here L = {L}, s = {s}, K = {K}: S = M / K = {S} groups,\n"
             f"sizes {sizes}, bound {bound}.\n"
             "Implementation: L = 16, K = 32, s = 170, C = 8192 (4-byte keys).",
             ha="left", va="top", fontsize=9.5, family="DejaVu Sans",
             bbox=dict(boxstyle="round,pad=0.5", fc="#F7F7F7", ec="#BBBBBB"))
    handles = [Patch(fc=GROUP_COLOURS[g], ec="#444444", label=f"group {g}") for g in range(S)]
    handles += [Line2D([0], [0], marker="^", color="black", lw=0, ms=7, label="sample"),
                Line2D([0], [0], marker="*", color="#C00000", lw=0, ms=11, label="splitter"),
                Line2D([0], [0], color="#C00000", lw=2.6, label="cut")]
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.4, 0.0), ncol=7,
               fontsize=10, frameon=False)
    fig.suptitle("Step 3: regular sampling, splitters with positions, and cuts into S groups",
                 x=0.45, y=0.99, fontsize=15)
    save(fig, out, "step3_splitting.png")


# ------------------------------------------------------------------ step 4

def draw_step4(out):
    ex = split_example()
    L, S, seqs, cuts = ex["L"], ex["S"], ex["seqs"], ex["cuts"]
    sizes, offsets = ex["sizes"], ex["offsets"]

    def pieces_of(g):
        return [[(seqs[i][p], i) for p in range(cuts[i][g - 1] if g else 0, cuts[i][g])]
                for i in range(L)]

    # the group with the most non-empty pieces, the largest on ties, as the example
    g = max(range(S), key=lambda q: (sum(1 for pc in pieces_of(q) if pc), sizes[q]))
    level = pieces_of(g)
    levels = [level]
    rounds = ceil_log2(L)
    for r in range(rounds):
        nxt = []
        for q in range(0, len(level), 2):
            a = level[q]
            b = level[q + 1] if q + 1 < len(level) else []
            # stable: equal keys taken from A first, as merge path and the warp merge do
            nxt.append(list(heapq.merge(a, b, key=lambda e: e[0])))
        level = nxt
        levels.append(level)
    merged = levels[-1][0]
    assert [k for k, _ in merged] == sorted(k for pc in levels[0] for k, _ in pc)
    assert len(merged) == sizes[g]

    total = sum(sizes)
    fig, ax = plt.subplots(figsize=(15, 9.6))
    gap = 1.6
    # x positions: leaves laid out left to right, each parent spans its children
    spans = []
    x = 0.0
    leaf_spans = []
    for pc in levels[0]:
        wdt = max(len(pc), 1)
        leaf_spans.append((x, wdt))
        x += wdt + gap
    spans.append(leaf_spans)
    for r in range(1, rounds + 1):
        prev = spans[-1]
        cur = []
        for q, pc in enumerate(levels[r]):
            kids = prev[2 * q: 2 * q + 2]
            left = kids[0][0]
            right = kids[-1][0] + kids[-1][1]
            wdt = max(len(pc), 1)
            cur.append(((left + right) / 2 - wdt / 2, wdt))
        spans.append(cur)
    width = x - gap
    row_h = 2.8
    y_top = (rounds + 1) * row_h + 3.0

    for r in range(rounds + 1):
        y = y_top - r * row_h
        label = "pieces\n(copied to\nshared memory)" if r == 0 else f"after\nround {r}"
        ax.text(-0.6, y + 0.5, label, ha="right", va="center", fontsize=10.5, fontweight="bold")
        for q, (pc, (xs, wdt)) in enumerate(zip(levels[r], spans[r])):
            if pc:
                cells(ax, xs, y, [k for k, _ in pc], [SEQ_COLOURS[i] for _, i in pc],
                      fontsize=10)
            else:
                ax.add_patch(Rectangle((xs, y), 1, 1, fill=False, ec="#999999", ls="--"))
                ax.text(xs + 0.5, y + 0.5, "-", ha="center", va="center", color="#999999")
            if r == 0:
                ax.text(xs + wdt / 2, y + 1.15, f"seq {q}: [{cuts[q][g - 1] if g else 0}, "
                        f"{cuts[q][g]})", ha="center", va="bottom", fontsize=9)
            else:
                for (cx, cw) in spans[r - 1][2 * q: 2 * q + 2]:
                    arrow(ax, (cx + cw / 2, y + row_h - 0.1), (xs + wdt / 2, y + 1.12),
                          lw=1.3, colour="#555555")
                ax.text(xs + wdt + 0.25, y + 0.5, f"{len(pc)} keys", ha="left", va="center",
                        fontsize=9, color="#555555")
        if r > 0:
            last = r == rounds
            ax.text(width + 2.3, y + row_h / 2 + 0.5,
                    f"round {r}: merge pieces (2q, 2q+1)\n{'(the last round writes to global memory)' if last else '(shared memory, ping-pong)'}",
                    ha="left", va="center", fontsize=9.5, color="#333333")

    # the output array: every group at its offset
    y_out = y_top - (rounds + 1) * row_h - 1.0
    cw = (width + 8) / total
    xo = -0.0
    # every group's keys, as step 4 leaves them: the output is sorted as a whole
    everything = sorted(k for sq in seqs for k in sq)
    for q in range(S):
        xq = xo + offsets[q] * cw
        if q == g:
            assert [k for k, _ in merged] == everything[offsets[q]:offsets[q + 1]]
        cells(ax, xq, y_out, everything[offsets[q]:offsets[q + 1]], GROUP_COLOURS[q], w=cw,
              fontsize=7.5, lw=0.5)
        ax.text(xq + sizes[q] * cw / 2, y_out - 0.4, f"group {q}\n{sizes[q]} keys",
                ha="center", va="top", fontsize=9 if q != g else 9.5,
                fontweight="bold" if q == g else "normal", linespacing=0.95,
                color="#C00000" if q == g else "black")
        ax.plot([xq, xq], [y_out - 0.35, y_out + 1.3], color="black", lw=1.6)
        ax.text(xq, y_out - 0.4, f"{offsets[q]}", ha="center", va="top", fontsize=10,
                fontweight="bold")
    ax.plot([xo + total * cw] * 2, [y_out - 0.35, y_out + 1.3], color="black", lw=1.6)
    ax.text(xo + total * cw, y_out - 0.4, f"{total}", ha="center", va="top", fontsize=10,
            fontweight="bold")
    ax.text(-0.6, y_out + 0.5, "output\n(N keys)", ha="right", va="center", fontsize=10.5,
            fontweight="bold")
    # highlight the written group and connect the final merge to it
    xg = xo + offsets[g] * cw
    ax.add_patch(Rectangle((xg, y_out), sizes[g] * cw, 1, fill=False, ec="#C00000", lw=3))
    xs, wdt = spans[rounds][0]
    y_last = y_top - rounds * row_h
    arrow(ax, (xs + wdt / 2, y_last - 0.1), (xg + sizes[g] * cw / 2, y_out + 1.05),
          colour="#C00000", lw=2)
    terms = " + ".join(str(sizes[q]) for q in range(g)) or "0"
    ax.text(xo + total * cw + 1.0, (y_last + y_out + 1) / 2,
            f"written at offset {offsets[g]} = {terms}\n"
            "(exclusive prefix sum of the group sizes:\n"
            " the sum of the previous splitter's L cuts)",
            ha="left", va="center", fontsize=10, color="#C00000")
    ax.text(0, y_out - 1.6,
            "offsets = exclusive prefix sums of the group sizes: "
            + ", ".join(f"offset {q} = {offsets[q]}" for q in range(S)),
            ha="left", va="top", fontsize=10)

    handles = [Patch(fc=SEQ_COLOURS[i], ec="#444444", label=f"key from seq {i}")
               for i in range(L)]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=L,
              fontsize=10, frameon=False)
    ax.set_xlim(-4.5, width + 14)
    ax.set_ylim(y_out - 2.6, y_top + 2.0)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"Step 4: group {g} of the step 3 example (L = {L} pieces) merged on chip in "
                 f"ceil(log2 L) = {rounds} rounds\nand written at the group's output offset "
                 "(by default L = 16: 4 rounds)", fontsize=14)
    save(fig, out, "step4_final_merge.png")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="directory for the PNG files (created)")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    draw_step1(args.out)
    draw_step2(args.out)
    draw_step2_tiles(args.out)
    draw_step3(args.out)
    draw_step4(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

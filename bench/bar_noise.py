#!/usr/bin/env python3
"""bar_noise.py - how much of the traffic bar is sampling noise
(docs/replay.md "L-N", bench/RESULTS.md section d).

    bench/bar_noise.py [--data DIR] [--bin build/release/airspace]
                       [--resamples N] [--grid]

The bar: at half-way, airspace's traffic advisories catch more conflicts
than the 3-line baseline (`near`) at no more merges flagged. Both flag most
of the same merges; only the merges where the two disagree decide it:
conflicted merges flagged by airspace only (a) or by `near` only (b), clean
ones flagged by airspace only (c) or by `near` only (d). The bar holds when
a > b and a + c <= b + d. For each recorded repository and split (tune,
held-out, all) this prints those four counts and the share of N resamples
on which the bar holds (a Poisson bootstrap: each count redrawn from a
Poisson law with the observed count as its mean, fixed seed): near 1 the
result is robust, near 0.5 a coin flip.

--grid: choose the priors' weights (exposure, dirs, activity) on the tune
half by the smaller of the two repositories' resampled shares (a robust
version of the bar), re-scoring each merge from the channels airspace
reported, and print the best settings with their reading on the held-out
half next to the defaults'.
"""
import itertools
import math
import random

from candidates import TAU_TA, W_PROX, dev_args, dev_set, in_split

DEFAULTS = (0.25, 0.1, 0.35)  # weight.exposure, weight.dirs, weight.activity


def poisson(rnd, mean):
    limit, k, p = math.exp(-mean), 0, 1.0
    while True:
        p *= rnd.random()
        if p <= limit:
            return k
        k += 1


def held(a, b, c, d):
    return a > b and a + c <= b + d


def share_held(cells, resamples):
    rnd, n = random.Random(1), 0
    for _ in range(resamples):
        n += held(*(poisson(rnd, x) if x else 0 for x in cells))
    return n / resamples


def cells_of(rows, weights=None):
    """(a, b, c, d) over rows of (conflicted, half-way channels, risk, near)."""
    a = b = c = d = 0
    for conf, ch, risk, near in rows:
        if weights:
            we, wd, wa = weights
            risk = 1 - ((1 - W_PROX * ch["proximity"]) * (1 - we * ch["exposure"])
                        * (1 - wd * ch["dirs"]) * (1 - wa * ch["activity"]))
        air = risk >= TAU_TA
        if air and not near:
            a, c = a + conf, c + (not conf)
        elif near and not air:
            b, d = b + conf, d + (not conf)
    return a, b, c, d


def load(a):
    return {repo: [(m["merge"], (m["conflicted"], m["half"]["channels"], m["half"]["risk"],
                                 m["half"]["near"] > 0)) for m in merges]
            for repo, _, merges in dev_set(a)}


def split_rows(rows, split):
    return [r for sha, r in rows if in_split(sha, split)]


def grid(data, resamples):
    def reading(weights, split):
        cs = [cells_of(split_rows(rows, split), weights) for rows in data.values()]
        return min(share_held(c, resamples) for c in cs), cs

    scored = []
    for w in itertools.product((0.15, 0.2, 0.25, 0.3), (0, 0.05, 0.1, 0.15),
                               (0.25, 0.3, 0.35, 0.4, 0.45)):
        scored.append((reading(w, "tune")[0], w))
    scored.sort(key=lambda x: (-x[0], x[1]))
    print("grid on tune (weights exposure, dirs, activity): "
          f"{len(scored)} settings; repositories {', '.join(data)}")
    for share, w in scored[:3] + [x for x in scored if x[1] == DEFAULTS]:
        for split in ("tune", "held-out"):
            m, cs = reading(w, split)
            print(f"  {w}{' (defaults)' if w == DEFAULTS else ''} {split}: held on "
                  f"{m:.2f} at least; (a, b, c, d) per repository "
                  + "; ".join(f"{c} {'met' if held(*c) else 'not met'}" for c in cs))


def main():
    args = dev_args()
    args.add_argument("--resamples", type=int, default=2000)
    args.add_argument("--grid", action="store_true")
    a = args.parse_args()
    data = load(a)
    if a.grid:
        grid(data, a.resamples)
        return
    for repo, rows in data.items():
        for split in ("tune", "held-out", "all"):
            c = cells_of(split_rows(rows, split))
            print(f"{repo} {split}: conflicted airspace-only {c[0]} near-only {c[1]}, "
                  f"clean airspace-only {c[2]} near-only {c[3]}; caught {c[0] - c[1]:+d} "
                  f"flagged {c[0] + c[2] - c[1] - c[3]:+d}; bar "
                  f"{'met' if held(*c) else 'not met'}, held on "
                  f"{share_held(c, a.resamples):.2f} of {a.resamples} resamples")


if __name__ == "__main__":
    main()

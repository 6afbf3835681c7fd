#!/usr/bin/env python3
"""bar_noise.py - how much of the traffic bar is sampling noise
(docs/replay.md "L-N", bench/RESULTS.md section d).

    bench/bar_noise.py [--data DIR] [--bin build/release/airspace]
                       [--resamples N] [--seed S]

The bar: at half-way, airspace's traffic advisories catch more conflicts
than the 3-line baseline (`near`) at no more merges flagged. Both flag most
of the same merges; only the merges where the two disagree decide it. For
each recorded repository and split (tune, held-out, all) this prints those
merges (conflicted and clean, flagged by airspace only or by `near` only),
the bar's two margins (conflicts caught, merges flagged: airspace minus
`near`), and the share of N bootstrap resamples of the split's merges
(drawn with replacement, fixed seed) on which the bar holds: near 1 the
result is robust, near 0.5 a coin flip.
"""
import argparse
import json
import os
import random
import subprocess
from collections import Counter

from candidates import TAU_TA, in_split


def bar(cells):
    """(conflicts caught, merges flagged) margins, airspace minus near, from
    a Counter over (conflicted, airspace flags, near flags)."""
    dc = cells[(True, True, False)] - cells[(True, False, True)]
    df = (cells[(True, True, False)] + cells[(False, True, False)]
          - cells[(True, False, True)] - cells[(False, False, True)])
    return dc, df


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = argparse.ArgumentParser()
    args.add_argument("--data", default=os.environ.get(
        "AIRSPACE_MERGES", os.path.join(here, "..", "..", "shared", "data", "merges")))
    args.add_argument("--bin", default=os.path.join(here, "..", "build", "release", "airspace"))
    args.add_argument("--resamples", type=int, default=2000)
    args.add_argument("--seed", type=int, default=1)
    a = args.parse_args()
    for name in sorted(os.listdir(a.data)):
        if not name.endswith(".jsonl.gz"):
            continue
        out = json.loads(subprocess.run(
            [a.bin, "replay", "--records", os.path.join(a.data, name), "--json",
             "--per-merge"], check=True, capture_output=True, text=True).stdout)
        repo = name[: -len(".jsonl.gz")]
        for split in ("tune", "held-out", "all"):
            rows = [(m["conflicted"], m["half"]["risk"] >= TAU_TA, m["half"]["near"] > 0)
                    for m in out["merges"] if in_split(m["merge"], split)]
            cells = Counter(rows)
            dc, df = bar(cells)
            rnd, met = random.Random(a.seed), 0
            for _ in range(a.resamples):
                rc, rf = bar(Counter(rnd.choice(rows) for _ in rows))
                met += rc > 0 and rf <= 0
            print(f"{repo} {split}: disagreements: conflicted airspace-only "
                  f"{cells[(True, True, False)]} near-only {cells[(True, False, True)]}, "
                  f"clean airspace-only {cells[(False, True, False)]} near-only "
                  f"{cells[(False, False, True)]}; caught {dc:+d} flagged {df:+d}; "
                  f"bar {'met' if dc > 0 and df <= 0 else 'not met'}, "
                  f"on {met / a.resamples:.2f} of {a.resamples} resamples")


if __name__ == "__main__":
    main()

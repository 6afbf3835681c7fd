#!/usr/bin/env python3
"""candidates.py - rows O to R of the calibration study (docs/replay.md):
four candidates measured on the development set and not adopted.

    bench/candidates.py [--data DIR] [--bin build/release/airspace]
                        [--split tune|held-out|all]

For each recorded repository it runs `airspace replay --records --json
--per-merge` with the defaults, then re-scores every merge at half-way with
one candidate changed, holding the other channels at the values airspace
reported (R' = 1 - (1 - R) / (1 - w*r_old) * (1 - w*r_new) for a replaced
channel, R' = 1 - (1 - R) * (1 - w*r) for an added one), and prints
conflicts caught / merges flagged (traffic, R >= 0.35) and the AUC next to
the 3-line baseline's caught / flagged.

O: proximity with hunks that are identical on both sides (same base lines
   replaced by the same number of lines) counted at a fraction `ident` of a
   collision: p(f) = max(p(gap over the other hunks), ident * p(gap over all)).
   ident 1 is the default model (checked: it reproduces airspace's own
   proximity for every merge). Also the narrower rule: only identical
   replacements (end > start) count as the same change, at ident 0.4.
P: learned churn, added: lambda = sum over files f one side changed and the
   other has not of rate(f) * (the other side's commits so far), rate(f) =
   the share of recorded side commits in the 180 days before the scoring
   time that touched f; channel 1 - exp(-lambda / k) with weight w.
Q: the velocity of approach and the closeness of the latest commits.
R: git's own rule for which hunks collide. The default gap reads an
   insertion before base line s as a change of line s-1, so an insertion
   one line past a changed line, or two insertions one line apart, count
   as adjacent (gap 1). Git conflicts only when the base ranges overlap or
   touch, and two insertions only at the same point: R scores the gap as
   git does (0 overlapping or touching, else 1 + the base lines between).
"""
import argparse
import bisect
import gzip
import json
import math
import os
import subprocess
import sys

MARGIN, SCALE, W_PROX, TAU_TA = 1, 0.3, 0.8, 0.35


def rng(h):
    s, e, _ = h
    if e > s:
        return (s, e - 1)
    k = max(s - 1, 1)
    return (k, k)


def mingap(ha, hb):
    best = None
    for x in ha:
        a = rng(x)
        for y in hb:
            b = rng(y)
            g = max(0, max(a[0], b[0]) - min(a[1], b[1]))
            best = g if best is None else min(best, g)
    return best


def gap_git(ha, hb):
    """The smallest gap between two sides' hunks by git's rule: in doubled
    coordinates a replacement of lines s..e-1 spans [2s, 2e] (its bounds
    included, so an insertion at either end touches it) and an insertion
    before line s is the point 2s."""
    best = None
    for s1, e1, _ in ha:
        for s2, e2, _ in hb:
            d = max(0, 2 * max(s1, s2) - 2 * min(e1, e2))
            g = 0 if d == 0 else d // 2 + 1
            best = g if best is None else min(best, g)
    return best


def pgap(g):
    if g is None:
        return 0.0
    return 1.0 if g <= MARGIN else math.exp(-(g - MARGIN) / SCALE)


def base_path(f):
    return f.get("old_path") if f["status"] == "R" else f["path"]


def prox_shared(rec, hunks_p):
    """The half-way proximity of a record: the largest over shared files of
    1 for a whole-file change on either side, else hunks_p(ha, hb) on the
    two sides' hunks (tuples)."""
    W = [{base_path(f): f for f in s["half"]["ws"]} for s in rec["sides"]]
    best = 0.0
    for p in set(W[0]) & set(W[1]):
        a, b = W[0][p], W[1][p]
        if (a["status"] in "ADTC" or b["status"] in "ADTC" or a.get("binary")
                or b.get("binary")):
            return 1.0
        ha, hb = [tuple(h) for h in a["hunks"]], [tuple(h) for h in b["hunks"]]
        if ha and hb:
            best = max(best, hunks_p(ha, hb))
    return best


def prox_git(rec):
    return prox_shared(rec, lambda ha, hb: pgap(gap_git(ha, hb)))


def prox_ident(rec, ident, repl_only=False):
    def p(ha, hb):
        same = set(ha) & set(hb)
        if repl_only:  # an identical insertion point is still a collision
            same = {h for h in same if h[1] > h[0]}
        ha2 = [h for h in ha if h not in same]
        hb2 = [h for h in hb if h not in same]
        return max(pgap(mingap(ha2, hb2) if ha2 and hb2 else None),
                   ident * pgap(mingap(ha, hb)))
    return prox_shared(rec, p)


def files_of(c):
    fs = set()
    for f in c["files"]:
        fs.add(f[1])
        if len(f) > 2:
            fs.add(f[2])
    return fs


def churn(recs, window=180 * 86400):
    """lambda per merge at its half-way time."""
    commits = {}
    for r in recs:
        for s in r["sides"]:
            for c in s["commits"]:
                if not c.get("merge"):
                    commits[c["sha"]] = (c["ct"], files_of(c))
    times, per_path = [], {}
    for ct, fs in commits.values():
        times.append(ct)
        for f in fs:
            per_path.setdefault(f, []).append(ct)
    times.sort()
    for v in per_path.values():
        v.sort()

    def count(v, lo, hi):
        return bisect.bisect_left(v, hi) - bisect.bisect_left(v, lo)

    out = {}
    for r in recs:
        t = max(s["half"]["ct"] for s in r["sides"])
        n = max(count(times, t - window, t), 1)
        W = [{p for f in s["half"]["ws"] for p in (f["path"], f.get("old_path")) if p}
             for s in r["sides"]]
        c = [s["half"].get("n_included") or s["half"]["k"] for s in r["sides"]]
        lam = 0.0
        for i in (0, 1):
            for f in W[i] - W[1 - i]:
                lam += count(per_path.get(f, []), t - window, t) / n * c[1 - i]
        out[r["merge"]] = lam
    return out


def dir_distance(a, b):
    """0 for one path, 1 for two files in one directory, else the steps up
    and down the directory tree between them, plus one."""
    if a == b:
        return 0
    pa, pb = a.split("/"), b.split("/")
    k = 0
    while k < min(len(pa), len(pb)) - 1 and pa[k] == pb[k]:
        k += 1
    return (len(pa) - 1 - k) + (len(pb) - 1 - k) + 1


def approach(recs):
    """Per merge at half-way: (velocity, closeness). For each side, the
    directory distance of each of its commits so far to the other side's
    half-way working set (the nearest pair of paths; at most 50 files of a
    commit and 300 of the working set); velocity = the mean distance of the
    earlier commits minus that of the last third (> 0: coming closer), the
    larger over the two sides; closeness = the smallest distance of a last
    third's commit (99 when there is none)."""
    out = {}
    for r in recs:
        W = [sorted({f["path"] for f in s["half"]["ws"]}) for s in r["sides"]]
        vel, close = 0.0, 99
        for i in (0, 1):
            s, other = r["sides"][i], W[1 - i][:300]
            cs = [c for c in s["commits"]
                  if not c.get("merge") and c["ct"] <= s["half"]["ct"]]
            if not cs or not other:
                continue
            d = [min((dir_distance(f[1], b) for f in c["files"][:50] for b in other),
                     default=20) for c in cs]
            k = max(1, len(d) // 3)
            close = min([close] + d[-k:])
            if len(d) >= 2:
                vel = max(vel, sum(d[:-k]) / max(1, len(d) - k) - sum(d[-k:]) / k)
        out[r["merge"]] = (vel, close)
    return out


def in_split(sha, split):
    even = int(sha[0], 16) % 2 == 0
    return split == "all" or even == (split == "tune")


def auc_of(pairs):
    neg = sorted(v for v, conf in pairs if not conf)
    pos = [v for v, conf in pairs if conf]
    if not pos or not neg:
        return float("nan")
    return sum(bisect.bisect_left(neg, p) + 0.5 * (bisect.bisect_right(neg, p)
               - bisect.bisect_left(neg, p)) for p in pos) / (len(pos) * len(neg))


def summary(rows, split):
    sel = [x for x in rows if in_split(x[0], split)]
    caught = sum(1 for _, conf, R, _ in sel if conf and R >= TAU_TA)
    flagged = sum(1 for _, _, R, _ in sel if R >= TAU_TA)
    ncaught = sum(1 for _, conf, _, near in sel if conf and near > 0)
    nflagged = sum(1 for _, _, _, near in sel if near > 0)
    auc = auc_of([(R, conf) for _, conf, R, _ in sel])
    return f"{caught}/{flagged} (near {ncaught}/{nflagged}) auc {auc:.3f}"


def rescore(recs, pm, risk):
    """(merge, label, risk(record, half-way point), near) for every record."""
    rows = []
    for r in recs:
        h = pm[r["merge"]]["half"]
        rows.append((r["merge"], r["label"]["conflicted"], risk(r, h), h["near"]))
    return rows


def with_proximity(h, new):
    """The half-way risk with the proximity channel replaced by new."""
    old = h["channels"]["proximity"]
    return 1 - (1 - h["risk"]) / (1 - W_PROX * old) * (1 - W_PROX * new)


def with_channel(h, w, g):
    """The half-way risk with a channel g of weight w added."""
    return 1 - (1 - h["risk"]) * (1 - w * g)


def dev_args():
    """An argument parser with --data (the recorded repositories) and --bin."""
    here = os.path.dirname(os.path.abspath(__file__))
    args = argparse.ArgumentParser()
    args.add_argument("--data", default=os.environ.get(
        "AIRSPACE_MERGES", os.path.join(here, "..", "..", "shared", "data", "merges")))
    args.add_argument("--bin", default=os.path.join(here, "..", "build", "release", "airspace"))
    return args


def dev_set(a):
    """(repository, records path, airspace's per-merge report) for each
    recorded repository in a.data, with the defaults."""
    for name in sorted(os.listdir(a.data)):
        if not name.endswith(".jsonl.gz"):
            continue
        path = os.path.join(a.data, name)
        out = json.loads(subprocess.run(
            [a.bin, "replay", "--records", path, "--json", "--per-merge"],
            check=True, capture_output=True, text=True).stdout)
        yield name[: -len(".jsonl.gz")], path, out["merges"]


def main():
    args = dev_args()
    args.add_argument("--split", default="tune")
    a = args.parse_args()
    for repo, path, merges in dev_set(a):
        pm = {m["merge"]: m for m in merges}
        with gzip.open(path, "rt") as f:
            recs = [json.loads(line) for line in f]
        tag = f"{repo} {a.split}"
        for r in recs:  # the model here is airspace's own
            old, new = pm[r["merge"]]["half"]["channels"]["proximity"], prox_ident(r, 1.0)
            if abs(old - new) > 1e-6:
                sys.exit(f"{repo} {r['merge']}: proximity {new} here, {old} in airspace")

        for ident in (1.0, 0.6, 0.43, 0.4, 0.3, 0.2, 0.0):
            rows = rescore(recs, pm, lambda r, h: with_proximity(h, prox_ident(r, ident)))
            print(f"{tag} O ident {ident}: {summary(rows, a.split)}")
        rows = rescore(recs, pm, lambda r, h: with_proximity(h, prox_ident(r, 0.4, True)))
        print(f"{tag} O replacements only, ident 0.4: {summary(rows, a.split)}")

        rows = rescore(recs, pm, lambda r, h: with_proximity(h, prox_git(r)))
        print(f"{tag} R git's collision rule: {summary(rows, a.split)}")

        lam = churn(recs)
        for w, k in ((0.02, 1), (0.05, 1), (0.1, 3), (0.35, 3), (0.4, 1)):
            rows = rescore(recs, pm, lambda r, h: with_channel(
                h, w, 1 - math.exp(-lam[r["merge"]] / k)))
            print(f"{tag} P churn w {w} k {k}: {summary(rows, a.split)}")

        near = approach(recs)
        sel = [r for r in recs if in_split(r["merge"], a.split)]
        far = [r for r in sel if pm[r["merge"]]["half"]["near"] == 0]
        label = lambda r: r["label"]["conflicted"]  # noqa: E731
        print(f"{tag} Q the defaults' risk: auc "
              f"{auc_of([(pm[r['merge']]['half']['risk'], label(r)) for r in far]):.3f} "
              "on merges without hunks within 3 lines")
        for what, val in (("velocity", lambda m: near[m][0]),
                          ("closeness", lambda m: -near[m][1])):
            print(f"{tag} Q {what} alone: "
                  f"auc {auc_of([(val(r['merge']), label(r)) for r in sel]):.3f}, "
                  f"{auc_of([(val(r['merge']), label(r)) for r in far]):.3f} "
                  "on merges without hunks within 3 lines")
        for w, k in ((0.05, 1), (0.1, 1), (0.2, 1), (0.3, 2)):
            rows = rescore(recs, pm, lambda r, h: with_channel(
                h, w, math.exp(-near[r["merge"]][1] / k) if near[r["merge"]][1] < 99 else 0.0))
            print(f"{tag} Q closeness w {w} k {k}: {summary(rows, a.split)}")


if __name__ == "__main__":
    main()

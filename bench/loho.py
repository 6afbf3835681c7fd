#!/usr/bin/env python3
"""loho.py - leave-one-history-out calibration of the records model.

    bench/loho.py [--airspace build/release/airspace] [--out DIR]
                  HISTORY.jsonl.gz...

For every history H: fit the model's settings on all the other histories
(the fit below), score H with them, and report H's half-way AUC (all
merges) against H's better baseline (`shared` or `near`).  Then fit on
every history together: those are the settings to ship, and their AUC on
each history is printed beside the LOHO figure.

The fit.  `airspace replay --records H --json --per-merge` gives each
merge's channel values at half-way; the risk is recomputed from them
(R = 1 - prod(1 - w_c r_c), exactly what replay does), so a change of
weights needs no new run.  A setting that changes a channel's value
(prox.scale, exposure.k, dirs.k, activity.k) is a separate run ("variant").
Within each variant, coordinate ascent over the weights (two rounds, from
the current defaults), maximizing the mean half-way AUC over the training
histories, with the constraints the model's design keeps (docs/risk-model.md
§10): the channels that only rank (exposure, dirs, tree) stay below tau_TA
together, and activity stays at or below tau_TA.  The best variant wins.
The chosen settings are then re-measured by airspace itself (--set ...),
so every printed AUC is the program's own.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys

TAU_TA = 0.35
CHANNELS = ["proximity", "hotspot", "exposure", "dirs", "activity", "overlap",
            "tree"]
GRID = {
    "proximity": [0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
    "hotspot": [0, 0.1, 0.2, 0.3, 0.4],
    "exposure": [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3],
    "dirs": [0, 0.05, 0.1, 0.15, 0.2, 0.3],
    "activity": [0, 0.1, 0.2, 0.25, 0.3, 0.35],
    "overlap": [0, 0.1, 0.2, 0.3],
    "tree": [0, 0.05, 0.1],
}
DEFAULTS = {"proximity": 0.8, "hotspot": 0.0, "exposure": 0.25, "dirs": 0.1,
            "activity": 0.35, "overlap": 0.0, "tree": 0.0}
VARIANTS = [
    {},
    {"prox.scale": "1"},
    {"prox.scale": "3"},
    {"activity.k": "10"},
    {"activity.k": "40"},
    {"exposure.k": "1000"},
    {"exposure.k": "100"},
    {"dirs.k": "20"},
    {"dirs.k": "5"},
    {"prox.agg": "noisy-or"},
    {"margin": "2"},
]


def auc(score, label):
    """Mann-Whitney AUC, ties one half (metrics_auc)."""
    pairs = sorted(zip(score, label))
    npos = sum(label)
    nneg = len(label) - npos
    if not npos or not nneg:
        return float("nan")
    rank_sum = 0.0
    i = 0
    n = len(pairs)
    while i < n:
        j = i
        while j < n and pairs[j][0] == pairs[i][0]:
            j += 1
        avg = (i + 1 + j) / 2.0
        rank_sum += avg * sum(1 for k in range(i, j) if pairs[k][1])
        i = j
    return (rank_sum - npos * (npos + 1) / 2.0) / (npos * nneg)


def run(airspace, hist, sets, per_merge):
    cmd = [airspace, "replay", "--records", hist, "--json"]
    if per_merge:
        cmd.append("--per-merge")
    for k, v in sets.items():
        cmd += ["--set", "%s=%s" % (k, v)]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    return json.loads(out)


def name_of(path):
    return os.path.basename(path).replace(".jsonl.gz", "")


def risk(w, ch):
    keep = 1.0
    for c, v in ch:
        keep *= 1 - w[c] * v
    return 1 - keep


def ok(w):
    rank_only = 1 - (1 - w["exposure"]) * (1 - w["dirs"]) * (1 - w["tree"])
    return rank_only < TAU_TA - 1e-9 and w["activity"] <= TAU_TA + 1e-9


def mean_auc(w, data, names):
    s = 0.0
    for n in names:
        chans, labels = data[n]
        s += auc([risk(w, ch) for ch in chans], labels)
    return s / len(names)


def fit(data, names):
    w = dict(DEFAULTS)
    best = mean_auc(w, data, names)
    for _ in range(2):
        for c in CHANNELS:
            for v in GRID[c]:
                t = dict(w)
                t[c] = v
                if not ok(t):
                    continue
                a = mean_auc(t, data, names)
                if a > best + 1e-6:
                    best, w = a, t
    return w, best


def settings(variant, w):
    s = dict(variant)
    for c in CHANNELS:
        s["weight." + c] = "%g" % w[c]
    return s


def half_aucs(js):
    g = js["groups"]["all"]["half"]
    return g["airspace"]["auc"], max(g["shared"]["auc"], g["near"]["auc"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--airspace", default="build/release/airspace")
    ap.add_argument("--out", help="write the figures as JSON here")
    ap.add_argument("histories", nargs="+")
    a = ap.parse_args()
    names = [name_of(h) for h in a.histories]
    path = dict(zip(names, a.histories))

    # per variant: channel values at half-way per merge, per history
    dumps = []
    for var in VARIANTS:
        data = {}
        sets = dict(var)
        sets["weight.hotspot"] = "0.000001"  # computed only when weighted
        for n in names:
            js = run(a.airspace, path[n], sets, True)
            chans, labels = [], []
            for m in js["merges"]:
                ch = m["half"]["channels"]
                chans.append([(c, ch.get(c, 0.0)) for c in CHANNELS])
                labels.append(bool(m["conflicted"]))
            data[n] = (chans, labels)
        dumps.append(data)
        print("variant %s read" % (var or "defaults"), file=sys.stderr)

    def best_fit(train):
        best = None
        for var, data in zip(VARIANTS, dumps):
            w, score = fit(data, train)
            if best is None or score > best[2] + 1e-6:
                best = (var, w, score)
        return best

    report = {"histories": names, "folds": [], "shipped": None}
    for h in names:
        train = [n for n in names if n != h]
        var, w, train_auc = best_fit(train)
        sets = settings(var, w)
        au, base = half_aucs(run(a.airspace, path[h], sets, False))
        fold = {"held_out": h, "settings": sets, "train_mean_auc": train_auc,
                "auc": au, "baseline": base}
        report["folds"].append(fold)
        print("LOHO %-28s auc %.3f baseline %.3f  (%s)" % (
            h, au, base, " ".join("%s=%s" % kv for kv in sets.items())))
    var, w, all_auc = best_fit(names)
    sets = settings(var, w)
    report["shipped"] = {"settings": sets, "mean_auc": all_auc, "per": {}}
    for h in names:
        au, base = half_aucs(run(a.airspace, path[h], sets, False))
        report["shipped"]["per"][h] = {"auc": au, "baseline": base}
        print("ALL  %-28s auc %.3f baseline %.3f" % (h, au, base))
    print("shipped: " + " ".join("--set %s=%s" % kv for kv in sets.items()))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

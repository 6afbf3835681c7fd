#!/usr/bin/env python3
"""ceiling.py - how well could anything rank conflicts from what is known
at half-way?  A learned model's half-way AUC beside airspace's.

    bench/ceiling.py [--seeds N] [--records JSONL.GZ]... [--git OUT]

Needs Debian's python3-sklearn (`apt-get install python3-sklearn`); it is
a measuring instrument for bench/RESULTS-accuracy.md, not part of the
product or of the test suite.

--records: a development-set file (../shared/data/merges/*.jsonl.gz).  Per
merge, from the two half-way working sets and the commits up to them:
sizes (files, hunks, lines changed, commits, merge commits; the smaller,
the larger and the product of the two sides), geometry (paths both
changed, the nearest two hunks of a shared path, shared paths with hunks
within one line, directories both changed in), time (each side's span of
commits so far), people (distinct authors, whether one author is on both
sides) and the repository's past (for every path of either working set,
the earlier merges that conflicted on it and the share of earlier sides
that changed it; "earlier" = merged before this merge, which lets the
model see a little more than the moment scored would).  A gradient-boosted
tree model (HistGradientBoostingClassifier) is scored out of fold: 5-fold
stratified cross-validation, each merge predicted by a model that never
saw it, once per seed.  Printed: the out-of-fold AUC (mean, range over the
seeds) with every feature, without the past, without the people, and with
the records' `mainline` flag added, which the live engine cannot know (a
merge made on the main line by a hosting service that refuses conflicting
pull requests): the last row shows how much of the label is that workflow.

--git: the output directory of bench/accuracy_git.sh (NAME.json, `airspace
replay --json` in git mode).  Per merge, the half-way point's channels, the
two sides' commit and file counts (smaller, larger, product), nearby
hunks, shared paths and the time since the first commit.  Printed per
history: airspace's half-way AUC, the model's out of fold within the
history, and the model trained on the other histories of OUT and scored on
this one (the leave-one-history-out figure).

Every AUC counts ties as half (as accuracy_git.py and `airspace replay` do).
"""
import argparse
import collections
import glob
import gzip
import json
import os
import sys

try:
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
except ImportError:
    sys.exit("ceiling.py: needs python3-sklearn (apt-get install python3-sklearn)")

FOLDS = 5
FAR = 1000  # the nearest-hunk gap of a pair that shares no path with hunks


def model():
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05,
                                          max_leaf_nodes=15,
                                          min_samples_leaf=20)


def oof_auc(x, y, seeds):
    """Out-of-fold AUC of the model, one figure per seed."""
    out = []
    for seed in range(seeds):
        cv = StratifiedKFold(FOLDS, shuffle=True, random_state=seed)
        p = cross_val_predict(model(), x, y, cv=cv, method="predict_proba")
        out.append(roc_auc_score(y, p[:, 1]))
    return out


def fmt(aucs):
    if len(aucs) == 1:
        return "%.3f" % aucs[0]
    return "%.3f (%.3f-%.3f)" % (sum(aucs) / len(aucs), min(aucs), max(aucs))


# ---- records -------------------------------------------------------------

def hunk_ranges(ws):
    """Base path -> [(start, end)] of a working set's hunks."""
    out = {}
    for f in ws:
        out[f.get("old_path") or f["path"]] = [(h[0], max(h[1], h[0] + 1))
                                               for h in f.get("hunks", [])]
    return out


def nearest(a, b):
    """Lines between the nearest two ranges of a and b; < 0 = overlap."""
    best = FAR
    for s1, e1 in a:
        for s2, e2 in b:
            best = min(best, max(s1, s2) - min(e1, e2))
    return best


def directory(path):
    return path.rsplit("/", 1)[0] if "/" in path else ""


def record_features(recs):
    """(feature names, rows, labels, mainline flags), merges in time order."""
    recs = sorted(recs, key=lambda r: r["merge_ct"])
    conflicts = collections.Counter()  # path -> earlier merges conflicted on it
    touched = collections.Counter()    # path -> earlier sides that changed it
    sides_seen = 0
    names, rows, labels, mainline = None, [], [], []
    for r in recs:
        sides = r["sides"]
        ws = [hunk_ranges(s["half"]["ws"]) for s in sides]
        upto = [s["commits"][:s["half"]["k"]] for s in sides]
        shared = set(ws[0]) & set(ws[1])
        gaps = [nearest(ws[0][p], ws[1][p]) for p in shared
                if ws[0][p] and ws[1][p]]
        authors = [{c["author"] for c in u} for u in upto]
        paths = set(ws[0]) | set(ws[1])

        def pair(tag, a, b):
            return {tag + "_min": min(a, b), tag + "_max": max(a, b),
                    tag + "_prod": a * b}

        def lines(s):
            return sum(h[1] - h[0] + h[2] for f in s["half"]["ws"]
                       for h in f.get("hunks", []))

        def share(p):
            return touched[p] / (sides_seen + 1)

        f = {}
        f.update(pair("files", len(ws[0]), len(ws[1])))
        f.update(pair("hunks", *[sum(len(v) for v in w.values()) for w in ws]))
        f.update(pair("lines", *[lines(s) for s in sides]))
        f.update(pair("commits", *[s["half"]["k"] for s in sides]))
        f.update(pair("merges", *[sum(1 for c in u if c.get("merge"))
                                  for u in upto]))
        f.update(pair("span", *[s["half"]["ct"] - u[0]["ct"]
                                for s, u in zip(sides, upto)]))
        f["shared_paths"] = len(shared)
        f["nearest_gap"] = min(gaps) if gaps else FAR
        f["near_paths"] = sum(1 for g in gaps if g <= 1)
        f["shared_dirs"] = len({directory(p) for p in ws[0]} &
                               {directory(p) for p in ws[1]})
        f["people_authors"] = len(authors[0] | authors[1])
        f["people_shared"] = 1 if authors[0] & authors[1] else 0
        f["past_conflicts_max"] = max([conflicts[p] for p in paths] or [0])
        f["past_conflicts_sum"] = sum(conflicts[p] for p in paths)
        f["past_conflicts_shared"] = sum(conflicts[p] for p in shared)
        reach = [max([share(p) for p in w] or [0]) for w in ws]
        f["past_touch_min"] = min(reach)
        f["past_touch_prod"] = reach[0] * reach[1]
        names = names or list(f)
        rows.append([f[k] for k in names])
        labels.append(1 if r["label"]["conflicted"] else 0)
        mainline.append(1 if r["mainline"] else 0)
        for p in r["label"]["conflicted_paths"]:
            conflicts[p] += 1
        for s in sides:
            for e in s["ws"]:
                touched[e["path"]] += 1
            sides_seen += 1
    return names, np.array(rows, float), np.array(labels), np.array(mainline)


def run_records(path, seeds):
    with gzip.open(path, "rt") as fh:
        recs = [json.loads(line) for line in fh]
    names, x, y, ml = record_features(recs)
    name = os.path.basename(path).split(".jsonl")[0]

    def without(prefix):
        keep = [i for i, n in enumerate(names) if not n.startswith(prefix)]
        return x[:, keep]

    print("| %s | %d | %d | %s | %s | %s | %s |" % (
        name, len(y), y.sum(), fmt(oof_auc(x, y, seeds)),
        fmt(oof_auc(without("past_"), y, seeds)),
        fmt(oof_auc(without("people_"), y, seeds)),
        fmt(oof_auc(np.c_[x, ml], y, seeds))))
    sys.stdout.flush()


# ---- git mode ------------------------------------------------------------

CHANNELS = ("overlap", "merge", "dependency", "symbol", "tree", "forward",
            "activity")


def git_rows(path):
    with open(path) as fh:
        merges = [m for m in json.load(fh)["merges"] if m.get("half")]
    x, y, risk = [], [], []
    for m in merges:
        h = m["half"]
        c, f = h["commits"], h["files"]
        first = min(s["first_time"] for s in m["sides"])
        x.append([h["channels"].get(k, 0.0) for k in CHANNELS] +
                 [min(c), max(c), c[0] * c[1], min(f), max(f), f[0] * f[1],
                  h["near"], h["shared"], h["t"] - first])
        y.append(1 if m["conflicted"] else 0)
        risk.append(h["risk"])
    return np.array(x, float), np.array(y), np.array(risk)


def run_git(out, seeds):
    data = {}
    for path in sorted(glob.glob(os.path.join(out, "*.json"))):
        x, y, risk = git_rows(path)
        if 0 < y.sum() < len(y):
            data[os.path.basename(path)[:-len(".json")]] = (x, y, risk)
    for name, (x, y, risk) in data.items():
        others = [v for k, v in data.items() if k != name]
        loho = "-"
        if others:
            fit = model().fit(np.vstack([v[0] for v in others]),
                              np.concatenate([v[1] for v in others]))
            loho = "%.3f" % roc_auc_score(y, fit.predict_proba(x)[:, 1])
        print("| %s | %d | %d | %.3f | %s | %s |" % (
            name, len(y), y.sum(), roc_auc_score(y, risk),
            fmt(oof_auc(x, y, seeds)), loho))
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", action="append", default=[],
                    help="a development-set .jsonl.gz")
    ap.add_argument("--git", help="bench/accuracy_git.sh's output directory")
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    if not args.records and not args.git:
        ap.error("give --records FILE or --git OUT")
    if args.seeds < 1:
        ap.error("--seeds wants at least 1")
    if args.records:
        print("| records | merges | conflicted | model, every feature | "
              "without the past | without the people | with `mainline` |")
        print("|---|---|---|---|---|---|---|")
        for path in args.records:
            run_records(path, args.seeds)
    if args.git:
        if args.records:
            print()
        print("| git mode | merges | conflicted | airspace | "
              "model, within the history | model, on the others |")
        print("|---|---|---|---|---|---|")
        run_git(args.git, args.seeds)


if __name__ == "__main__":
    main()

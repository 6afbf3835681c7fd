#!/usr/bin/env python3
"""accuracy_git.py - the figures of bench/accuracy_git.sh's git-mode runs.

    bench/accuracy_git.py [--misses N] [--no-loho] [--ablation]
                          [--fit CH,...] [--variant DIR]...
                          [--records NAME=JSON]... OUT

OUT holds NAME.json (`airspace replay --json` in git mode) and NAME.time
for each history.  Prints, per history: merges replayed, conflicted,
half-way AUC of airspace and of the better baseline (`shared` or `near`),
the leave-one-history-out AUC, and the lead (q1 / median / q3 of the share
of the time in flight left at the first traffic and first resolution
advisory over every conflicted merge, never = 0: `lead_window`).

Leave-one-history-out.  In git mode R = 1 - prod(1 - w_c r_c) over the
engine's ten channels (risk_combine), and every merge's channel values at
half-way are in the JSON, so a change of weights needs no new run (the
check below recomputes R with the defaults and compares).  For each
history H: coordinate ascent over the weights of the channels that are
not 0 at half-way in replay (overlap, merge, dependency, symbol, tree,
forward, activity; intent, context and topic need sessions), maximizing
the mean half-way AUC of the other histories, from the defaults, two
rounds; then H is scored with those weights.  The constraint the model
keeps: the priors, tree, forward and activity, together stay below tau_TA
(none raises an advisory without other evidence).  Settings that change a
channel's value (margin, gamma, sigma0, symbol.enclosing,
forward.min_rate, activity.k, overlap.merged) need new runs and are not
fitted here.  A run made with weight.forward 0 (the default) has no
forward values (the channel is not computed), so the fit leaves it at 0.

--ablation prints the half-way AUC with each weighted channel's weight set
to 0, and with the tree channel weighted as it was before the activity
channel (0.25; its values are in every run, forward's only in runs that
weight it).

--misses N lists, per history, the N clean merges with the highest
half-way risk and the N conflicted ones with the lowest (with their
channels), to read why.
"""
import argparse
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loho import auc  # noqa: E402  the Mann-Whitney AUC, ties one half

TAU_TA = 0.35
CHANNELS = ["overlap", "merge", "dependency", "symbol", "intent", "context",
            "topic", "tree", "forward", "activity"]
DEFAULTS = {"overlap": 1.0, "merge": 1.0, "dependency": 0.9, "symbol": 0.6,
            "intent": 0.8, "context": 0.5, "topic": 0.4, "tree": 0.0,
            "forward": 0.0, "activity": 0.3}
GRID = {
    "overlap": [0.3, 0.5, 0.7, 0.8, 0.9, 1.0],
    "merge": [0.7, 0.8, 0.9, 1.0],
    "dependency": [0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.75, 0.9, 1.0],
    "symbol": [0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.75, 0.9, 1.0],
    "tree": [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3],
    "forward": [0, 0.05, 0.1, 0.125, 0.2, 0.3],
    "activity": [0, 0.1, 0.2, 0.25, 0.3, 0.34],
}
ORDER = ["sympy", "ember.js", "apollo-client", "jetty", "duckdb", "amethyst",
         "webpack", "libgit2"]


def run_weights(out, name):
    """The weights a run was made with: the defaults and its --set."""
    w = dict(DEFAULTS)
    try:
        with open(os.path.join(out, name + ".time")) as fh:
            for tok in fh.read().split():
                if tok.startswith("weight.") and "=" in tok:
                    k, v = tok[len("weight."):].split("=", 1)
                    w[k] = float(v)
    except OSError:
        pass
    return w


def risk(ch, w):
    keep = 1.0
    for c in CHANNELS:
        keep *= 1.0 - w[c] * ch.get(c, 0.0)
    return 1.0 - keep


def hist_auc(h, w):
    return auc([risk(m["half"]["channels"], w) for m in h["merges"]],
               [m["conflicted"] for m in h["merges"]])


def priors_alarm(w):
    """Whether the priors together (tree, forward and activity at 1) would
    raise traffic for a pair with no other evidence."""
    return (1 - (1 - w["tree"]) * (1 - w["forward"]) * (1 - w["activity"])
            >= TAU_TA)


def fit(train, start, channels=None):
    """Coordinate ascent of the mean half-way AUC over train."""
    w = dict(start)
    channels = channels or list(GRID)

    def obj(x):
        v = [hist_auc(h, x) for h in train]
        v = [a for a in v if a == a]
        return sum(v) / len(v) if v else 0.0

    best = obj(w)
    for _ in range(2):
        for c in channels:
            for v in GRID[c]:
                x = dict(w)
                x[c] = v
                if priors_alarm(x):
                    continue
                o = obj(x)
                if o > best + 1e-9:
                    best, w = o, x
    return w, best


def r3(v):
    return "n/a" if v is None or v != v else "%.3f" % v


def q(w):
    return "%s / %s / %s" % (r2(w["q1"]), r2(w["median"]), r2(w["q3"]))


def r2(v):
    return "n/a" if v is None else "%.2f" % v


def load(out):
    """NAME -> the git-mode JSON of each history in out, checked."""
    hs = {}
    for f in glob.glob(os.path.join(out, "*.json")):
        name = os.path.basename(f)[:-5]
        with open(f) as fh:
            try:
                d = json.load(fh)
            except json.JSONDecodeError:
                continue
        if d.get("mode") != "git":
            continue
        # the check: R from the channels and the run's weights = replay's R
        rw = run_weights(out, name)
        for m in d["merges"]:
            r = risk(m["half"]["channels"], rw)
            if abs(r - m["half"]["risk"]) > 1e-4:
                raise SystemExit("%s: %s: R %.6f from the channels, %.6f "
                                 "reported (not the defaults?)" %
                                 (name, m["merge"], r, m["half"]["risk"]))
        hs[name] = d
    return hs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--misses", type=int, default=0)
    ap.add_argument("--no-loho", action="store_true")
    ap.add_argument("--ablation", action="store_true",
                    help="half-way AUC with each channel's weight set to 0")
    ap.add_argument("--variant", action="append", default=[],
                    help="another OUT of the same ranges run with other "
                    "--set values (e.g. recency): each fold also chooses "
                    "among the variants")
    ap.add_argument("--records", action="append", default=[],
                    metavar="NAME=JSON",
                    help="`airspace replay --records H --json --per-merge` of "
                    "history NAME: records mode's half-way AUC on the same "
                    "merges, and whether the labels agree")
    ap.add_argument("--fit", default=",".join(GRID),
                    help="the weights fitted (comma-separated channels; "
                    "default: %(default)s)")
    a = ap.parse_args()
    hs = load(a.out)
    variants = [(a.out, hs)] + [(v, load(v)) for v in a.variant]
    names = [n for n in ORDER if n in hs] + sorted(set(hs) - set(ORDER))
    loho = {}
    if not a.no_loho and len(names) > 1:
        for n in names:
            best = None
            for vname, vh in variants:
                if not all(x in vh for x in names):
                    continue
                w, o = fit([vh[x] for x in names if x != n],
                           run_weights(vname, n), a.fit.split(","))
                if best is None or o > best[0] + 1e-9:
                    best = (o, vname, w, hist_auc(vh[n], w))
            loho[n] = (best[3], best[2], best[1])
    print("| history | N (pinned) | replayed | conflicted | airspace | "
          "better baseline | LOHO | first traffic q1 / median / q3 | "
          "first resolution q1 / median / q3 | conflicts warned | clean merges "
          "ever warned | merges into a branch (conflicted): airspace |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in names:
        g = hs[n]["groups"]["all"]
        bb = max(x for x in (g["half"]["shared"]["auc"],
                             g["half"]["near"]["auc"]) if x is not None)
        lw = g["lead_window"]
        clean = [m for m in hs[n]["merges"] if not m["conflicted"]]
        wolf = sum(1 for m in clean if m["first_traffic"] is not None)
        # merges made inside a branch (the main line merged into it): where
        # a hosting service's conflicts are (docs/replay.md, `groups`)
        br = hs[n]["groups"].get("branch") or {}
        brauc = ((br.get("half") or {}).get("airspace") or {}).get("auc")
        print("| %s | %d | %d | %d | %s | %s | %s | %s | %s | %d of %d | "
              "%d of %d | %d (%d): %s |" % (
            n, hs[n]["merges_seen"], g["merges"], g["conflicted"],
            r3(g["half"]["airspace"]["auc"]), r3(bb),
            r3(loho[n][0]) if n in loho else "",
            q(lw["traffic"]), q(lw["resolution"]), lw["traffic"]["raised"],
            lw["traffic"]["n"], wolf, len(clean), br.get("merges", 0),
            br.get("conflicted", 0), r3(brauc)))
    if loho:
        print()
        print("Weights chosen on the other histories (LOHO):")
        for n in names:
            w = loho[n][1]
            print("  %s: %s%s" % (n, ", ".join(
                "%s %g" % (c, w[c]) for c in GRID if w[c] != DEFAULTS[c])
                or "the defaults", "" if loho[n][2] == a.out else
                " (runs of %s)" % loho[n][2]))
        w, best = fit([hs[x] for x in names], DEFAULTS, a.fit.split(","))
        print("Fitted on all: %s; in-sample %s" % (
            ", ".join("%s %g" % (c, w[c]) for c in GRID) ,
            ", ".join("%s %.3f" % (n, hist_auc(hs[n], w)) for n in names)))
        mean_d = sum(hist_auc(hs[n], DEFAULTS) for n in names) / len(names)
        mean_l = sum(loho[n][0] for n in names) / len(names)
        print("Mean half-way AUC: defaults %.3f, LOHO %.3f" % (mean_d, mean_l))
    if a.records:
        print()
        print("| history | merges in both | conflicted | labels agree | "
              "git mode | records mode | near (git) |")
        print("|---|---|---|---|---|---|---|")
        for spec in a.records:
            n, f = spec.split("=", 1)
            if n not in hs:
                continue
            with open(f) as fh:
                rm = {m["merge"]: m for m in json.load(fh)["merges"]}
            both = [m for m in hs[n]["merges"] if m["merge"] in rm]
            lab = [m["conflicted"] for m in both]
            lab_r = [rm[m["merge"]]["conflicted"] for m in both]
            print("| %s | %d of %d | %d | %d | %s | %s | %s |" % (
                n, len(both), len(hs[n]["merges"]), sum(lab),
                sum(x == y for x, y in zip(lab, lab_r)),
                r3(auc([m["half"]["risk"] for m in both], lab)),
                r3(auc([rm[m["merge"]]["half"]["risk"] for m in both], lab_r)),
                r3(auc([m["half"]["near"] for m in both], lab))))
    if a.ablation:
        print()
        off = [c for c in GRID if DEFAULTS[c] > 0]
        print("| history | all channels | " + " | ".join(
            "− " + c for c in off) + " | + tree 0.25 | better baseline |")
        print("|---|---|" + "---|" * len(off) + "---|---|")
        for n in names:
            g = hs[n]["groups"]["all"]["half"]
            row = [r3(hist_auc(hs[n], DEFAULTS))]
            for c in off + ["+tree"]:
                w = dict(DEFAULTS)
                if c == "+tree":
                    w["tree"] = 0.25
                else:
                    w[c] = 0
                row.append(r3(hist_auc(hs[n], w)))
            bb = max(x for x in (g["shared"]["auc"], g["near"]["auc"])
                     if x is not None)
            print("| %s | %s | %s |" % (n, " | ".join(row), r3(bb)))
    if a.misses:
        for n in names:
            ms = hs[n]["merges"]
            fp = sorted((m for m in ms if not m["conflicted"]),
                        key=lambda m: -m["half"]["risk"])[:a.misses]
            fn = sorted((m for m in ms if m["conflicted"]),
                        key=lambda m: m["half"]["risk"])[:a.misses]
            print("\n== %s: highest clean / lowest conflicted at half-way" % n)
            for tag, lst in (("clean", fp), ("conflict", fn)):
                for m in lst:
                    ch = {c: round(v, 3) for c, v in
                          m["half"]["channels"].items() if v}
                    print("  %-8s %s R %.3f %-10s shared %d near %d %s %s" % (
                        tag, m["merge"][:10], m["half"]["risk"],
                        m["half"]["level"], m["half"]["shared"],
                        m["half"]["near"], ch,
                        ",".join(m.get("conflicted_paths", [])[:3])))


if __name__ == "__main__":
    main()

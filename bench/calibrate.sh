#!/bin/sh
# calibrate.sh - the development-set measurement behind the replay defaults
# (docs/replay.md "Calibration study", docs/risk-model.md §10,
# bench/RESULTS.md §d).
#
#   bench/calibrate.sh [--data DIR] [--seeds N] [--set KEY=VALUE]...
#
# For each recorded repository in DIR (default ../shared/data/merges, or
# $AIRSPACE_MERGES) and each split (tune, held-out, all), prints at half-way:
#   auc     airspace / better baseline, for all, branch, strict, strict-branch
#   traffic conflicts caught / merges flagged, airspace vs the 3-line baseline,
#           and whether airspace catches more at no higher a share ("met");
#           then airspace's ranking held to the baseline's number of merges
#           flagged ("at near's budget", docs/replay.md "Reading the report")
# then, with --seeds N (default 10), the same two comparisons on the N
# halvings by sha digit 0..N-1 (both halves each), as counts of halves met.
# Extra --set options go to every run (to measure a candidate default).
set -eu
cd "$(dirname "$0")/.."
DATA=${AIRSPACE_MERGES:-../shared/data/merges}
SEEDS=10
SETS=""
while [ $# -gt 0 ]; do
    case $1 in
    --data) DATA=$2; shift 2 ;;
    --seeds) SEEDS=$2; shift 2 ;;
    --set) SETS="$SETS --set $2"; shift 2 ;;
    *) echo "calibrate.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
case $SEEDS in
'' | *[!0-9]*) echo "calibrate.sh: --seeds wants a count, not '$SEEDS'" >&2; exit 2 ;;
esac
AS=build/release/airspace
[ -x "$AS" ] || scripts/setup.sh >&2

summary='
def r3: if . == null then "n/a" else (. * 1000 | round / 1000 | tostring) end;
def best(g): [g.half.shared.auc, g.half.near.auc] | map(select(. != null)) | max;
.groups as $g
| ($g.all.half.airspace.traffic) as $a | ($g.all.half.near.traffic) as $n
| "  auc  " + ([ "all", "branch", "strict", "strict-branch" ]
    | map(. as $k | "\($k) \($g[$k].half.airspace.auc | r3)/\(best($g[$k]) | r3)")
    | join("  "))
  + "\n  traffic airspace \($a.tp)/\($a.tp + $a.fp) near \($n.tp)/\($n.tp + $n.fp)"
  + (if $g.all.half.verdict.traffic_beats_near then " met" else " not met" end)
  + "\n  at near'"'"'s budget airspace \($g.all.half.airspace.at_near_budget | "\(.tp)/\(.flagged)")"
  + (if $g.all.half.airspace.at_near_budget.tp > $n.tp then " more caught" else " not more" end)'
met='.groups.all.half | (if .verdict.traffic_beats_near then 1 else 0 end),
    (if .airspace.at_near_budget.tp > .near.traffic.tp then 1 else 0 end)'

for f in "$DATA"/*.jsonl.gz; do
    name=$(basename "$f" .jsonl.gz)
    for split in tune held-out all; do
        echo "== $name $split"
        # shellcheck disable=SC2086
        "$AS" replay --records "$f" --split "$split" --json $SETS | jq -r "$summary"
    done
    n=0 nb=0 total=0 seed=0
    while [ "$seed" -lt "$SEEDS" ]; do
        for split in tune held-out; do
            # shellcheck disable=SC2086
            set -- $("$AS" replay --records "$f" --split "$split" \
                --split-seed "$seed" --json $SETS | jq -r "$met")
            n=$((n + $1))
            nb=$((nb + $2))
            total=$((total + 1))
        done
        seed=$((seed + 1))
    done
    [ "$SEEDS" -gt 0 ] || continue
    echo "== $name traffic met on $n of $total halves, more caught at near's" \
        "budget on $nb (sha digits 0..$((SEEDS - 1)))"
done

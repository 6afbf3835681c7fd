#!/bin/sh
# ablation.sh - half-way AUC (all merges) of the records model with each
# channel removed (its weight set to 0), per history (docs/replay.md,
# "Ablation").
#
#   bench/ablation.sh [--airspace BIN] [--set KEY=VALUE]... HISTORY.jsonl.gz...
#
# Prints a Markdown table: one row per history, the AUC with the defaults
# (and any --set given), then without each channel, then the better
# baseline's AUC. A channel whose weight is already 0 shows the same figure.
set -eu
cd "$(dirname "$0")/.."
AS=build/release/airspace
SETS=""
while [ $# -gt 0 ]; do
    case $1 in
    --airspace) AS=$2; shift 2 ;;
    --set) SETS="$SETS --set $2"; shift 2 ;;
    --) shift; break ;;
    -*) echo "ablation.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "ablation.sh: name at least one history" >&2; exit 2; }
CH="proximity exposure dirs activity hotspot overlap tree"
auc() { # auc FILE [--set ...]: airspace's and the better baseline's AUC
    f=$1; shift
    # shellcheck disable=SC2086
    "$AS" replay --records "$f" --json $SETS "$@" | jq -r '.groups.all.half
        | "\(.airspace.auc * 1000 | round / 1000) \([.shared.auc, .near.auc] | max * 1000 | round / 1000)"'
}
printf '| history | all channels |'
for c in $CH; do printf ' − %s |' "$c"; done
printf ' better baseline |\n|---|---|'
for c in $CH; do printf -- '---|'; done
printf -- '---|\n'
for f in "$@"; do
    # shellcheck disable=SC2046 # two numbers, split on purpose
    set -- $(auc "$f")
    printf '| %s | %s |' "$(basename "$f" .jsonl.gz)" "$1"
    base=$2
    for c in $CH; do
        # shellcheck disable=SC2046
        set -- $(auc "$f" --set "weight.$c=0")
        printf ' %s |' "$1"
    done
    printf ' %s |\n' "$base"
done

#!/bin/sh
# accuracy_git.sh - the accuracy of the daemon's whole pipeline on the
# development histories: `airspace replay` in git mode (every channel: merge,
# dependency and symbol over the import graph, overlap, tree) on a pinned
# range of each history (docs/replay.md, "Git mode, every channel").
#
#   bench/accuracy_git.sh [--airspace BIN] [--threads N] [--steps K]
#                         [--set KEY=VALUE]... CLONES OUT [NAME...]
#
# CLONES holds a clone (bare or not) of each repository as CLONES/owner+name
# (CLONES/owner+name/repo also works). For each history (all eight, or the
# NAMEs given) it replays the newest N merge commits reachable from the
# pinned commit, sides up to 200 commits (as the records extractor), one
# history after the other (never two replays at once: the figures are the
# same, the machine is shared), niced, every commit scored (`--steps 0`;
# --steps K as replay's), and writes to OUT:
#   NAME.json   the replay's JSON (every merge's figures, `--json`)
#   NAME.time   wall, CPU and peak RSS of the run, the load before it
# then prints one Markdown row per history (bench/accuracy_git.py OUT gives
# the same table, leave-one-history-out figures and the misses).
# A merge whose trees need an object the snapshot lacks is skipped and
# counted (skipped_by_reason.missing_object; RESULTS-accuracy.md,
# "Snapshots"). ACC_TIMEOUT (seconds, default 1800) bounds each replay.
set -eu
cd "$(dirname "$0")/.."
AS=build/release/airspace
THREADS=2
STEPS=0
SETS=""
while [ $# -gt 0 ]; do
    case $1 in
    --airspace) AS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --set) SETS="$SETS --set $2"; shift 2 ;;
    --) shift; break ;;
    -*) echo "accuracy_git.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] || {
    echo "usage: bench/accuracy_git.sh [--airspace BIN] [--threads N] [--steps K] [--set K=V]... CLONES OUT [NAME...]" >&2
    exit 2
}
CLONES=$1 OUT=$2
shift 2
AS=$(realpath "$AS")
mkdir -p "$OUT"
# name          repository                  pinned commit                             N
LIST='apollo-client apollographql/apollo-client 54084bc22e92651cf153d03d0370b8dff3d1163f 150
sympy sympy/sympy e950d313a932bc6cccbc95376b3821cd2f8b5af4 600
ember.js emberjs/ember.js f4f8b5d8b2e4dc7e3d0f326fd58184be362893fb 1500
jetty eclipse/jetty.project 6f3a6942502d79988bc97c67bcc39503efcecc77 400
amethyst amethyst/amethyst 69c62327b66593a09fe53076fdcbc38c0499f018 600
duckdb duckdb/duckdb 044a04a7cd39e6e8235f756597ae42dde084e5e5 250
webpack webpack/webpack de79ee457eb921e6e1b186c90c65590789a013ca 2500
libgit2 libgit2/libgit2 0551dfd4ad989b6a3d5683c0d4cf326c6efef929 600'
echo "$LIST" | while read -r name repo rev n; do
    if [ $# -gt 0 ]; then
        case " $* " in *" $name "*) ;; *) continue ;; esac
    fi
    dir=$CLONES/$(echo "$repo" | tr / +)
    [ -d "$dir/repo" ] && dir=$dir/repo
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    # shellcheck disable=SC2086 # SETS is a list of options
    if ! nice -n 5 timeout "${ACC_TIMEOUT:-1800}" /usr/bin/time -o "$OUT/$name.time" \
        -f "wall_s=%e user_s=%U sys_s=%S max_rss_kb=%M" \
        "$AS" replay --repo "$dir" --rev "$rev" --max "$n" --max-side 200 \
        --threads "$THREADS" --steps "$STEPS" --json $SETS > "$OUT/$name.json" 2> "$OUT/$name.err"; then
        echo "$name: replay failed: $(tail -1 "$OUT/$name.err")" >&2
        continue
    fi
    echo "rev=$rev max=$n threads=$THREADS steps=$STEPS load_before=\"$load\" load_after=\"$(cut -d' ' -f1-3 /proc/loadavg)\" date=$(date -u +%Y-%m-%dT%H:%MZ)$SETS" >> "$OUT/$name.time"
    jq -r --arg name "$name" --arg n "$n" '
        def r: if . == null then "n/a" else (. * 1000 | round / 1000 | tostring) end;
        def q: "\(.q1 | r) / \(.median | r) / \(.q3 | r)";
        .groups.all as $g
        | "| \($name) | \($n) | \($g.merges) | \($g.conflicted) | \($g.half.airspace.auc | r) | \([$g.half.shared.auc, $g.half.near.auc] | max | r) | \($g.lead_window.traffic | q) | \($g.lead_window.resolution | q) |"' \
        "$OUT/$name.json"
done

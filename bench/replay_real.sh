#!/bin/sh
# replay_real.sh GIT_DIR REV N [BASE] [NEW] - `airspace replay` in git mode
# on a real public history: the newest N merges reachable from REV of the
# repository at GIT_DIR (a clone, bare or not, never changed but for its
# airspace/graph.cache). Times NEW (default build/release/airspace) and,
# when given, BASE (a previous binary) on the same merges, one after the
# other, and checks that both print the same figures (the JSON minus the
# work counters in "stats"). Prints key=value lines; RESULTS-speed.md.
#
#   bench/replay_real.sh /path/to/webpack.git de79ee457 2500 /tmp/airspace-base
#
# REPLAY_ARGS (default "--steps 0", every commit, which binaries older
# than the --steps 8 default also score by default; "--steps 8" for the
# default) is added to both timed replays.
set -eu
cd "$(dirname "$0")/.."
G=$1
REV=$2
N=$3
BASE=${4:-}
NEW=$(realpath "${5:-build/release/airspace}")
REPLAY_ARGS=${REPLAY_ARGS---steps 0}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "repo=$G rev=$REV merges=$N args=${REPLAY_ARGS:-}"
# warm the graph cache once (first index of the tree at the oldest base)
"$NEW" replay --repo "$G" --rev "$REV" --max 1 --json > /dev/null
run() { # name binary
    # shellcheck disable=SC2086 # REPLAY_ARGS is a list of options
    /usr/bin/time -o "$T/$1.time" -f "wall_s=%e user_s=%U sys_s=%S max_rss_kb=%M" \
        "$2" replay --repo "$G" --rev "$REV" --max "$N" --json ${REPLAY_ARGS:-} > "$T/$1.json"
    echo "binary=$1 $(cat "$T/$1.time") $(jq -c '.stats' "$T/$1.json")"
}
# lead_window, skipped_by_reason.missing_object: reports newer than some
# previous binaries
norm() { jq -S 'del(.stats) | del(.. | .lead_window?) | del(.skipped_by_reason.missing_object)' "$1"; }
run new "$NEW"
if [ -n "$BASE" ]; then
    run base "$(realpath "$BASE")"
    if [ "$(norm "$T/base.json")" = "$(norm "$T/new.json")" ]; then
        echo "same_figures=yes"
    else
        echo "same_figures=NO"
    fi
    awk -v a="$(sed 's/.*wall_s=\([0-9.]*\).*/\1/' "$T/base.time")" \
        -v b="$(sed 's/.*wall_s=\([0-9.]*\).*/\1/' "$T/new.time")" \
        -v c="$(sed 's/.*user_s=\([0-9.]*\).*/\1/' "$T/base.time")" \
        -v d="$(sed 's/.*user_s=\([0-9.]*\).*/\1/' "$T/new.time")" \
        'BEGIN { printf "wall_ratio=%.2f cpu_ratio=%.2f\n", a / b, c / d }'
fi
jq -c '{merges_seen, skipped_by_reason, end: .groups.all.end.airspace.traffic}' "$T/new.json"

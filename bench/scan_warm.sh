#!/bin/sh
# scan_warm.sh - warm `airspace scan --agents FILE --repo DIR --json` end to
# end, a previous binary against a new one in the same run: 64 agents x 20
# files and 256 x 50 from `bench_scan --emit-prefix`, caches warm (the first
# run of each binary and size is not timed), the binaries alternating run by
# run; medians of wall, user and system time and peak RSS, the ratios, and
# whether the two reports are the same (but for the build's own figures).
#
#   bench/scan_warm.sh [RUNS] [BASE] [NEW] [DIR]
#
# RUNS: timed runs per binary and size (default 7). BASE, NEW: the two
# airspace binaries (default build/base/airspace, a build of the previous
# commit, and build/release/airspace);
# NEW's directory holds the bench_scan that writes the agents. DIR: the tree
# (default /usr/include). Results: bench/RESULTS-speed.md.
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-7}
BASE=${2:-build/base/airspace}
NEW=${3:-build/release/airspace}
DIR=${4:-/usr/include}
for b in "$BASE" "$NEW"; do
    [ -x "$b" ] || { echo "scan_warm: no binary '$b'" >&2; exit 2; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/scan-warm.XXXXXX")
trap 'rm -rf "$W"' EXIT
export XDG_CACHE_HOME="$W/cache" # both binaries: the same facts cache
NOW=1767261600000

echo "== $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== base $BASE, new $NEW, dir $DIR, runs $RUNS"
"$(dirname "$NEW")/bench_scan" --runs 1 --emit-prefix "$W/agents-" "$DIR" > /dev/null

# one BIN SIZE OUT: a timed run; prints "wall user sys rss_kb"
one() {
    t0=$(date +%s%N)
    /usr/bin/time -f "%U %S %M" -o "$W/time" "$1" scan --agents \
        "$W/agents-$2.json" --repo "$DIR" --json --now $NOW > "$3"
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000)) $(cat "$W/time")"
}

median() { # median of column $1 of file $2
    sort -n -k"$1" "$2" | awk -v c="$1" '{ v[NR] = $c } END {
        if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for size in 64x20 256x50; do
    for b in base new; do
        bin=$BASE
        [ $b = new ] && bin=$NEW
        "$bin" scan --agents "$W/agents-$size.json" --repo "$DIR" --json \
            --now $NOW > "$W/$b-$size.json" # warm: caches, snapshot
        : > "$W/$b-$size.t"
    done
    i=0
    while [ $i -lt "$RUNS" ]; do
        one "$BASE" $size "$W/out-base.json" >> "$W/base-$size.t"
        one "$NEW" $size "$W/out-new.json" >> "$W/new-$size.t"
        i=$((i + 1))
    done
    same=no
    if [ "$(jq -S 'del(.graph.buildMs, .graph.parsed, .graph.cached)' "$W/out-base.json")" = \
        "$(jq -S 'del(.graph.buildMs, .graph.parsed, .graph.cached)' "$W/out-new.json")" ]; then
        same=yes
    fi
    for b in base new; do
        echo "size=$size binary=$b wall_s=$(median 1 "$W/$b-$size.t" | awk '{ printf "%.3f", $1 / 1e6 }')" \
            "user_s=$(median 2 "$W/$b-$size.t") sys_s=$(median 3 "$W/$b-$size.t")" \
            "max_rss_kb=$(median 4 "$W/$b-$size.t")"
    done
    wb=$(median 1 "$W/base-$size.t")
    wn=$(median 1 "$W/new-$size.t")
    cb=$(awk '{ print $2 + $3 }' "$W/base-$size.t" > "$W/c" && median 1 "$W/c")
    cn=$(awk '{ print $2 + $3 }' "$W/new-$size.t" > "$W/c" && median 1 "$W/c")
    echo "size=$size wall_ratio=$(awk -v a="$wb" -v b="$wn" 'BEGIN { printf "%.2f", a / b }')" \
        "cpu_ratio=$(awk -v a="$cb" -v b="$cn" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 0.01) }')" \
        "same_report=$same"
done
echo "== load at the end $(cut -d' ' -f1-3 /proc/loadavg)"

#!/bin/sh
# daemon_churn.sh - the daemon's memory under a long stream of edits
# (Release build). Two agents in worktrees; one rewrites a 256 KiB file
# EDITS times, each edit a new version the daemon snapshots into its
# in-memory object store. The same run twice in one go: with the periodic
# rescan every second (which empties that store) and with it effectively
# off (one hour). Prints the daemon's RSS after each quarter of the edits.
#
#   bench/daemon_churn.sh [EDITS]      default 800
set -eu
cd "$(dirname "$0")/.."
cmake --build build/release > /dev/null
B="$(pwd)/build/release"
EDITS=${1:-800}
run() { # run RESCAN_MS
    T=$(mktemp -d)
    git -c init.defaultBranch=main init -q "$T/r"
    python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(8192):
        f.write('line %05d of the big file, padded to thirty-two\n'[:31] + '\n')
" "$T/r/big.txt"
    git -C "$T/r" add -A
    git -C "$T/r" -c user.name=b -c user.email=b@b commit -qm base
    git -C "$T/r" worktree add -q -b alice "$T/alice" main
    git -C "$T/r" worktree add -q -b bob "$T/bob" main
    (cd "$T/r" && exec "$B/airspace" serve --log-stderr --debounce-ms 10 \
        --tick-ms 50 --rescan-ms "$1" 2> "$T/log") &
    pid=$!
    S="$T/r/.git/airspace/sock"
    until curl -sf --unix-socket "$S" http://a/v1/status > /dev/null 2>&1; do
        sleep 0.05
    done
    i=0
    q=$((EDITS / 4))
    while [ "$i" -lt "$EDITS" ]; do
        i=$((i + 1))
        # a new version of the whole file: one line changed
        sed -i "$((i % 8000 + 1))s/^line/LINE/" "$T/alice/big.txt"
        sleep 0.03
        if [ $((i % q)) -eq 0 ]; then
            printf 'rescan_ms=%s edits=%s rss_kb=%s\n' "$1" "$i" \
                "$(ps -o rss= -p $pid | tr -d ' ')"
        fi
    done
    kill $pid
    wait $pid 2> /dev/null || true
    rm -rf "$T"
}
echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
run 1000
run 3600000

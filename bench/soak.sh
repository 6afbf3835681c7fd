#!/bin/sh
# soak.sh - simulated agents against a real daemon for a while: the daemon's
# RSS and descriptors, latency p50/p99 per minute, and every event checked
# end to end by sequence (bench/soak_driver.py). Results: bench/RESULTS-soak.md.
#
#   bench/soak.sh [MINUTES] [AGENTS]      default 5 minutes (0.5: 30 s), 100 agents
#
# SOAK_SESSIONS=1: agents also end their sessions now and then (exit and
# register again, their reports, locks and intents dropped), as agents that
# finish tasks do; SOAK_STATELESS=1: no reported edits and no intents.
# AIRSPACE_BIN: the binary (default build/release/airspace). The summary
# (JSON) goes to stdout, the daemon's log to $TMPDIR/airspace-soak.*/daemon.log.
set -eu
cd "$(dirname "$0")/.."
MIN=${1:-5}
AGENTS=${2:-100}
BIN=${AIRSPACE_BIN:-$PWD/build/release/airspace}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/airspace-soak.XXXXXX")
R="$TMP/repo"
git -c init.defaultBranch=main init -q "$R"
mkdir -p "$R/src" "$R/shared"
i=0
while [ $i -lt 200 ]; do
    printf '#include "m%d.h"\nint m%d(void)\n{\n    return %d;\n}\n' $(((i + 1) % 200)) $i $i > "$R/src/m$i.c"
    printf 'int m%d(void);\n' $i > "$R/src/m$i.h"
    i=$((i + 1))
done
git -C "$R" add -A
git -C "$R" -c user.name=soak -c user.email=soak@example.invalid commit -qm base
"$BIN" serve --repo "$R" --log-stderr --max-peer-connections 64 2> "$TMP/daemon.log" &
DPID=$!
trap 'kill $DPID 2> /dev/null || true' EXIT
SOCK="$R/.git/airspace/sock"
n=0
until curl -sf --unix-socket "$SOCK" http://a/v1/status > /dev/null 2>&1; do
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 600 ] || { echo "soak: the daemon did not start" >&2; exit 1; }
done
SECS=$(python3 -c "print(int(float('$MIN') * 60))")
python3 bench/soak_driver.py "$SOCK" "$DPID" "$SECS" "$AGENTS"
echo "soak: daemon log in $TMP/daemon.log" >&2

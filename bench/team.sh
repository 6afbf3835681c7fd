#!/bin/sh
# team.sh - N daemons x M agents on one shared PostgreSQL store, on one
# machine (docs/team.md): a throwaway server (tests/pg/pgtemp.sh), N clones
# of one bare remote, a daemon each; every agent takes and releases a lock
# of its own at RATE cycles a second for SECONDS (bench/team_load.py).
# Prints the lock latency, the propagation of the grants to the other
# daemons' event streams (origin emit -> relayed emit) and the database's
# load (pg_stat_database: commits per second, and the backends).
#
#   bench/team.sh [DAEMONS] [AGENTS] [SECONDS] [RATE] [--edits]
#                                                   (20 50 30 0.1)
#
# --edits: each agent first reports an edit to a file of its own, so every
# daemon mirrors and scores every agent of the airspace.
#
# Uses the build in $B (default build/release; RelWithDebInfo).
set -eu
cd "$(dirname "$0")/.."
N=${1:-20}
M=${2:-50}
SECS=${3:-30}
RATE=${4:-0.1}
EDITS=${5:-}
B=${B:-build/release}
BIN="$(pwd)/$B/airspace"
[ -x "$BIN" ] || { echo "team.sh: no $BIN (cmake --build $B)" >&2; exit 2; }
PGT="$(pwd)/tests/pg/pgtemp.sh"
W=$(mktemp -d /tmp/airspace-team.XXXXXX)
PGD="$W/pg"
PIDS=""
cleanup() {
    for p in $PIDS; do kill "$p" 2> /dev/null || true; done
    wait 2> /dev/null || true
    sh "$PGT" stop "$PGD"
    rm -rf "$W"
}
trap cleanup EXIT
chmod 0755 "$W"
URL=$(sh "$PGT" start "$PGD")
psqlq() { psql -X -q -t -A "$URL" -c "$1"; }

export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.invalid
export GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.invalid
git -c init.defaultBranch=main init -q --bare "$W/remote.git"
git -c init.defaultBranch=main init -q "$W/seed"
mkdir -p "$W/seed/bench"
echo x > "$W/seed/bench/x.c"
git -C "$W/seed" add -A
git -C "$W/seed" commit -qm seed
git -C "$W/seed" push -q "$W/remote.git" main
socks=""
k=1
while [ $k -le "$N" ]; do
    git clone -q "$W/remote.git" "$W/c$k"
    (cd "$W/c$k" && exec "$BIN" serve --log-stderr --store "$URL" \
        --tick-ms 200 --rescan-ms 600000 --idle-exit-ms 0 2>> "$W/d$k.log") &
    PIDS="$PIDS $!"
    socks="$socks $W/c$k/.git/airspace/sock"
    k=$((k + 1))
done
for s in $socks; do
    n=0
    until curl -sf --unix-socket "$s" http://a/v1/status > /dev/null 2>&1; do
        sleep 0.1
        n=$((n + 1))
        [ $n -lt 300 ] || { echo "a daemon did not start" >&2; exit 1; }
    done
done
c0=$(psqlq "SELECT xact_commit FROM pg_stat_database WHERE datname = 'airspace'")
t0=$(date +%s%3N)
# shellcheck disable=SC2086
python3 bench/team_load.py --agents "$M" --seconds "$SECS" --rate "$RATE" $EDITS $socks > "$W/load.json"
t1=$(date +%s%3N)
c1=$(psqlq "SELECT xact_commit FROM pg_stat_database WHERE datname = 'airspace'")
backends=$(psqlq "SELECT count(*) FROM pg_stat_activity WHERE datname = 'airspace'")
rows=$(psqlq "SELECT count(*) FROM airspace_ledger")
jq -c --argjson c "$((c1 - c0))" --argjson ms "$((t1 - t0))" \
    --argjson backends "$backends" --argjson rows "$rows" \
    '. + {db_commits: $c, db_commits_per_s: (($c * 1000 / $ms) | floor),
          db_backends: $backends, ledger_rows: $rows}' "$W/load.json"
grep -h "team:\|store:" "$W"/d*.log | sort | uniq -c | sort -rn | head -5 >&2 || true

#!/bin/sh
# startup.sh [AIRSPACE] [FILES] - the first index of a large repository:
# `airspace status` starting the daemon on demand with a cold graph cache
# (how long until it answers, and what it says), how long until the
# daemon's import graph is built, and `airspace scan` cold and warm.
# AIRSPACE defaults to build/release/airspace, FILES (the generated
# repository's size, bench/index_repo.py) to 10 000. Prints key=value
# lines; results in RESULTS-daemon.md.
set -eu
cd "$(dirname "$0")/.."
B=$(realpath "${1:-build/release/airspace}")
N=${2:-10000}
T=$(mktemp -d)
trap 'HOME="$T/home" "$B" stop --repo "$T/r" > /dev/null 2>&1 || true; rm -rf "$T"' EXIT
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" NO_COLOR=1
mkdir -p "$HOME"
python3 bench/index_repo.py "$T/r" "$N" > /dev/null
git -c init.defaultBranch=main init -q "$T/r"
git -C "$T/r" add -A
git -C "$T/r" -c user.name=b -c user.email=b@b commit -qm base
cd "$T/r"
ms() { date +%s%N | cut -c1-13; }
echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), $B"
echo "files=$(git ls-files | wc -l) lines=$(git ls-files | xargs cat | wc -l)"

t0=$(ms)
"$B" status > "$T/status.out"
t1=$(ms)
echo "status_cold_ms=$((t1 - t0))"
echo "status_said=\"$(sed -n 2p "$T/status.out")\""
# until the graph is built: the log's "graph:" line (before, the daemon
# logged it before it served; now, when its index thread is done)
until grep -q "graph: " .git/airspace/daemon.log; do sleep 0.05; done
t2=$(ms)
echo "graph_ready_ms=$((t2 - t0))"
echo "graph_log=\"$(grep "graph: " .git/airspace/daemon.log | cut -c26-)\""
"$B" stop > /dev/null

rm -f .git/airspace/graph.cache*
t0=$(ms)
"$B" scan > /dev/null
t1=$(ms)
"$B" scan > /dev/null
t2=$(ms)
echo "scan_cold_ms=$((t1 - t0))"
echo "scan_warm_ms=$((t2 - t1))"

#!/bin/sh
# run.sh - run every benchmark on this machine (Release build) and print
# the results; bench/RESULTS.md records a run and what it means.
#
#   bench/run.sh [RUNS]      (RUNS: repetitions per measured size, default 11)
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-11}
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build/release > /dev/null
B=build/release
echo "== machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "== graph build, cold vs warm: /usr/include + node_modules"
$B/bench_graph --warm-runs 3 /usr/include node_modules
echo "== pair scoring over the /usr/include graph, 2 threads then 1"
$B/bench_scan --runs "$RUNS" --threads 2 --emit-prefix "$B/bench-agents-" /usr/include
$B/bench_scan --runs "$RUNS" --threads 1 /usr/include
echo "== the command end to end: airspace scan --agents FILE --repo /usr/include --json"
export XDG_CACHE_HOME="$(pwd)/$B/bench-cache"
for size in 64x20 256x50; do
    "$B/airspace" scan --agents "$B/bench-agents-$size.json" \
        --repo /usr/include --json > /dev/null # fill the cache
    for i in 1 2 3; do
        /usr/bin/time -f "size=$size wall_s=%e max_rss_kb=%M" \
            "$B/airspace" scan --agents "$B/bench-agents-$size.json" \
            --repo /usr/include --json > /dev/null
    done
done

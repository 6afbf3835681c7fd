#!/bin/sh
# daemon.sh - benchmarks of the daemon's API (Release build): lock
# acquire+release pairs with 0, 100 and 10 000 other locks held, and the
# latency of an edit that re-scores one agent's pairs among 100 agents.
# Each case runs against a fresh daemon in a fresh repository.
set -eu
cd "$(dirname "$0")/.."
cmake --build build/release > /dev/null
B="$(pwd)/build/release"
case_run() { # case_run BENCH_API_MODE ARGS... (the socket is inserted)
    T=$(mktemp -d)
    git -c init.defaultBranch=main init -q "$T/r"
    echo x > "$T/r/x"
    git -C "$T/r" add x
    git -C "$T/r" -c user.name=b -c user.email=b@b commit -qm x
    (cd "$T/r" && exec "$B/airspace" serve --log-stderr 2> "$T/log") &
    pid=$!
    S="$T/r/.git/airspace/sock"
    until curl -sf --unix-socket "$S" http://a/v1/status > /dev/null 2>&1; do
        sleep 0.05
    done
    mode=$1
    shift
    "$B/bench_api" "$mode" "$S" "$@"
    printf 'daemon_rss_kb=%s\n' "$(ps -o rss= -p $pid | tr -d ' ')"
    kill $pid
    wait $pid 2> /dev/null || true
    rm -rf "$T"
}
echo "== machine: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
for held in 0 100 10000; do
    case_run locks 5000 $held 1
    case_run locks 20000 $held 4
done
case_run rescore 100
case_run activity 200

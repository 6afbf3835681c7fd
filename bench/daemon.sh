#!/bin/sh
# daemon.sh - benchmarks of the daemon's API (Release build): lock
# acquire+release pairs with 0, 100 and 10 000 other locks held, and the
# latency of an edit that re-scores one agent's pairs among 100 agents.
# Each case runs against a fresh daemon in a fresh repository.
set -eu
cd "$(dirname "$0")/.."
cmake --build build/release > /dev/null
B="$(pwd)/build/release"
# big_repo DIR: 10 000 C files in 100 directories, each including a header
# of the previous directory and calling its function.
big_repo() {
    python3 - "$1" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(100):
    os.makedirs(f"{root}/src/d{d:02d}", exist_ok=True)
    for f in range(100):
        prev = f"../d{d-1:02d}/f{f:03d}.h" if d else None
        with open(f"{root}/src/d{d:02d}/f{f:03d}.h", "w") as h:
            h.write(f"int fn_{d}_{f}(int x);\n")
        with open(f"{root}/src/d{d:02d}/f{f:03d}.c", "w") as c:
            c.write(f'#include "f{f:03d}.h"\n')
            if prev:
                c.write(f'#include "{prev}"\n')
            c.write(f"int\nfn_{d}_{f}(int x)\n{{\n")
            c.write(f"    return {'fn_%d_%d(x) + ' % (d-1, f) if d else ''}x;\n}}\n")
PY
}
case_run() { # case_run BENCH_API_MODE ARGS... (the socket is inserted)
    T=$(mktemp -d)
    git -c init.defaultBranch=main init -q "$T/r"
    echo x > "$T/r/x"
    [ -z "${BIG:-}" ] || big_repo "$T/r"
    git -C "$T/r" add -A
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
echo "== 100 agents on a 20 000-file repository (10 000 sources + headers)"
BIG=1 case_run rescore 100

#!/bin/sh
# rescan_stall.sh - how long the daemon's loop stops answering while
# nothing happens: a repository with worktrees, each with a change, the
# daemon at its default rescan period, and a client asking GET /v1/locks
# every 100 ms for SECONDS; prints the number of requests, the slowest
# answer and how many took longer than the hooks' 500 ms deadline. Run
# for two binaries in turn (the previous release and this one) on the same
# repository for a comparison in one run.
#
#   bench/rescan_stall.sh GIT_DIR WORKTREES SECONDS BIN...
#
# GIT_DIR: a repository to clone (e.g. a snapshot of libgit2, 15 600 files).
set -eu
[ $# -ge 4 ] || { echo "usage: bench/rescan_stall.sh GIT_DIR WORKTREES SECONDS BIN..." >&2; exit 2; }
SRC=$1 N=$2 SECS=$3
shift 3
T=$(mktemp -d)
trap 'for b in "$@"; do "$b" stop --repo "$T/r" > /dev/null 2>&1 || true; done; rm -rf "$T"' EXIT
git clone -q "$SRC" "$T/r"
i=1
while [ "$i" -le "$N" ]; do
    git -C "$T/r" worktree add -q -b "w$i" "$T/w$i"
    # one change in each, in a file git tracks (the first of ls-files)
    f=$(git -C "$T/w$i" ls-files | sed -n "$((i * 7 + 1))p")
    echo "/* w$i */" >> "$T/w$i/$f"
    i=$((i + 1))
done
for BIN in "$@"; do
    (cd "$T/r" && "$BIN" serve --log-stderr 2> "$T/log") &
    pid=$!
    S="$T/r/.git/airspace/sock"
    until curl -sf --unix-socket "$S" http://a/v1/status 2> /dev/null |
        jq -e '.index.state == "ready"' > /dev/null 2>&1; do
        sleep 0.2
    done
    sleep 10 # the first reads (and the one after the graph) settle
    python3 - "$S" "$SECS" "$BIN" <<'PY'
import socket, sys, time
sock, secs, binary = sys.argv[1], float(sys.argv[2]), sys.argv[3]
def ask():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    t = time.monotonic()
    s.connect(sock)
    s.sendall(b"GET /v1/locks HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    while s.recv(65536):
        pass
    s.close()
    return time.monotonic() - t
lat, slow = [], []
t0 = time.monotonic()
while time.monotonic() - t0 < secs:
    at = time.monotonic() - t0
    x = ask()
    lat.append(x)
    if x > 0.5:
        slow.append("%.0f ms at %.1f s" % (1000 * x, at))
    time.sleep(0.1)
lat.sort()
print("%s: %d requests, median %.1f ms, slowest %.0f ms, over 500 ms: %d%s"
      % (binary, len(lat), 1000 * lat[len(lat) // 2], 1000 * lat[-1],
         len(slow), " (" + ", ".join(slow) + ")" if slow else ""))
PY
    "$BIN" stop --repo "$T/r" > /dev/null 2>&1 || kill "$pid"
    wait "$pid" 2> /dev/null || true
done

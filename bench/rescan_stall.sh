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
. "$(dirname "$0")/worktrees_lib.sh"
bench_worktrees "$SRC" "$N"
for BIN in "$@"; do
    bench_serve "$BIN"
    pid=$DPID
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

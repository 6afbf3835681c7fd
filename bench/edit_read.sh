#!/bin/sh
# edit_read.sh - what an agent's edits cost the daemon on a large
# repository: a clone of GIT_DIR with WORKTREES worktrees, each with a
# change, the daemon running, and for SECONDS one agent (the first
# worktree) writing a new file and changing a tracked one every second
# while a client asks GET /v1/locks every 100 ms (what a hook asks). Prints,
# per binary: the requests, their median, slowest and how many took longer
# than the hooks' 500 ms deadline; how long after each write the daemon's
# working set had the new file (median, slowest); and the daemon's CPU
# time over the run. Run two binaries (the previous release and this one)
# on the same repository for a comparison in one run.
#
#   [AHEAD=K] bench/edit_read.sh GIT_DIR WORKTREES SECONDS BIN...
#
# AHEAD=K: the editing agent has K commits ahead of its base, each
# changing one more C file (a long-running agent's branch).
# GIT_DIR: a repository to clone (e.g. a snapshot of libgit2, 15 600 files).
set -eu
[ $# -ge 4 ] || { echo "usage: bench/edit_read.sh GIT_DIR WORKTREES SECONDS BIN..." >&2; exit 2; }
SRC=$1 N=$2 SECS=$3
shift 3
T=$(mktemp -d)
trap 'for b in "$@"; do "$b" stop --repo "$T/r" > /dev/null 2>&1 || true; done; rm -rf "$T"' EXIT
. "$(dirname "$0")/worktrees_lib.sh"
bench_worktrees "$SRC" "$N"
for BIN in "$@"; do
    bench_serve "$BIN"
    pid=$DPID
    python3 - "$S" "$SECS" "$BIN" "$T/w1" "$pid" <<'PY'
import json, os, socket, sys, threading, time
sock, secs, binary, wt, pid = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
def ask(path):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    t = time.monotonic()
    s.connect(sock)
    s.sendall(("GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n" % path).encode())
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.close()
    return time.monotonic() - t, data
def cpu():
    with open("/proc/%s/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")
lat, seen = [], []
stop = time.monotonic() + secs
def probe():
    while time.monotonic() < stop:
        lat.append(ask("/v1/locks")[0])
        time.sleep(0.1)
th = threading.Thread(target=probe)
c0 = cpu()
th.start()
tracked = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(wt, "src")) for f in fs if f.endswith(".c"))[:20]
k = 0
while time.monotonic() < stop - 2:
    name = "bench-new-%d-%d.txt" % (os.getpid(), k)  # new for each binary
    with open(os.path.join(wt, name), "w") as f:
        f.write("new %d\n" % k)
    with open(tracked[k % len(tracked)], "a") as f:
        f.write("/* %d */\n" % k)
    t = time.monotonic()
    while time.monotonic() - t < 30:
        _, data = ask("/v1/agents/w1")
        body = data.split(b"\r\n\r\n", 1)[1]
        if name.encode() in body:
            break
        time.sleep(0.02)
    seen.append(time.monotonic() - t)
    k += 1
    time.sleep(max(0.0, 1.0 - seen[-1]))
th.join()
c1 = cpu()
lat.sort(); seen.sort()
print("%s: %d requests, median %.1f ms, slowest %.0f ms, over 500 ms: %d; "
      "%d writes seen after median %.0f ms, slowest %.0f ms; daemon CPU %.1f s"
      % (binary, len(lat), 1000 * lat[len(lat) // 2], 1000 * lat[-1],
         sum(1 for x in lat if x > 0.5), len(seen), 1000 * seen[len(seen) // 2],
         1000 * seen[-1], c1 - c0))
PY
    curl -sf --unix-socket "$S" http://a/v1/status | jq -c .watch
    "$BIN" stop --repo "$T/r" > /dev/null
    wait
done

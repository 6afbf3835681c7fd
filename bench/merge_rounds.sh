#!/bin/bash
# merge_rounds.sh - how long requests wait while the daemon scores pairs
# that each need a speculative merge: a clone of libgit2 (the mirror, or
# GIT_DIR given as $SRC) with N worktrees, each with a change to the same
# three files (every pair merges), one of them editing two of those files
# every second for S seconds while a client asks GET /v1/locks every
# 50 ms. Prints the requests' median, 99th percentile, slowest and how
# many took longer than the hooks' 500 ms, and the daemon's merge counts.
#
#   bench/merge_rounds.sh BIN [N [S]]
# N agents on a libgit2 clone, each with a change to the same 3 files (every pair merges);
# one agent edits one of them every second for S seconds while a client asks GET /v1/locks every 50 ms
BIN=$1 N=${2:-12} S=${3:-25}
T=$(mktemp -d); rm -rf $T; mkdir -p $T; cd $T
git clone -q ${SRC:-/work/.mirror/libgit2+libgit2/repo} r; cd r
for i in $(seq 1 $N); do git worktree add -q -b w$i $T/w$i; for f in src/libgit2/merge.c src/libgit2/diff.c src/libgit2/index.c; do sed -i "$((i*3+20))s/^/\/* w$i *\/ /" $T/w$i/$f; done; done
($BIN serve --log-stderr 2> $T/log &) ; S0=.git/airspace/sock
until curl -sf --unix-socket $S0 http://a/v1/status | jq -e '.index.state == "ready"' >/dev/null 2>&1; do sleep 0.3; done
sleep 15
python3 - "$S0" "$S" "$T/w1" <<'PY'
import socket, sys, time, threading
sock, secs, wt = sys.argv[1], float(sys.argv[2]), sys.argv[3]
def ask(path):
    s = socket.socket(socket.AF_UNIX); s.settimeout(60); t = time.monotonic(); s.connect(sock)
    s.sendall(("GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n" % path).encode())
    while s.recv(65536): pass
    s.close(); return time.monotonic() - t
lat = []; stop = time.monotonic() + secs
def probe():
    while time.monotonic() < stop:
        lat.append(ask("/v1/locks")); time.sleep(0.05)
th = threading.Thread(target=probe); th.start()
k = 0
while time.monotonic() < stop - 1:
    for f in ("src/libgit2/merge.c", "src/libgit2/diff.c"):
        with open(wt + "/" + f, "a") as fh: fh.write("/* edit %d */\n" % k)
    k += 1; time.sleep(1)
th.join(); lat.sort()
print("requests %d median %.1f ms p99 %.0f ms max %.0f ms over 500 ms: %d" % (len(lat), 1000*lat[len(lat)//2], 1000*lat[int(len(lat)*0.99)], 1000*lat[-1], sum(1 for x in lat if x > 0.5)))
PY
curl -s --unix-socket $S0 http://a/v1/status | jq -c '.merges'
$BIN stop >/dev/null 2>&1
rm -rf "$T"

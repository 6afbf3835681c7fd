# t95-descriptor-limit.sh - at its descriptor limit the daemon stops
# accepting for a moment instead of spinning on accept(), keeps serving the
# connections it has, and accepts again once descriptors are free.
. "$(dirname "$0")/lib.sh"

base_repo "$TMP/repo"
# a low limit for the daemon alone
NOFILE=$(ulimit -Sn)
ulimit -Sn 128
start_daemon
ulimit -Sn "$NOFILE"

cat > "$TMP/fill.py" <<'PY'
import json, socket, sys, time

sock_path, dpid = sys.argv[1], sys.argv[2]

def cpu():
    with open(f"/proc/{dpid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime, in ticks

def get(s):
    s.sendall(b"GET /v1/status HTTP/1.1\r\nHost: a\r\n\r\n")
    data = b""
    while b'"pid"' not in data or not data.rstrip().endswith(b"}"):
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("closed")
        data += chunk
    return data

ok = True
first = socket.socket(socket.AF_UNIX)
first.connect(sock_path)
first.settimeout(5)
get(first)
# more connections than the daemon has descriptors: the kernel queues
# those it cannot accept
held = []
for _ in range(300):
    s = socket.socket(socket.AF_UNIX)
    s.setblocking(False)
    try:
        s.connect(sock_path)
    except (BlockingIOError, OSError):
        s.close()
        break
    held.append(s)
time.sleep(1)
c0, t0 = cpu(), time.time()
time.sleep(2)
used = (cpu() - c0) / 100 / (time.time() - t0)
print(f"cpu while full: {used:.0%} ({len(held)} connections)", file=sys.stderr)
if used > 0.3:
    print("FAIL: the daemon spins at its descriptor limit", file=sys.stderr)
    ok = False
try:
    get(first)
except OSError as e:
    print("FAIL: a held connection is not served:", e, file=sys.stderr)
    ok = False
for s in held:
    s.close()
time.sleep(0.5)
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
try:
    s.connect(sock_path)
    get(s)
except OSError as e:
    print("FAIL: no new connection once descriptors are free:", e, file=sys.stderr)
    ok = False
sys.exit(0 if ok else 1)
PY
check "at the descriptor limit: no spin, old connections served, recovers" \
    python3 "$TMP/fill.py" "$SOCK" "$DPID"
check "the pause is logged" grep -q 'cannot accept a connection' "$TMP/daemon.log"
api GET /v1/status
check "the daemon still answers" [ "$CODE" = 200 ]
finish

# t93-events-stalled.sh - event stream clients that stop reading: each may
# leave at most BROKER_SSE_MAX_PENDING bytes unread in the daemon, then it is
# told where to resume (stream.dropped) and closed; the daemon stays small and
# a client that reads keeps its stream.
. "$(dirname "$0")/lib.sh"

# freed memory counts as freed (AddressSanitizer keeps it aside otherwise)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
base_repo "$TMP/repo"
start_daemon --tick-ms 50
for a in alice bob; do
    api POST /v1/agents "{\"id\":\"$a\"}"
done

"$AIRSPACE_BIN" watch --json > "$TMP/watch.out" 2> "$TMP/watch.err" &
WPID=$!
trap 'kill $DPID $WPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT

cat > "$TMP/stall.py" <<'PY'
import http.client, json, os, re, socket, sys, time

sock_path, dpid, log = sys.argv[1], sys.argv[2], sys.argv[3]

def rss():
    with open(f"/proc/{dpid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) // 1024

def subscriber(path="/v1/events"):
    s = socket.socket(socket.AF_UNIX)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(sock_path)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: a\r\n\r\n".encode())
    return s

class Unix(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sock_path)

stalled = [subscriber() for _ in range(10)]
time.sleep(0.5)
before = rss()
api = Unix("a")
body = json.dumps({"from": "alice", "to": "bob", "body": "x" * 16000})
n = 2000
for i in range(n):
    api.request("POST", "/v1/messages", body, {"Content-Type": "application/json"})
    r = api.getresponse()
    r.read()
    assert r.status == 200, r.status
after = rss()
print(f"rss {before} -> {after} MB over {n} events of 16 KB", file=sys.stderr)
ok = True
if after - before > 160:
    print("FAIL: the daemon grew by", after - before, "MB", file=sys.stderr)
    ok = False

# every stalled client is closed (EOF once what was queued is read)
for s in stalled:
    s.settimeout(10)
    try:
        while s.recv(1 << 16):
            pass
    except socket.timeout:
        print("FAIL: a stalled client was not closed", file=sys.stderr)
        ok = False
        break

# one more, stalled from a known id: it reads the notice at once
api.request("GET", "/v1/status")
last = json.loads(api.getresponse().read())["lastEventId"]
start = max(0, last - 600)
s = subscriber(f"/v1/events?after={start}")
deadline = time.time() + 20
while time.time() < deadline:
    if open(log).read().count("dropped a client") >= 11:
        break
    time.sleep(0.05)
else:
    print("FAIL: the replaying client was not dropped", file=sys.stderr)
    ok = False
s.settimeout(10)
data = b""
while True:
    chunk = s.recv(1 << 16)
    if not chunk:
        break
    data += chunk
text = data.decode(errors="replace")
m = re.search(r"event: stream.dropped\r?\ndata: (.*)\r?\n", text)
if not m:
    print("FAIL: no stream.dropped notice", file=sys.stderr)
    sys.exit(1)
note = json.loads(m.group(1))
ids = [int(x) for x in re.findall(r"^id: (\d+)", text, re.M)]
resume = note["data"]["after"]
if not ids or ids[0] != start + 1 or ids[-1] != resume or resume >= last:
    print("FAIL: notice", note, "ids", ids[:1], ids[-1:], file=sys.stderr)
    ok = False
# resuming where the notice says goes on with the next event
r = subscriber(f"/v1/events?after={resume}")
r.settimeout(10)
got = b""
while b"\nid: " not in got and b"\r\nid: " not in got:
    got += r.recv(1 << 16)
if f"id: {resume + 1}\n".encode() not in got:
    print("FAIL: resuming did not start at", resume + 1, file=sys.stderr)
    ok = False
sys.exit(0 if ok else 1)
PY
check "stalled clients are dropped, the daemon stays small" \
    python3 "$TMP/stall.py" "$SOCK" "$DPID" "$TMP/daemon.log"

# the client that reads got every message
i=0
while [ "$(grep -c '"type":"message"' "$TMP/watch.out" || true)" -lt 2000 ] && [ $i -lt 1200 ]; do
    sleep 0.05
    i=$((i + 1))
done
check "watch got every event" [ "$(grep -c '"type":"message"' "$TMP/watch.out")" -eq 2000 ]
check "watch is still running" kill -0 "$WPID"
api GET /v1/status
check "the daemon still answers" [ "$CODE" = 200 ]
finish

# t88-conn-limits.sh - connection caps and deadlines: a client trickling a
# request one byte at a time is cut off (408) while others are served; one
# process over its connection cap, and anyone over the global cap, gets a
# JSON 503 while the connections already open keep working; an idle
# keep-alive connection is closed; an event stream is not.
. "$(dirname "$0")/lib.sh"

base_repo "$TMP/repo"
start_daemon --request-timeout-ms 1500 --conn-idle-ms 2500 \
    --max-connections 6 --max-peer-connections 4

cat > "$TMP/conns.py" <<'PY'
import json, socket, subprocess, sys, threading, time

sock_path = sys.argv[1]
ok = True

def fail(msg):
    global ok
    print("FAIL:", msg, file=sys.stderr)
    ok = False

def connect():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sock_path)
    return s

def read_reply(s):
    """One HTTP reply (Content-Length framed): (status, headers, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("closed before a reply")
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    hdr = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:]}
    n = int(hdr.get("content-length", "0"))
    while len(body) < n:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, hdr, body

def get(s, path="/v1/status"):
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: a\r\n\r\n".encode())
    return read_reply(s)

# 1. slow loris: one byte every 0.3 s; cut off ~1.5 s after its first byte
#    while another client is served meanwhile
slow = connect()
req = b"GET /v1/status HTTP/1.1\r\nHost: a\r\nX-Pad: " + b"a" * 200
t0 = time.time()
cut = None
served_meanwhile = False
for i, byte in enumerate(req):
    try:
        slow.sendall(bytes([byte]))
    except OSError:
        cut = time.time() - t0
        break
    if i == 3:
        other = connect()
        served_meanwhile = get(other)[0] == 200
        other.close()
    time.sleep(0.3)
    if time.time() - t0 > 8:
        break
got = b""
try:
    slow.settimeout(3)
    while True:
        chunk = slow.recv(4096)
        if not chunk:
            break
        got += chunk
except OSError:
    pass
if cut is None:
    cut = time.time() - t0
print(f"slow client cut off after {cut:.1f} s", file=sys.stderr)
if not 1.0 <= cut <= 4.5:
    fail(f"slow client cut off after {cut:.1f} s, not ~1.5 s")
if b" 408 " not in got.split(b"\r\n", 1)[0] or b'"request_timeout"' not in got:
    fail(f"slow client not told 408 request_timeout: {got[:200]!r}")
if not served_meanwhile:
    fail("another client was not served while the slow one trickled")
slow.close()

# 2. one process: 4 connections served, the 5th refused with a JSON 503
held = [connect() for _ in range(4)]
for s in held:
    if get(s)[0] != 200:
        fail("a connection within the cap is not served")
extra = connect()
st, hdr, body = get(extra)
try:
    code = json.loads(body)["error"]["code"]
except Exception:
    code = None
if st != 503 or code != "too_many_connections" or \
        hdr.get("content-type") != "application/json":
    fail(f"5th connection of one process: {st} {body[:200]!r}")
extra.close()
for s in held:
    if get(s)[0] != 200:
        fail("an open connection stopped working after a refusal")

# 3. another process gets its own share, up to the global cap of 6
helper = subprocess.Popen([sys.executable, "-c", f"""
import socket, sys, time
out, last, keep = [], "", []
for i in range(3):
    s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect({sock_path!r})
    keep.append(s)
    s.sendall(b"GET /v1/status HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n")
    data = s.recv(65536)
    out.append(data.split(b"\\r\\n", 1)[0].split()[1].decode())
    last = data.decode(errors="replace").replace("\\n", " ")
print(" ".join(out), flush=True)
print(last, flush=True)
"""], stdout=subprocess.PIPE, text=True)
lines = helper.communicate(timeout=20)[0].splitlines()
if not lines or lines[0] != "200 200 503":
    fail(f"a second process over the global cap: {lines!r}")
elif "serves 6 connections" not in " ".join(lines[1:]):
    fail(f"the global refusal does not say so: {lines!r}")
for s in held:
    if get(s)[0] != 200:
        fail("an open connection stopped working after a global refusal")
for s in held:
    s.close()

# 4. an idle keep-alive connection is closed after conn-idle (2.5 s); an
#    event stream open as long is not
idle = connect()
get(idle)
stream = connect()
stream.sendall(b"GET /v1/events HTTP/1.1\r\nHost: a\r\n\r\n")
t0 = time.time()
idle.settimeout(6)
try:
    closed = idle.recv(1) == b""
except OSError:
    closed = False
waited = time.time() - t0
if not closed or not 1.5 <= waited <= 5:
    fail(f"idle connection: closed={closed} after {waited:.1f} s")
time.sleep(max(0, 3.5 - waited))
poke = connect()
st = None
poke.sendall(b'POST /v1/agents HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n{"id":"alice"}')
st = read_reply(poke)[0]
stream.settimeout(5)
seen = b""
try:
    while b"agent.registered" not in seen and b"agent." not in seen:
        chunk = stream.recv(65536)
        if not chunk:
            break
        seen += chunk
except OSError:
    pass
if st not in (200, 201) or b"agent." not in seen:
    fail(f"event stream open past the idle timeout got no event (register {st}): {seen[-300:]!r}")
sys.exit(0 if ok else 1)
PY
check "slow client cut off, caps answered 503 in JSON, idle closed, stream kept" \
    python3 "$TMP/conns.py" "$SOCK"
check "the cut-off is logged" grep -q 'not complete within 1500 ms' "$TMP/daemon.log"
check "the refusals are logged" grep -q 'connections: refused' "$TMP/daemon.log"
api GET /v1/status
check "the daemon still answers" [ "$CODE" = 200 ]
check "bad cap refused" sh -c '! "$AIRSPACE_BIN" serve --max-connections 0 2>/dev/null'
finish

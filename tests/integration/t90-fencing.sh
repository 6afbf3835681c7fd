# t90-fencing.sh - fencing tokens where they protect: a release or renew
# naming the token of a grant that was lost since (expired, and the lock
# granted again) is refused 409 stale_token and changes nothing, through
# the API, the CLI (--token) and the MCP server (which sends the token its
# session was granted). A store put back from an older copy while the
# daemon is down does not make tokens or event ids go backwards: they go on
# from the marks kept beside it (<airspace>/fence), and the log says so.
. "$(dirname "$0")/lib.sh"

base_repo "$TMP/repo"
mkdir -p src
echo 'int a;' > src/a.c
echo 'int b;' > src/b.c
start_daemon --tick-ms 50
api POST /v1/agents '{"id":"alice"}'

held() { # held PATTERN -> the token alice holds on it, or nothing
    api GET "/v1/locks?agent=alice"
    jq -r --arg p "$1" '.locks[] | select(.pattern == $p) | .token' "$TMP/body"
}

# a grant, lost by expiry, granted again
api POST /v1/locks '{"agent":"alice","pattern":"src/a.c","ttlMs":300}'
T1=$(jq -r .token "$TMP/body")
sleep 0.5
api POST /v1/locks '{"agent":"alice","pattern":"src/a.c","ttlMs":600000}'
T2=$(jq -r .token "$TMP/body")
check "a new grant, a greater token ($T1 < $T2)" [ "$T1" -lt "$T2" ]

api POST /v1/locks/release "{\"agent\":\"alice\",\"pattern\":\"src/a.c\",\"token\":$T1}"
check "release with the lost grant's token: 409 stale_token ($CODE)" \
    sh -c "[ $CODE = 409 ] && jq -e '.error.code == \"stale_token\" and .error.holder.token == $T2' '$TMP/body' > /dev/null"
check "... and the lock is still held under $T2" [ "$(held src/a.c)" = "$T2" ]
api POST /v1/locks/renew "{\"agent\":\"alice\",\"pattern\":\"src/a.c\",\"token\":$T1,\"ttlMs\":1000}"
check "renew with the lost grant's token: 409 stale_token ($CODE)" \
    sh -c "[ $CODE = 409 ] && jq -e '.error.code == \"stale_token\"' '$TMP/body' > /dev/null"
api GET "/v1/locks?agent=alice"
check "... and its expiry is unchanged (over 500 s left)" \
    jq -e '.locks[0].expiresInMs > 500000' "$TMP/body"
for bad in '"7"' 0 -3 1.5; do
    api POST /v1/locks/release "{\"agent\":\"alice\",\"pattern\":\"src/a.c\",\"token\":$bad}"
    check "token $bad: 400 bad_field ($CODE)" [ "$CODE" = 400 ]
done
api POST /v1/locks/contest "{\"agent\":\"alice\",\"pattern\":\"src/a.c\",\"token\":$T2}"
check "contest takes no token ($CODE)" [ "$CODE" = 400 ]
api POST /v1/locks/renew "{\"agent\":\"alice\",\"pattern\":\"src/a.c\",\"token\":$T2}"
check "renew with the held token: 200 ($CODE)" [ "$CODE" = 200 ]

# the CLI
rc=0
as unlock --agent alice --token "$T1" src/a.c 2> "$TMP/err" || rc=$?
check "unlock --token (lost): exit 1 ($rc)" [ "$rc" = 1 ]
check "... saying why ($(cat "$TMP/err"))" grep -q "has token $T2, not $T1" "$TMP/err"
check "... still held" [ "$(held src/a.c)" = "$T2" ]
check "unlock --token (held): exit 0" as unlock --agent alice --token "$T2" src/a.c
check "... released" [ -z "$(held src/a.c)" ]
api POST /v1/locks '{"agent":"alice","pattern":"src/a.c"}'
check "release without a token still works" as unlock --agent alice src/a.c

# the MCP server sends the token its session was granted
cat > "$TMP/mcp.py" <<'PY'
import json, subprocess, sys, time, urllib.parse
import http.client, socket

bin_, sock = sys.argv[1], sys.argv[2]

class Unix(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sock)

def api(method, path, body=None):
    c = Unix("a")
    c.request(method, path, json.dumps(body) if body else None,
              {"Content-Type": "application/json"})
    r = c.getresponse()
    return r.status, json.loads(r.read() or b"{}")

p = subprocess.Popen([bin_, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     text=True, env={**__import__("os").environ, "AIRSPACE_AGENT": "alice"})
n = 0
def rpc(method, params=None):
    global n
    n += 1
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method,
                              "params": params or {}}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == n:
            return m
def tool(name, args):
    r = rpc("tools/call", {"name": name, "arguments": args})["result"]
    return r.get("isError", False), r["content"][0]["text"]

rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t90", "version": "1"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
p.stdin.flush()
ok = True
err, text = tool("lock", {"patterns": ["src/b.c"], "ttlSeconds": 1})
if err:
    print("FAIL: mcp lock:", text, file=sys.stderr); ok = False
time.sleep(1.3)  # the session's grant expires; another takes it again
st, again = api("POST", "/v1/locks", {"agent": "alice", "pattern": "src/b.c"})
err, text = tool("release", {"patterns": ["src/b.c"]})
if not err or "has token" not in text:
    print("FAIL: mcp release of a lost grant was not refused:", text, file=sys.stderr); ok = False
st, locks = api("GET", "/v1/locks?agent=alice")
if [l["token"] for l in locks["locks"] if l["pattern"] == "src/b.c"] != [again["token"]]:
    print("FAIL: the later grant did not survive the stale release:", locks, file=sys.stderr); ok = False
err, text = tool("lock", {"patterns": ["src/b.c"]})
err2, text2 = tool("release", {"patterns": ["src/b.c"]})
if err or err2:
    print("FAIL: mcp lock/release of its own grant:", text, text2, file=sys.stderr); ok = False
p.stdin.close()
p.wait(timeout=10)
sys.exit(0 if ok else 1)
PY
check "mcp: a release of a lost grant is refused, of a held one done" \
    python3 "$TMP/mcp.py" "$AIRSPACE_BIN" "$SOCK"

# a backup of the store, then more grants than a block of the store's own
# mark (1024), then the backup put back while the daemon is down
kill "$DPID"
wait "$DPID" 2> /dev/null || true
cp .git/airspace/airspace.db "$TMP/backup.db"
start_daemon --tick-ms 50
check "a plain restart is not taken for a restored store" \
    sh -c "! grep -q 'put back from an older copy' '$TMP/daemon.log'"
cat > "$TMP/grants.py" <<'PY'
import http.client, json, socket, sys
sock, n = sys.argv[1], int(sys.argv[2])
class Unix(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sock)
c = Unix("a")
top = 0
for i in range(n):
    got = 0
    for path, body in (("/v1/locks", {"agent": "alice", "pattern": f"g/{i % 7}"}),
                       ("/v1/locks/release", {"agent": "alice", "pattern": f"g/{i % 7}"})):
        if got:
            body["token"] = got
        c.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        r = c.getresponse()
        d = json.loads(r.read())
        if r.status != 200:
            sys.exit(f"{path}: {r.status} {d}")
        got = d.get("token", 0)
        top = max(top, got)
print(top)
PY
TOP=$(python3 "$TMP/grants.py" "$SOCK" 1100)
LAST_EVENT=$(as log -n 1 --json 2> /dev/null | jq -r '.events[-1].id' 2> /dev/null || echo 0)
check "1100 grants made (top token $TOP)" [ "$TOP" -gt 1100 ]
check "the marks file is beside the store" grep -q '^token ' .git/airspace/fence
kill "$DPID"
wait "$DPID" 2> /dev/null || true
cp "$TMP/backup.db" .git/airspace/airspace.db
rm -f .git/airspace/airspace.db-wal .git/airspace/airspace.db-shm
start_daemon --tick-ms 50
api POST /v1/locks '{"agent":"alice","pattern":"after-restore"}'
NEW=$(jq -r .token "$TMP/body")
check "after the old store is put back: a grant's token ($NEW) above every earlier one ($TOP)" \
    [ "$CODE,$((NEW > TOP))" = "200,1" ]
check "the log says the store was behind" grep -q 'put back from an older copy' "$TMP/daemon.log"
if [ "$LAST_EVENT" -gt 0 ] 2> /dev/null; then
    NEWEV=$(as log -n 1 --json 2> /dev/null | jq -r '.events[-1].id')
    check "event ids go on above the last one ($NEWEV > $LAST_EVENT)" [ "$NEWEV" -gt "$LAST_EVENT" ]
fi
finish

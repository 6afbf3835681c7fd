# t85-inbox-dropped.sh - an inbox keeps at most 256 messages, and what the
# cap drops is never lost silently: each dropped message is a
# `message.dropped` event (in the ledger too), and an inbox read says how
# many unread ones were lost; read messages go first.
. "$(dirname "$0")/lib.sh"

base_repo "$TMP/repo"
start_daemon
api POST /v1/agents '{"id":"alice"}'
api POST /v1/agents '{"id":"bob"}'

cat > "$TMP/send.py" <<'PY'
import http.client, json, socket, sys
sock, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
class Unix(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sock)
c = Unix("a")
for i in range(first, first + n):
    c.request("POST", "/v1/messages", json.dumps({"from": "alice", "to": "bob", "body": f"m{i}"}),
              {"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    if r.status != 200:
        sys.exit(f"message {i}: {r.status}")
PY
check "260 messages sent" python3 "$TMP/send.py" "$SOCK" 1 260
api GET '/v1/agents/bob/inbox?peek=1'
check "the inbox holds 256, says 4 unread were dropped" \
    jq -e '(.messages | length) == 256 and .dropped == 4 and .messages[0].body == "m5"' "$TMP/body"
as log --type message.dropped -n 100 --json > "$TMP/dropped.json"
check "4 message.dropped events, the oldest unread ones, in the ledger" \
    jq -e '[.events[] | .data | select(.owner == "bob" and .unread == true) | .body] == ["m1","m2","m3","m4"]' "$TMP/dropped.json"
as inbox --agent bob > "$TMP/inbox.out" 2> "$TMP/inbox.err"
check "reading them ($(wc -l < "$TMP/inbox.out") lines)" [ "$(wc -l < "$TMP/inbox.out")" = 256 ]
check "... the reader is told 4 were dropped ($(cat "$TMP/inbox.err"))" \
    grep -q "^airspace inbox: 4 unread messages to this inbox were dropped since the daemon started" "$TMP/inbox.err"
check "3 more sent" python3 "$TMP/send.py" "$SOCK" 261 3
api GET '/v1/agents/bob/inbox?peek=1'
check "read ones made room: the 3 new are unread, no more unread lost" \
    jq -e '(.messages | map(.body)) == ["m261","m262","m263"] and .dropped == 4' "$TMP/body"
as log --type message.dropped -n 100 --json > "$TMP/dropped.json"
check "... and each is evented as a read one dropped" \
    jq -e '[.events[] | .data | select(.unread == false) | .body] == ["m5","m6","m7"]' "$TMP/dropped.json"
finish

# t37-ledger.sh - the ledger through the daemon's API: lock and claim
# events are stored whole (fencing token included), secrets are still
# redacted, and Last-Event-ID replay after a restart serves from the ledger
# every event the daemon no longer holds in memory.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
start_daemon --tick-ms 50 --rescan-ms 60000

# stop_daemon: a clean stop, waiting until the process is gone
stop_daemon() {
    api POST /v1/stop
    wait $DPID 2>/dev/null || true
}

# sse AFTER: the ids replayed after AFTER (Last-Event-ID), one a line
sse() {
    curl -sN --max-time 1 --unix-socket "$SOCK" -H "Last-Event-ID: $1" \
        http://a/v1/events 2>/dev/null | sed -n 's/^id: //p' || true
}

api POST /v1/agents '{"id":"alice"}'
api POST /v1/agents '{"id":"bob"}'

# 1. lock and claim events are valid JSON in the ledger, with their token
api POST /v1/locks '{"agent":"alice","pattern":"x"}'
tok=$(jq .token "$TMP/body")
api POST /v1/locks/renew "{\"agent\":\"alice\",\"pattern\":\"x\",\"ttlMs\":600000,\"token\":$tok}"
api POST /v1/locks/release "{\"agent\":\"alice\",\"pattern\":\"x\",\"token\":$tok}"
api POST /v1/locks '{"agent":"bob","pattern":"docs/**","kind":"claim"}'
ctok=$(jq .token "$TMP/body")
api GET '/v1/ledger?type=lock.'
check "ledger has lock.granted, renewed, released" jqt "$TMP/body" \
    '[.events[].type] == ["lock.granted","lock.renewed","lock.released"]'
check "lock events keep their fencing token ($tok)" jqt "$TMP/body" \
    "[.events[].data.token] == [$tok,$tok,$tok]"
api GET '/v1/ledger?type=claim.'
check "ledger has claim.granted with its token ($ctok)" jqt "$TMP/body" \
    "[.events[] | select(.type == \"claim.granted\") | .data.token] == [$ctok]"
# secrets are still redacted before storage
api POST /v1/messages '{"from":"alice","to":"bob","body":"db password=hunter2 ok"}'
api POST /v1/locks '{"agent":"alice","pattern":"y","reason":"key sk-abcdefghijklmnopqrstuvwx"}'
api GET '/v1/ledger?type=message'
check "a secret in a message body is redacted" jqt "$TMP/body" \
    '.events[-1].data.body == "db password=[redacted] ok"'
api GET '/v1/ledger?type=lock.granted'
check "a secret in a lock reason is redacted, the token kept" jqt "$TMP/body" \
    '.events[-1].data.reason == "key [redacted]" and (.events[-1].data.token | type) == "number"'
api GET /v1/ledger
check "every event is served, none dropped (ids 1, 2, 3, ...)" jqt "$TMP/body" \
    '[.events[].id] as $i | ($i | length) > 8 and $i == [range(1; ($i | length) + 1)]'
nled=$(jq '.events | length' "$TMP/body")
last=$(jq '.events[-1].id' "$TMP/body")

# 6. after a restart, Last-Event-ID replay comes from the ledger
stop_daemon
start_daemon --tick-ms 50 --rescan-ms 60000
sse 0 > "$TMP/ids"
check "replay from 0 after a restart sends the $nled stored events" \
    [ "$(awk -v l="$last" '$1 <= l' "$TMP/ids" | wc -l)" -eq "$nled" ]
sse 3 > "$TMP/ids"
check "replay from 3 after a restart starts at 4" [ "$(head -n 1 "$TMP/ids")" = 4 ]
sse 18446744073709551615 > "$TMP/ids"
check "Last-Event-ID 2^64-1 replays nothing" [ ! -s "$TMP/ids" ]
sse -1 > "$TMP/ids"
check "Last-Event-ID -1 replays nothing" [ ! -s "$TMP/ids" ]
api POST /v1/locks '{"agent":"alice","pattern":"z"}'
api GET '/v1/ledger?type=lock.granted'
check "a new event after the restart gets a higher id" jqt "$TMP/body" \
    ".events[-1].id > $last and .events[-1].data.pattern == \"z\""
api GET "/v1/ledger?after=$last"
check "after a clean stop, ids continue without a gap" jqt "$TMP/body" \
    ".events[0].id == $last + 1"
stop_daemon
finish

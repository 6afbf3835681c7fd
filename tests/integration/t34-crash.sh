# t34-crash.sh - kill -9 the daemon at random points during streams of
# lock, intent and message operations from three clients at once; after a
# restart every acknowledged operation is there, nothing else is, and
# fencing tokens keep increasing. Clients hanging up before their answer
# leave the daemon serving.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
SOCK="$R/.git/airspace/sock"
DPID=
trap 'kill -9 $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
start() {
    "$AIRSPACE_BIN" serve --log-stderr --rescan-ms 60000 2>> "$TMP/daemon.log" &
    DPID=$!
    n=0
    until curl -sf --unix-socket "$SOCK" http://a/v1/status > /dev/null 2>&1; do
        sleep 0.05
        n=$((n + 1))
        [ $n -lt 400 ] || return 1
    done
}
acked_at_least() { # acked_at_least N: wait (up to 30 s) until N are acked
    n=0
    while [ "$(wc -l < "$TMP/acked")" -lt "$1" ] && [ $n -lt 600 ]; do
        sleep 0.05
        n=$((n + 1))
    done
}
post() { # post PATH JSON [OUT] -> prints the HTTP code; the body in OUT
    curl -s -o "${3:-$TMP/last}" -w '%{http_code}' --unix-socket "$SOCK" -X POST \
        -H 'Content-Type: application/json' --data "$2" "http://a$1" 2>/dev/null || echo 000
}

start
post /v1/agents '{"id":"w1"}' > /dev/null
post /v1/agents '{"id":"w2"}' > /dev/null
: > "$TMP/acked"
maxtok=0
round=1
for delay in 0.4 0.7 0.25; do
    # three writers at once (their requests share commits): each operation
    # is recorded only once acknowledged
    before=$(wc -l < "$TMP/acked")
    WPIDS=
    for w in a b c; do
        (
            k=0
            while :; do
                k=$((k + 1))
                c=$(post /v1/locks "{\"agent\":\"w1\",\"pattern\":\"r$round/f$w$k.c\",\"ttlMs\":600000}" "$TMP/last.$w")
                [ "$c" = 200 ] && echo "lock r$round/f$w$k.c $(jq .token "$TMP/last.$w")" >> "$TMP/acked"
                c=$(post /v1/intents "{\"agent\":\"w2\",\"files\":[\"r$round/i$w$k.c\"]}" "$TMP/last.$w")
                [ "$c" = 200 ] && echo "intent r$round/i$w$k.c" >> "$TMP/acked"
                c=$(post /v1/messages "{\"from\":\"w1\",\"to\":\"w2\",\"body\":\"m$round-$w$k\"}" "$TMP/last.$w")
                [ "$c" = 200 ] && echo "msg m$round-$w$k" >> "$TMP/acked"
            done
        ) &
        WPIDS="$WPIDS $!"
    done
    # the kill comes at a different point each round, once the writers
    # are under way (a loaded machine may take long to start them)
    acked_at_least $((before + 6))
    sleep $delay
    kill -9 $DPID
    wait $DPID 2>/dev/null || true
    sleep 0.1
    # shellcheck disable=SC2086
    kill $WPIDS 2>/dev/null || true
    # shellcheck disable=SC2086
    wait $WPIDS 2>/dev/null || true
    check "round $round: restarts" start
    curl -s --unix-socket "$SOCK" http://a/v1/locks > "$TMP/locks"
    curl -s --unix-socket "$SOCK" http://a/v1/intents > "$TMP/intents"
    curl -s --unix-socket "$SOCK" 'http://a/v1/agents/w2/inbox?peek=1' > "$TMP/inbox"
    missing=0
    nacked=0
    while read -r kind what tok; do
        nacked=$((nacked + 1))
        case $kind in
        lock) jq -e --arg p "$what" --argjson t "$tok" \
                '[.locks[] | select(.pattern == $p and .token == $t)] | length == 1' \
                "$TMP/locks" > /dev/null || missing=$((missing + 1))
              [ "$tok" -gt "$maxtok" ] && maxtok=$tok ;;
        intent) jq -e --arg p "$what" '[.intents[] | select(.files[0] == $p)] | length == 1' \
                "$TMP/intents" > /dev/null || missing=$((missing + 1)) ;;
        msg) jq -e --arg b "$what" '[.messages[] | select(.body == $b)] | length == 1' \
                "$TMP/inbox" > /dev/null || missing=$((missing + 1)) ;;
        esac
    done < "$TMP/acked"
    check "round $round: every one of $nacked acknowledged operations survived ($missing missing)" [ "$missing" = 0 ]
    check "round $round: some operations were acknowledged ($nacked)" [ "$nacked" -gt $((before + 3)) ]
    # nothing half-applied: every stored lock is a whole, known record
    check "round $round: stored locks are whole" jqt "$TMP/locks" \
        '(.locks | length) as $n | [.locks[] | select(.holder == "w1" and .token > 0 and (.pattern | test("^(r[0-9]+/f[abc][0-9]+|after[0-9]+)[.]c$")))] | length == $n'
    c=$(post /v1/locks "{\"agent\":\"w1\",\"pattern\":\"after$round.c\"}")
    t=$(jq .token "$TMP/last")
    check "round $round: fencing token keeps increasing ($maxtok < $t)" [ "$maxtok" -lt "$t" ]
    maxtok=$t
    round=$((round + 1))
done
# kill -9 right after an acknowledged lock and message: their ledger
# entries survive, and event ids handed out before the crash are not reused
post /v1/agents '{"id":"w1"}' > /dev/null
post /v1/agents '{"id":"w2"}' > /dev/null
c1=$(post /v1/locks '{"agent":"w1","pattern":"ledger.c"}')
c2=$(post /v1/messages '{"from":"w1","to":"w2","body":"ledger-msg"}')
seen=$(curl -s --unix-socket "$SOCK" http://a/v1/status | jq .lastEventId)
kill -9 $DPID
wait $DPID 2>/dev/null || true
check "lock and message acknowledged ($c1 $c2)" [ "$c1$c2" = 200200 ]
check "restarts after the last kill" start
curl -s --unix-socket "$SOCK" http://a/v1/ledger > "$TMP/ledger"
check "the acknowledged lock's event is in the ledger" jqt "$TMP/ledger" \
    '[.events[] | select(.type == "lock.granted" and .data.pattern == "ledger.c")] | length == 1'
check "the acknowledged message's event is in the ledger" jqt "$TMP/ledger" \
    '[.events[] | select(.type == "message" and .data.body == "ledger-msg")] | length == 1'
post /v1/locks '{"agent":"w1","pattern":"after-ledger.c"}' > /dev/null
curl -s --unix-socket "$SOCK" 'http://a/v1/ledger?type=lock.granted' > "$TMP/ledger"
check "a new event's id is above every id handed out before the crash ($seen)" \
    jqt "$TMP/ledger" "[.events[] | select(.data.pattern == \"after-ledger.c\") | .id] | length == 1 and .[0] > $seen"
check "event ids are unique in the ledger" jqt "$TMP/ledger" \
    '[.events[].id] | length == (unique | length)'
# A client that sends a request and hangs up before the answer (its reply
# waits for the commit) leaves the daemon serving.
python3 - "$SOCK" <<'PY'
import socket, sys
for i in range(20):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    body = b'{"agent":"w1","pattern":"gone%d.c"}' % i
    s.sendall(b"POST /v1/locks HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    s.close()
PY
sleep 0.3
check "the daemon still answers after clients hung up early" \
    sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' --unix-socket '$SOCK' http://a/v1/status)\" = 200 ]"
check "and is still the same process" kill -0 $DPID
# kill -9 during streams of reported edits by two agents sharing the main
# working tree (three clients at once): after a restart each one
# acknowledged is in its agent's `reported` list, and no other
post /v1/agents "{\"id\":\"e1\",\"worktree\":\"$R\"}" > /dev/null
post /v1/agents "{\"id\":\"e2\",\"worktree\":\"$R\"}" > /dev/null
: > "$TMP/acked"
WPIDS=
for w in a b c; do
    (
        k=0
        while :; do
            k=$((k + 1))
            for e in e1 e2; do
                c=$(post /v1/agents/$e/edits "{\"path\":\"rep/$e-$w$k.c\",\"lines\":[[$k,$k]]}" "$TMP/last.$w")
                [ "$c" = 200 ] && echo "$e rep/$e-$w$k.c" >> "$TMP/acked"
            done
        done
    ) &
    WPIDS="$WPIDS $!"
done
acked_at_least 6
sleep 0.5
kill -9 $DPID
wait $DPID 2>/dev/null || true
sleep 0.1
# shellcheck disable=SC2086
kill $WPIDS 2>/dev/null || true
# shellcheck disable=SC2086
wait $WPIDS 2>/dev/null || true
check "reports: restarts" start
missing=0
nacked=0
for e in e1 e2; do
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$e?files=1" > "$TMP/$e.json"
done
while read -r e what; do
    nacked=$((nacked + 1))
    jq -e --arg p "$what" '.reported | index($p) != null' "$TMP/$e.json" > /dev/null ||
        missing=$((missing + 1))
done < "$TMP/acked"
check "reports: every one of $nacked acknowledged survived ($missing missing)" [ "$missing" = 0 ]
check "reports: some were acknowledged ($nacked)" [ "$nacked" -gt 3 ]
check "reports: each agent has only its own" jqt "$TMP/e1.json" \
    '[.reported[] | select(startswith("rep/e1-") | not)] == []'
kill $DPID
wait $DPID 2>/dev/null || true
finish

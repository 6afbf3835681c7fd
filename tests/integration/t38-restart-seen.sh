# t38-restart-seen.sh - an agent that keeps calling the daemon (locks,
# messages, intents, activity, prompts, edits) but never heartbeats stays
# active across a restart: its last contact is stored, and the restarted
# daemon does not count its own downtime as the agent's silence.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
# long enough that a loaded machine's restart (an instrumented daemon
# stopping and starting) stays well inside one interval
STALE=3000
start_daemon --tick-ms 50 --stale-ms $STALE --rescan-ms 60000

stop_daemon() {
    api POST /v1/stop
    wait $DPID 2>/dev/null || true
}
ms() { date +%s%3N; }

api POST /v1/agents '{"id":"alice"}'
api POST /v1/agents '{"id":"bob"}'
api POST /v1/locks '{"agent":"alice","pattern":"a.c","ttlMs":600000}'
check "alice locks a.c" [ "$CODE" = 200 ]
atok=$(jq .token "$TMP/body")
# 3.5 s of work (longer than STALE) without a heartbeat, each kind of call in turn
k=0
end=$(($(ms) + 3500))
while [ "$(ms)" -lt $end ]; do
    k=$((k + 1))
    case $((k % 6)) in
    0) api POST /v1/locks/renew "{\"agent\":\"alice\",\"pattern\":\"a.c\",\"ttlMs\":600000,\"token\":$atok}" ;;
    1) api POST /v1/messages "{\"from\":\"alice\",\"to\":\"bob\",\"body\":\"m$k\"}" ;;
    2) api POST /v1/intents "{\"agent\":\"alice\",\"files\":[\"i$k.c\"]}" ;;
    3) api POST /v1/activity "{\"agent\":\"alice\",\"session\":\"s\",\"events\":[{\"seq\":$k,\"file\":\"a.c\",\"heat\":1,\"action\":\"read\",\"at\":$(ms)}]}" ;;
    4) api POST /v1/agents/alice/prompt '{"prompt":"work on a.c"}' ;;
    5) api POST /v1/agents/alice/edits '{"path":"a.c"}' ;;
    esac
    [ "$CODE" = 200 ] || fail "call $k answered $CODE"
    sleep 0.2
done
api GET /v1/agents/alice
check "alice is active before the restart" jqt "$TMP/body" '.status == "active"'
seen=$(jq .lastSeen "$TMP/body")

stop_daemon
sleep 0.3
start_daemon --tick-ms 50 --stale-ms $STALE --rescan-ms 60000
api GET /v1/agents/alice
check "alice's last contact was stored (within 1 s of $seen)" jqt "$TMP/body" \
    ".lastSeen >= $seen - 1000"
sleep 0.5
api GET /v1/agents/alice
check "alice is still active after the restart" jqt "$TMP/body" '.status == "active"'
api GET '/v1/locks?agent=alice'
check "alice keeps her lock" jqt "$TMP/body" '[.locks[].pattern] == ["a.c"]'

# a restart after a long downtime: the agent gets one stale interval
stop_daemon
sleep 3.5
start_daemon --tick-ms 50 --stale-ms $STALE --rescan-ms 60000
sleep 0.5
api GET /v1/agents/alice
check "after a downtime longer than --stale-ms, alice is given time" \
    jqt "$TMP/body" '.status == "active"'
# ... and a truly silent agent still goes stale, releasing its lock
n=0
while api GET /v1/agents/alice && jqt "$TMP/body" '.status != "stale"' &&
    [ $n -lt 100 ]; do
    sleep 0.1
    n=$((n + 1))
done
check "silent for a stale interval after the start: stale" jqt "$TMP/body" \
    '.status == "stale"'
api GET '/v1/locks?agent=alice'
check "and its lock is released" jqt "$TMP/body" '.locks | length == 0'
stop_daemon
finish

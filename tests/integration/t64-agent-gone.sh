# t64-agent-gone.sh - a registered agent not heard from for
# --agent-timeout-ms (or [daemon] agent-timeout-ms) is gone: its locks and
# claims are released (one event each; fencing tokens go on increasing),
# its intents dropped, its advisories cleared, its inbox and reports
# forgotten, and it leaves the agent list and the store (agent.gone). An
# exited agent goes the same way, counted from its exit; an agent that
# keeps calling stays; silence while the daemon was down counts.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
# stale only after 10 min: the timeout releases what alice holds
start_daemon --tick-ms 50 --stale-ms 600000 --agent-timeout-ms 3000
# until_gone ID...: keep bob alive until every ID is unknown (at most 15 s)
until_gone() {
    n=0
    while :; do
        api POST /v1/agents/bob/heartbeat
        all=true
        for w in "$@"; do
            api GET "/v1/agents/$w"
            [ "$CODE" = 404 ] || all=false
        done
        [ "$all" = false ] || return 0
        n=$((n + 1))
        [ $n -lt 150 ] || return 1
        sleep 0.1
    done
}
types() { # types AGENT: the types of AGENT's events in the ledger
    curl -s --unix-socket "$SOCK" "http://a/v1/ledger?agent=$1" |
        jq -c '[.events[].type | select(. != "conflict")]'
}

api POST /v1/agents '{"id":"alice"}'
api POST /v1/agents '{"id":"bob"}'
api POST /v1/agents '{"id":"dave"}'
api POST /v1/locks '{"agent":"alice","pattern":"src/a.c"}'
TOKEN=$(jq .token "$TMP/body")
api POST /v1/locks '{"agent":"alice","pattern":"docs/**","kind":"claim"}'
api POST /v1/intents '{"agent":"alice","files":["lib/x.c"],"ttlMs":600000}'
api POST /v1/messages '{"from":"bob","to":"alice","body":"hello"}'
api POST /v1/agents/alice/edits '{"path":"src/b.c","lines":[[10,20]]}'
api POST /v1/agents/bob/edits '{"path":"src/b.c","lines":[[12,18]]}'
api GET /v1/advisories
check "alice and bob have an advisory" jqt "$TMP/body" '.advisories | length == 1'
api POST /v1/agents/dave/exit

check "alice (silent) and dave (exited) are gone" until_gone alice dave
api GET /v1/agents
check "bob, who kept calling, stays" jqt "$TMP/body" '[.agents[] | select(.registered) | .id] == ["bob"]'
api GET /v1/locks
check "alice's lock and claim are released" jqt "$TMP/body" '.locks | length == 0'
check "each with an event, then agent.gone" [ "$(types alice)" = \
    '["agent.registered","lock.granted","claim.granted","intent.declared","workset.edit","lock.released_all","claim.released_all","intent.dropped","agent.gone"]' ]
api GET '/v1/ledger?type=agent.gone'
check "agent.gone says why" jqt "$TMP/body" \
    '[.events[] | {agent, reason: .data.reason}] == [{"agent":"alice","reason":"silent"},{"agent":"dave","reason":"silent"}]'
check "dave exited first" [ "$(types dave)" = '["agent.registered","agent.exited","agent.gone"]' ]
api GET /v1/intents
check "alice's intent is dropped" jqt "$TMP/body" '.intents | length == 0'
api GET /v1/advisories
check "the advisory is gone" jqt "$TMP/body" '.advisories | length == 0'
api GET '/v1/ledger?type=advisory'
check "announced clear: agent gone" jqt "$TMP/body" \
    '.events[-1].data.level == "clear" and .events[-1].data.reason == "agent gone"'
api GET /v1/agents/alice/inbox
check "alice's inbox is gone with her (404)" [ "$CODE" = 404 ]

# fencing: the next grant of the same pattern has a larger token (bob
# calls first: the checks above may take longer than the timeout when the
# machine is loaded)
api POST /v1/agents/bob/heartbeat
api POST /v1/locks '{"agent":"bob","pattern":"src/a.c"}'
check "bob gets alice's file (200, got $CODE)" [ "$CODE" = 200 ]
check "with a larger fencing token" [ "$(jq .token "$TMP/body")" -gt "$TOKEN" ]

# she comes back: a registration starts her afresh
api POST /v1/agents '{"id":"alice"}'
check "alice registers again, as a new agent" jqt "$TMP/body" '.created == true'
api GET /v1/agents/alice/inbox
check "with an empty inbox" jqt "$TMP/body" '.messages | length == 0'

# the store forgot them: a restart does not bring them back; silence
# while the daemon was down counts
api POST /v1/agents '{"id":"erin"}'
api POST /v1/stop
wait "$DPID" 2> /dev/null || true
sleep 3.1
start_daemon --tick-ms 50 --stale-ms 600000 --agent-timeout-ms 3000
api GET /v1/agents/dave
check "dave stays forgotten after a restart" [ "$CODE" = 404 ]
check "erin, silent while the daemon was down, goes at once" until_gone erin
api POST /v1/stop
wait "$DPID" 2> /dev/null || true

# 0: never; the configuration file
start_daemon --tick-ms 50 --agent-timeout-ms 0
api POST /v1/agents '{"id":"frank"}'
sleep 0.5
api GET /v1/agents/frank
check "agent-timeout-ms 0: frank stays" [ "$CODE" = 200 ]
api POST /v1/stop
wait "$DPID" 2> /dev/null || true
printf '[daemon]\n\tagent-timeout-ms = 300\n' > .git/airspace/config
start_daemon --tick-ms 50
check "[daemon] agent-timeout-ms: frank goes" until_gone frank
api POST /v1/stop
wait "$DPID" 2> /dev/null || true
finish

# t73-stale-detector.sh - an agent that went stale (the detector forgot
# it) and came back is told to the conflict detector again, whole: its
# lanes, its live intents and its changed files, whether it comes back by
# a heartbeat, a lock or any other call in its own name (an edit, a
# message, an intent); its conflicts are reported again.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
start_daemon --tick-ms 50 --stale-ms 1500 --rescan-ms 600000
inbox() { # inbox WHO FILTER -> jq result over its unread messages (peek)
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1/inbox?peek=1" |
        jq -r "$2"
}
# wait_stale ID...: keep bob alive until every ID is stale (at most 15 s)
wait_stale() {
    n=0
    while :; do
        api POST /v1/agents/bob/heartbeat
        all=true
        for w in "$@"; do
            api GET "/v1/agents/$w"
            jqt "$TMP/body" '.status == "stale"' || all=false
        done
        [ "$all" = false ] || return 0
        n=$((n + 1))
        [ $n -lt 150 ] || return 1
        sleep 0.1
    done
}

api POST /v1/agents '{"id":"alice","lanes":["src/auth/**"]}'
api POST /v1/agents '{"id":"bob"}'
api POST /v1/agents '{"id":"carol"}'
api POST /v1/intents '{"agent":"alice","files":["src/x.c"],"ttlMs":600000}'
api POST /v1/agents/alice/edits '{"path":"src/api.c","lines":[[10,12]]}'
api POST /v1/agents/carol/edits '{"path":"src/db.c","lines":[[1,2]]}'
api GET /v1/conflicts
check "no conflict yet" jqt "$TMP/body" '.conflicts | length == 0'

check "alice and carol go stale, bob stays" wait_stale alice carol
api GET /v1/agents/bob
check "bob is active" jqt "$TMP/body" '.status == "active"'

# alice comes back by a heartbeat
api POST /v1/agents/alice/heartbeat
check "alice is active again" jqt "$TMP/body" '.status == "active"'
api POST /v1/intents '{"agent":"bob","files":["src/x.c"]}'
check "bob's intent meets alice's: a forward conflict" jqt "$TMP/body" \
    '.conflicts | map(select(.shape == "forward" and .with == "alice" and .file == "src/x.c")) | length == 1'
api POST /v1/agents/bob/edits '{"path":"src/api.c","lines":[[40,41]]}'
api POST /v1/agents/bob/edits '{"path":"src/auth/token.c","lines":[[1,1]]}'
api GET /v1/conflicts
check "the in-flight conflict on alice's file is detected" jqt "$TMP/body" \
    '.conflicts | map(select(.shape == "in-flight" and .agents == ["alice","bob"] and .file == "src/api.c")) | length == 1'
check "alice's lane is known again: bob violates it" jqt "$TMP/body" \
    '.conflicts | map(select(.shape == "ownership" and .agents == ["bob","alice"] and .file == "src/auth/token.c")) | length == 1'
check "alice is told of the in-flight conflict" \
    [ "$(inbox alice '[.messages[] | select(.body | startswith("[conflict] in-flight"))] | length')" = 1 ]

# carol comes back by taking a lock (contact)
api POST /v1/locks '{"agent":"carol","pattern":"docs/notes.md"}'
check "carol locks (200, got $CODE)" [ "$CODE" = 200 ]
api GET /v1/agents/carol
check "carol is active again" jqt "$TMP/body" '.status == "active"'
api POST /v1/agents/bob/edits '{"path":"src/db.c","lines":[[1,1]]}'
api GET /v1/conflicts
check "the in-flight conflict on carol's file is detected" jqt "$TMP/body" \
    '.conflicts | map(select(.shape == "in-flight" and .agents == ["bob","carol"] and .file == "src/db.c")) | length == 1'
check "carol is told" \
    [ "$(inbox carol '[.messages[] | select(.body | startswith("[conflict] in-flight"))] | length')" = 1 ]

# any call in its own name is contact: dave comes back by reporting an
# edit, erin by sending a message, frank by declaring an intent
api POST /v1/agents '{"id":"dave"}'
api POST /v1/agents '{"id":"erin"}'
api POST /v1/agents '{"id":"frank"}'
api POST /v1/intents '{"agent":"frank","files":["lib/y.c"],"ttlMs":600000}'
check "dave, erin and frank go stale" wait_stale dave erin frank
api POST /v1/agents/dave/edits '{"path":"src/api.c","lines":[[41,41]]}'
check "dave's edit is taken (200, got $CODE)" [ "$CODE" = 200 ]
api GET /v1/agents/dave
check "dave is active again" jqt "$TMP/body" '.status == "active"'
api GET /v1/conflicts
check "dave's edit meets bob's: an in-flight conflict" jqt "$TMP/body" \
    '.conflicts | map(select(.shape == "in-flight" and (.agents | sort) == ["bob","dave"] and .file == "src/api.c")) | length == 1'
api POST /v1/messages '{"from":"erin","to":"bob","type":"info","body":"back"}'
check "erin's message is delivered (200, got $CODE)" [ "$CODE" = 200 ]
api GET /v1/agents/erin
check "erin is active again" jqt "$TMP/body" '.status == "active"'
api POST /v1/intents '{"agent":"frank","files":["lib/z.c"],"ttlMs":600000}'
check "frank's new intent is taken (200, got $CODE)" [ "$CODE" = 200 ]
api GET /v1/agents/frank
check "frank is active again" jqt "$TMP/body" '.status == "active"'
api POST /v1/intents '{"agent":"bob","files":["lib/y.c"]}'
check "frank's older intent is known again: bob meets it" jqt "$TMP/body" \
    '.conflicts | map(select(.shape == "forward" and .with == "frank" and .file == "lib/y.c")) | length == 1'
api POST /v1/intents '{"agent":"bob","files":["lib/z.c"]}'
check "and his new one, once" jqt "$TMP/body" \
    '.conflicts | map(select(.shape == "forward" and .with == "frank" and .file == "lib/z.c")) | length == 1'

api POST /v1/stop
wait "$DPID" 2>/dev/null || true
finish

# t39-takeover.sh - registering under a new id in a discovered worktree
# takes that agent over: its locks (persisted), intents, detector state
# and pairs follow the new id; nothing is left under the old one.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
printf 'a\n' > "$R/src/a.c"
printf 'c\n' > "$R/src/c.c"
printf 'x\n' > "$R/src/x.c"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"

start_daemon --tick-ms 50 --rescan-ms 600000
api GET /v1/agents
check "the main worktree is agent 'main'" jqt "$TMP/body" '.agents | map(.id) == ["main"]'
api POST /v1/agents '{"id":"bob"}'
api POST /v1/locks '{"agent":"main","pattern":"src/a.c"}'
check "main locks src/a.c" [ "$CODE" = 200 ]
api POST /v1/locks '{"agent":"main","pattern":"src/c.c","kind":"claim"}'
api POST /v1/intents '{"agent":"main","files":["src/x.c"]}'
api POST /v1/intents '{"agent":"bob","files":["src/x.c"]}'
api GET /v1/conflicts
check "a forward conflict main/bob" jqt "$TMP/body" \
    '.conflicts | map(select(.agents == ["bob","main"])) | length == 1'

api POST /v1/agents "{\"id\":\"alice\",\"worktree\":\"$R\"}"
check "alice takes the worktree over (200, got $CODE)" [ "$CODE" = 200 ]
check "not a new agent" jqt "$TMP/body" '.created == false and .id == "alice"'
api GET /v1/agents
check "no agent 'main' any more" jqt "$TMP/body" '.agents | map(.id) | sort == ["alice","bob"]'
api GET /v1/locks
check "no lock left under 'main'" jqt "$TMP/body" '.locks | map(select(.holder == "main")) | length == 0'
check "alice holds both" jqt "$TMP/body" '.locks | map(select(.holder == "alice")) | length == 2'
api POST /v1/locks/release "{\"agent\":\"alice\",\"pattern\":\"src/a.c\",\"token\":$(lock_token alice src/a.c)}"
check "alice releases main's old lock (200, got $CODE)" [ "$CODE" = 200 ]
api GET /v1/conflicts
check "no conflict names 'main'" jqt "$TMP/body" \
    '.conflicts | map(select(.agents | index("main"))) | length == 0'
check "the intent conflict is alice/bob now" jqt "$TMP/body" \
    '.conflicts | map(select(.agents == ["alice","bob"])) | length == 1'
api GET /v1/intents
check "main's intent is alice's" jqt "$TMP/body" \
    '.intents | map(.agent) | sort == ["alice","bob"]'
api GET '/v1/advisories?all=1'
check "no pair names 'main'" jqt "$TMP/body" \
    '.advisories | map(select(.a == "main" or .b == "main")) | length == 0'
api GET '/v1/ledger?type=claim.reassigned'
check "the move is in the ledger" jqt "$TMP/body" \
    '.events | map(select(.data.holder == "alice" and .data.pattern == "src/c.c")) | length == 1'
api GET '/v1/ledger?type=agent.registered'
check "agent.registered says renamedFrom" jqt "$TMP/body" \
    '.events | map(select(.data.renamedFrom == "main")) | length == 1'

api POST /v1/stop
wait "$DPID" 2>/dev/null || true
start_daemon --tick-ms 50 --rescan-ms 600000
api GET /v1/locks
check "after a restart the claim is still alice's" jqt "$TMP/body" \
    '.locks | map(select(.pattern == "src/c.c")) | map(.holder) == ["alice"]'
api GET /v1/agents
check "and no agent 'main' came back" jqt "$TMP/body" '.agents | map(.id) | sort == ["alice","bob"]'
api POST /v1/stop
wait "$DPID" 2>/dev/null || true

finish

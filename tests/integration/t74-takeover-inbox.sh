# t74-takeover-inbox.sh - a worktree taken over under a new id brings its
# inbox (read state kept, stored) and its prompt topics along: the session
# that takes it over is given the messages sent to the old id in its crew
# update, its topic channel goes on where the old id left it, and nothing
# is left under the old id, even after a restart.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
git worktree add -q -b feat "$TMP/feat" main

start_daemon --tick-ms 50 --rescan-ms 600000
hook() { # hook CLIENT JSON -> the hook's stdout
    printf '%s' "$2" | "$AIRSPACE_BIN" hook "$1"
}
unread() { # unread WHO FILTER -> jq result over its unread messages (peek)
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1/inbox?peek=1" |
        jq -r "$2"
}
api GET /v1/agents
check "the worktrees are agents 'main' and 'feat'" jqt "$TMP/body" \
    '.agents | map(.id) | sort == ["feat","main"]'
api POST /v1/agents '{"id":"bob"}'

# --- a session takes 'feat' over (hooks) ---
api POST /v1/messages '{"from":"bob","to":"feat","body":"first note, already read"}'
check "bob's first message reaches feat" jqt "$TMP/body" '.delivered == 1'
api GET /v1/agents/feat/inbox
check "feat reads it" jqt "$TMP/body" '.messages | length == 1'
api POST /v1/messages '{"from":"bob","to":"feat","body":"please leave src/net alone"}'
check "bob's second message waits unread" \
    [ "$(unread feat '.messages | map(.body) | join("|")')" = "please leave src/net alone" ]
for n in 1 2 3; do
    api POST /v1/agents/feat/prompt '{"prompt":"websocket reconnect backoff jitter"}'
    api POST /v1/agents/bob/prompt '{"prompt":"websocket reconnect backoff jitter"}'
done
check "feat and bob converge before the takeover" jqt "$TMP/body" \
    '.converging | map(.agent) == ["feat"]'

out=$(hook claude-code "{\"session_id\":\"aaaa1111-x\",\"cwd\":\"$TMP/feat\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}")
printf '%s' "$out" | jq -r '.hookSpecificOutput.additionalContext // ""' > "$TMP/ctx"
api GET /v1/agents
check "the session took feat over" jqt "$TMP/body" \
    '.agents | map(.id) | sort == ["bob","cc-55de606f","main"]'
check "its crew update carries the message sent to feat" \
    grep -q 'message from bob: please leave src/net alone' "$TMP/ctx"
check "but not the one feat had read" sh -c "! grep -q 'first note' '$TMP/ctx'"
api GET /v1/agents/cc-55de606f/inbox
check "the crew update read it" jqt "$TMP/body" '.messages | length == 0'
api GET /v1/agents/feat/inbox
check "no inbox under 'feat' (404, got $CODE)" [ "$CODE" = 404 ]

api POST /v1/agents/bob/prompt '{"prompt":"websocket reconnect backoff jitter"}'
check "bob still converges, with the new id" jqt "$TMP/body" \
    '.converging | map(.agent) == ["cc-55de606f"]'
api GET '/v1/advisories?all=1'
check "the pair's topic channel is 1" jqt "$TMP/body" \
    '.advisories | map(select(.a == "bob" and .b == "cc-55de606f")) | .[0].channels.topic == 1'
out=$(hook claude-code "{\"session_id\":\"aaaa1111-x\",\"cwd\":\"$TMP/feat\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"websocket reconnect backoff jitter\"}")
check "the session is told it converges with bob" sh -c \
    "printf '%s' \"\$1\" | grep -q \"converging with 'bob'\"" x "$out"

# --- 'main' taken over through the API; the inbox is stored moved ---
api POST /v1/messages '{"from":"bob","to":"main","body":"rebase before you merge"}'
api POST /v1/agents "{\"id\":\"alice\",\"worktree\":\"$R\"}"
check "alice takes main over (200, got $CODE)" [ "$CODE" = 200 ]
check "alice's unread messages are main's" \
    [ "$(unread alice '.messages | map(.from + ": " + .body) | join("|")')" = "bob: rebase before you merge" ]
api POST /v1/stop
wait "$DPID" 2>/dev/null || true
start_daemon --tick-ms 50 --rescan-ms 600000
api GET /v1/agents
check "after a restart no 'main' or 'feat' came back" jqt "$TMP/body" \
    '.agents | map(.id) | sort == ["alice","bob","cc-55de606f"]'
check "alice's inbox survived the restart" \
    [ "$(unread alice '.messages | map(.body) | join("|")')" = "rebase before you merge" ]
api GET /v1/agents/cc-55de606f/inbox
check "the read messages stayed read" jqt "$TMP/body" '.messages | length == 0'
api POST /v1/stop
wait "$DPID" 2>/dev/null || true

finish

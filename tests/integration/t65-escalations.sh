# t65-escalations.sh - what is escalated to a human is shown where humans
# and agents look: GET /v1/escalations, a count in GET /v1/status, the
# list in `airspace status` (and its --json), and the escalations
# involving an agent in GET /v1/agents/{id} and GET /v1/advisories
# (?agent=), where the hooks' crew update reads them. A conflict waits
# while it holds; a message to the supervisor until it is read.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
start_daemon --tick-ms 50 --window-ms 1000
trap 'as stop > /dev/null 2>&1 || true; kill $DPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
esc() { # esc [QUERY]: the escalations
    curl -s --unix-socket "$SOCK" "http://a/v1/escalations${1:-}"
}
# wait_esc N: until N escalations wait (at most 10 s)
wait_esc() {
    n=0
    until [ "$(esc | jq '.escalations | length')" = "$1" ]; do
        n=$((n + 1))
        [ $n -lt 200 ] || return 1
        sleep 0.05
    done
}

api POST /v1/agents '{"id":"alice","lanes":["src/auth/**"]}'
api POST /v1/agents '{"id":"bob"}'
api POST /v1/agents '{"id":"carol","label":"db"}'
api POST /v1/agents/alice/edits '{"path":"src/x.c","lines":[[10,12]]}'
api POST /v1/agents/bob/edits '{"path":"src/x.c","lines":[[40,41]]}'
check "nothing waits before the window" jqt /dev/stdin \
    '.escalations == []' <<EOF
$(esc)
EOF
check "the in-flight conflict is escalated after the window" wait_esc 1
# the hooks' crew update of an agent involved says what waits for a human
upd=$(printf '{"session_id":"s-alice","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":"go on"}' "$R" |
    AIRSPACE_AGENT=alice "$AIRSPACE_BIN" hook claude-code)
check "alice's crew update says what waits for a human ($upd)" sh -c "printf '%s' \"\$1\" | jq -e '.hookSpecificOutput.additionalContext | test(\"waiting for a human: in-flight conflict between .alice. and .bob. on src/x.c\")' > /dev/null" x "$upd"
upd=$(printf '{"session_id":"s-carol","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":"go on"}' "$R" |
    AIRSPACE_AGENT=carol "$AIRSPACE_BIN" hook claude-code)
check "carol's, not involved, does not ($upd)" sh -c "! printf '%s' \"\$1\" | grep -q 'waiting for a human'" x "$upd"
esc > "$TMP/e"
check "an escalation: kind, shape, agents, file, since, text" jqt "$TMP/e" \
    '.escalations[0] | .kind == "conflict" and .shape == "in-flight" and
     .agents == ["alice","bob"] and .file == "src/x.c" and (.since | type) == "number" and
     .text == "in-flight conflict between '"'alice'"' and '"'bob'"' on src/x.c"'

# an agent asks the human; ownership escalates at once
api POST /v1/messages '{"from":"carol","to":"supervisor","type":"question","body":"drop the cache?"}'
api POST /v1/agents/bob/edits '{"path":"src/auth/t.c","lines":[[1,1]]}'
check "three wait" wait_esc 3
esc > "$TMP/e"
check "the question, with its message" jqt "$TMP/e" \
    '[.escalations[] | select(.kind == "message")] | length == 1 and .[0].agents == ["carol"] and
     .[0].text == "question from '"'carol'"': drop the cache?" and .[0].message.body == "drop the cache?"'
check "the ownership conflict" jqt "$TMP/e" \
    '[.escalations[] | select(.shape == "ownership")] | length == 1 and .[0].agents == ["bob","alice"] and
     .[0].file == "src/auth/t.c"'

# per agent: the agent's own object, the advisories' reply, the route
api GET /v1/agents/alice
check "alice's object lists her two" jqt "$TMP/body" \
    '[.escalations[].file] | sort == ["src/auth/t.c","src/x.c"]'
api GET /v1/agents/carol
check "carol's lists her question" jqt "$TMP/body" \
    '[.escalations[].kind] == ["message"]'
api GET '/v1/advisories?agent=bob'
check "the advisories' reply carries bob's" jqt "$TMP/body" \
    '(.escalations | length) == 2'
check "?agent= filters the route" jqt /dev/stdin '.escalations == []' <<EOF
$(esc '?agent=nobody')
EOF

# the human's view
api GET /v1/status
check "status counts them" jqt "$TMP/body" '.escalations == 3'
as status > "$TMP/st"
check "airspace status says they wait" grep -q "^3 escalations wait for a human" "$TMP/st"
check "and lists each" grep -q "^  in-flight conflict between 'alice' and 'bob' on src/x.c$" "$TMP/st"
as status --json > "$TMP/sj"
check "status --json carries them" jqt "$TMP/sj" '(.escalations | length) == 3 and .daemon.escalations == 3'

# read: the question no longer waits; the conflicts do while they hold
as inbox --agent supervisor > /dev/null
check "read, the question leaves; the conflicts stay" wait_esc 2
api POST /v1/agents/bob/exit
check "bob leaves: his conflicts end, nothing waits" wait_esc 0
as status > "$TMP/st"
check "status says nothing of escalations" sh -c "! grep -q escalation '$TMP/st'"

finish

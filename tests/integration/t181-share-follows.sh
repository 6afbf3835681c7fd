# t181-share-follows.sh - a worktree is shared while two registered agents
# fly there, no longer: a visiting session in alice's worktree shares it
# (the person's human@ appears, each keeps what it reports); when the
# visitor leaves, alice is alone there again: the human leaves, her working
# set is the worktree's whole change (the visitor's edits too), and so it
# stays after a restart of the daemon; her session's end parks her with
# that work, and her next session commits it all without naming a path.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
for f in a v x; do seq 1 10 | sed "s/^/$f /" > "$R/$f.txt"; done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
as agent new alice > /dev/null 2>&1
WA="$(cd "$TMP/repo.airspace/alice" && pwd -P)"

hook() { # hook SESSION EVENT [EXTRA-JSON]: the command a client runs
    printf "printf '%%s' '{\"session_id\":\"%s\",\"cwd\":\"%s\",\"hook_event_name\":\"%s\"%s}' | '%s' hook claude-code" \
        "$1" "$WA" "$2" "${3:-}" "$AIRSPACE_BIN"
}
edit() { # edit SESSION FILE: the session changes line 2 of FILE, reported
    _in=",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$WA/$2\",\"old_string\":\"${2%.txt} 2\",\"new_string\":\"${2%.txt} two\"}"
    printf '%s; %s; %s > /dev/null' "$(hook "$1" PreToolUse "$_in")" \
        "sed -i 's/^${2%.txt} 2\$/${2%.txt} two/' '$WA/$2'" "$(hook "$1" PostToolUse "$_in")"
}
agent() { # agent ID: its JSON with files ({} when unknown)
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1?files=1"
}
humans() { # the worktree's human agents, one id a line
    curl -s --unix-socket "$SOCK" http://a/v1/agents |
        jq -r --arg w "$WA" '.agents[] | select(.kind == "human" and .worktree == $w) | .id'
}
files_are() { # files_are ID "PATHS": its working set's paths, sorted
    [ "$(agent "$1" | jq -r '[.files[]?.path] | sort | join(" ")')" = "$2" ]
}
wait_for() { # wait_for COMMAND...: up to 10 s
    n=0
    while ! "$@" && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
    "$@"
}

# alice's session, and a visitor beside it; each edits a file
client_start A
client_run A "$(hook s-alice SessionStart) > /dev/null; $(edit s-alice a.txt)"
client_start V
client_run V "$(hook s-visit SessionStart) > '$TMP/v.json'; $(edit s-visit v.txt)"
VID=$(jq -r '.hookSpecificOutput.additionalContext' "$TMP/v.json" | sed -n 's/^airspace crew update for \(.*\):$/\1/p')
check "the visitor is an agent of its own ($VID)" sh -c "[ -n '$VID' ] && [ '$VID' != alice ]"
HUMAN=$(humans)
check "the worktree is shared: a human appears ($HUMAN)" [ -n "$HUMAN" ]
wait_for files_are alice a.txt || true
check "... each keeps what it reported (alice: $(agent alice | jq -c '[.files[]?.path]'))" files_are alice a.txt
check "... (the visitor: $(agent "$VID" | jq -c '[.files[]?.path]'))" files_are "$VID" v.txt
check "... and is shared" sh -c "[ \"\$(curl -s --unix-socket '$SOCK' http://a/v1/agents/alice | jq .shared)\" = true ]"

# the visitor leaves: the worktree is alice's again
client_run V "$(hook s-visit SessionEnd ',"reason":"exit"')"
client_stop V
check "the human leaves ($(humans))" wait_for sh -c "[ -z \"\$(curl -s --unix-socket '$SOCK' http://a/v1/agents | jq -r --arg w '$WA' '.agents[] | select(.kind == \"human\" and .worktree == \$w) | .id')\" ]"
check "alice is no longer shared" sh -c "[ \"\$(curl -s --unix-socket '$SOCK' http://a/v1/agents/alice | jq .shared)\" = false ]"
check "her working set is the worktree's change, the visitor's edit too ($(agent alice | jq -c '[.files[]?.path]'))" \
    wait_for files_are alice "a.txt v.txt"
# the person types in x.txt: alice's too now (nobody else is there)
sed -i 's/^x 5$/x five/' "$WA/x.txt"
check "a change nobody reported is hers ($(agent alice | jq -c '[.files[]?.path]'))" \
    wait_for files_are alice "a.txt v.txt x.txt"

# a restart finds it so
kill "$DPID"
wait "$DPID" 2> /dev/null || true
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
check "after a restart: no human ($(humans))" [ -z "$(humans)" ]
check "... alice not shared" sh -c "[ \"\$(curl -s --unix-socket '$SOCK' http://a/v1/agents/alice | jq .shared)\" = false ]"
check "... her working set whole ($(agent alice | jq -c '[.files[]?.path]'))" \
    wait_for files_are alice "a.txt v.txt x.txt"

# her session ends: parked with the work; her next session commits it
client_run A "$(hook s-alice SessionEnd ',"reason":"exit"')"
client_stop A
check "alice's end parks her ($(agent alice | jq -c '{status, parked}'))" wait_for sh -c \
    "curl -s --unix-socket '$SOCK' http://a/v1/agents/alice | jq -e '.status == \"exited\" and .parked == true' > /dev/null"
client_start N
client_run N "$(hook s-alice-2 SessionStart) > '$TMP/n.json'; cd '$WA' && '$AIRSPACE_BIN' commit -m 'all of it' --json > '$TMP/commit.json' 2> '$TMP/commit.err'; echo \$? > '$TMP/commit.rc'"
check "her next session is alice" sh -c "jq -r '.hookSpecificOutput.additionalContext' '$TMP/n.json' | grep -q 'crew update for alice:'"
check "... and commits everything there ($(cat "$TMP/commit.rc"): $(cat "$TMP/commit.err"))" \
    jqt "$TMP/commit.json" '[.files[].path] | sort == ["a.txt", "v.txt", "x.txt"]'
client_run N "$(hook s-alice-2 SessionEnd ',"reason":"exit"')"
client_stop N

# the main checkout: the first session there (the worktree's own agent,
# watching it) leaves first; the one left follows the worktree's changes
WA=$(pwd -P)
client_start M1
client_run M1 "$(hook m-1 SessionStart) > /dev/null"
client_start M2
client_run M2 "$(hook m-2 SessionStart) > /dev/null; $(edit m-2 v.txt)"
M2=$(hook_agent cc m-2)
check "the main checkout is shared: a human ($(humans))" [ -n "$(humans)" ]
client_run M1 "$(hook m-1 SessionEnd ',"reason":"exit"')"
client_stop M1
check "the first leaves: the human too ($(humans))" wait_for sh -c "[ -z \"\$(curl -s --unix-socket '$SOCK' http://a/v1/agents | jq -r --arg w '$WA' '.agents[] | select(.kind == \"human\" and .worktree == \$w) | .id')\" ]"
sed -i 's/^a 7$/a seven/' "$WA/a.txt"
check "a change there is the one left's at once ($(agent "$M2" | jq -c '[.files[]?.path]'))" \
    wait_for files_are "$M2" "a.txt v.txt"
client_run M2 "$(hook m-2 SessionEnd ',"reason":"exit"')"
client_stop M2
finish

# t43-hooks-session.sh - one agent per session, and warning on approach:
# a session in a worktree made by `airspace agent new` is that agent; the
# CLI commands and the MCP server a session's client runs act as the
# session's agent; two sessions racing for one name get one each; and an
# agent about to edit lines near another agent's change is warned before
# the edit (naming the agent, the file and the lines), while the other
# agent is told in its next crew update. No answer ever grants permission.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
i=1
while [ $i -le 40 ]; do
    echo "int v$i = $i;" >> "$R/src/table.c"
    i=$((i + 1))
done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
as agent new alice > /dev/null 2>&1
as agent new bob > /dev/null 2>&1
WA="$TMP/repo.airspace/alice"
WB="$TMP/repo.airspace/bob"

# A client: a process that is not a shell, running its hooks and its
# shell tool's commands as children (as the real clients do).
client() { # client SCRIPT: run the shell script SCRIPT under one python3 process
    python3 -c 'import subprocess, sys
sys.exit(subprocess.call(["sh", "-c", sys.argv[1]]))' "$1"
}
hook_in() { # hook_in SESSION CWD EVENT [EXTRA-JSON-FIELDS]
    printf '{"session_id":"%s","cwd":"%s","hook_event_name":"%s"%s}' "$1" "$2" "$3" "${4:-}" |
        "$AIRSPACE_BIN" hook claude-code
}

# alice's session: the worktree's agent, and its CLI commands act as it
client "printf '%s' '{\"session_id\":\"s-alice\",\"cwd\":\"$WA\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}' | '$AIRSPACE_BIN' hook claude-code > '$TMP/a-start.json'
cd '$WA' && '$AIRSPACE_BIN' lock src/other.c --reason mine > '$TMP/a-lock.out' 2>&1
'$AIRSPACE_BIN' locks --json > '$TMP/a-locks.json'"
check "alice's session is agent alice" sh -c "jq -e '.hookSpecificOutput.additionalContext | test(\"crew update for alice:\")' '$TMP/a-start.json' > /dev/null"
check "a lock taken by the session's shell is alice's ($(cat "$TMP/a-lock.out"))" \
    jqt "$TMP/a-locks.json" '[.locks[] | select(.pattern == "src/other.c" and .holder == "alice")] | length == 1'
api GET /v1/agents
check "one agent per worktree, none human" jqt "$TMP/body" \
    '([.agents[] | select(.status != "exited")] | length == 3) and ([.agents[] | select(.kind == "human")] | length == 0)'

# two sessions in the main worktree: each one's shell commands act as it
hook_in s-main-1 "$R" SessionStart > /dev/null
client "printf '%s' '{\"session_id\":\"s-main-2\",\"cwd\":\"$R\",\"hook_event_name\":\"SessionStart\"}' | '$AIRSPACE_BIN' hook claude-code > /dev/null
cd '$R/src' && '$AIRSPACE_BIN' lock table.c --reason two > '$TMP/m-lock.out' 2>&1
'$AIRSPACE_BIN' msg alice 'from the second session' > /dev/null 2>&1"
M2=$(hook_agent cc s-main-2)
check "the second session's shell locks as it ($(cat "$TMP/m-lock.out"))" sh -c \
    "'$AIRSPACE_BIN' locks --json | jq -e '.locks[] | select(.pattern == \"src/table.c\") | .holder == \"$M2\"' > /dev/null"
check "... and sends as it" sh -c \
    "curl -s --unix-socket '$SOCK' 'http://a/v1/agents/alice/inbox?peek=1' | jq -e '.messages | map(.from) | index(\"$M2\") != null' > /dev/null"
as unlock --agent "$M2" src/table.c > /dev/null 2>&1

# a second live session in alice's worktree does not take her name
client "printf '%s' '{\"session_id\":\"s-alice-2\",\"cwd\":\"$WA\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}' | '$AIRSPACE_BIN' hook claude-code > '$TMP/a2.json'" &
CL=$!
# (the first client is gone: its name is free again; hold one open)
wait $CL
check "a session after alice's ended may take the name" sh -c "jq -e '.hookSpecificOutput.additionalContext | test(\"crew update for alice:\")' '$TMP/a2.json' > /dev/null"

# bob's session starts while a client keeps alice's name: each has its own
mkfifo "$TMP/hold"
python3 -c 'import subprocess, sys
subprocess.call(["sh", "-c", sys.argv[1]])
open(sys.argv[2]).read()' "printf '%s' '{\"session_id\":\"s-alice-3\",\"cwd\":\"$WA\",\"hook_event_name\":\"SessionStart\"}' | '$AIRSPACE_BIN' hook claude-code > '$TMP/a3.json'" "$TMP/hold" &
HOLDER=$!
n=0
until [ -s "$TMP/a3.json" ] || [ $n -gt 100 ]; do sleep 0.05; n=$((n + 1)); done
client "printf '%s' '{\"session_id\":\"s-alice-4\",\"cwd\":\"$WA\",\"hook_event_name\":\"SessionStart\"}' | '$AIRSPACE_BIN' hook claude-code > '$TMP/a4.json'"
echo > "$TMP/hold"
wait $HOLDER
check "the live session is alice" sh -c "jq -e '.hookSpecificOutput.additionalContext | test(\"crew update for alice:\")' '$TMP/a3.json' > /dev/null"
check "a second session at once is its own agent" sh -c "jq -e '.hookSpecificOutput.additionalContext | test(\"crew update for $(hook_agent cc s-alice-4):\")' '$TMP/a4.json' > /dev/null"

# alice changes lines 10-12 and reports it (her PreToolUse keeps the file
# as it was, her PostToolUse reports the exact span)
hook_in s-alice "$WA" PreToolUse ",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$WA/src/table.c\",\"old_string\":\"int v10 = 10;\",\"new_string\":\"int v10 = 100;\"}" > /dev/null
sed -i 's/^int v10 = 10;/int v10 = 100;/; s/^int v11 = 11;/int v11 = 110;/; s/^int v12 = 12;/int v12 = 120;/' "$WA/src/table.c"
hook_in s-alice "$WA" PostToolUse ",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$WA/src/table.c\",\"old_string\":\"int v10 = 10;\",\"new_string\":\"int v10 = 100;\"}" > /dev/null
n=0
until as agents --json | jq -e '.agents[] | select(.id == "alice") | .fileCount == 1' > /dev/null 2>&1 || [ $n -gt 100 ]; do sleep 0.05; n=$((n + 1)); done
hook_in s-bob "$WB" SessionStart > /dev/null

# bob is about to edit line 11: warned before the edit. The clients show a
# PreToolUse's context only after the tool ran, so the first approach is
# held once with the warning as the reason; repeated, it goes through with
# the warning as context, granting nothing
ctx_has() { # ctx_has JSON REGEX: the answer's context matches
    printf '%s' "$1" | jq -e --arg re "$2" '.hookSpecificOutput.additionalContext | test($re)' > /dev/null
}
WARN="traffic: .alice. .claude-code. has changed lines 10-12 of src/table.c .you are about to change lines 11-11."
EDIT11=",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$WB/src/table.c\",\"old_string\":\"int v11 = 11;\",\"new_string\":\"int v11 = 7;\"}"
pre=$(hook_in s-bob "$WB" PreToolUse "$EDIT11")
check "bob's first approach is held with the warning ($pre)" sh -c "printf '%s' \"\$1\" | jq -e --arg re \"\$2\" '.hookSpecificOutput.permissionDecision == \"deny\" and (.hookSpecificOutput.permissionDecisionReason | test(\$re)) and (.hookSpecificOutput.permissionDecisionReason | test(\"repeat it\"))' > /dev/null" x "$pre" "$WARN"
pre=$(hook_in s-bob "$WB" PreToolUse "$EDIT11")
check "repeated, it is warned, not held ($pre)" ctx_has "$pre" "$WARN"
check "the warning grants nothing" sh -c "printf '%s' \"\$1\" | jq -e '.hookSpecificOutput | has(\"permissionDecision\") | not' > /dev/null" x "$pre"
# far from alice's lines: no warning
far=$(hook_in s-bob "$WB" PreToolUse ",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$WB/src/table.c\",\"old_string\":\"int v35 = 35;\",\"new_string\":\"int v35 = 7;\"}")
check "an edit 20 lines away is not warned ($far)" sh -c "! printf '%s' \"\$1\" | grep -q traffic" x "$far"
# alice is told in her next crew update
upd=$(hook_in s-alice "$WA" UserPromptSubmit ",\"prompt\":\"carry on\"")
check "alice is told who approaches ($upd)" ctx_has "$upd" "message from bob: airspace: .bob. is about to change lines 11-11 of src/table.c, near your change .lines 10-12."
# bob's crew update names alice's paths
upd=$(hook_in s-bob "$WB" UserPromptSubmit ",\"prompt\":\"what now\"")
check "the crew update names the other agent's paths ($upd)" ctx_has "$upd" "alice .claude-code. is changing src/table.c .lines 10-12."

# alice's worktree is shared (two sessions): what nobody reported is the
# human's, but never the clients' settings that init writes
echo '{"mcpServers":{}}' > "$WA/.mcp.json"
mkdir -p "$WA/.claude"
echo '{}' > "$WA/.claude/settings.json"
echo 'int extra;' > "$WA/src/extra.c"
api POST /v1/refresh
n=0
until curl -s --unix-socket "$SOCK" 'http://a/v1/agents?files=1' | jq -e '.agents[] | select(.kind == "human") | .files | map(.path) | index("src/extra.c") != null' > /dev/null 2>&1 || [ $n -gt 100 ]; do sleep 0.05; n=$((n + 1)); done
curl -s --unix-socket "$SOCK" 'http://a/v1/agents?files=1' > "$TMP/human.json"
check "the human of the shared worktree has the unreported file" jqt "$TMP/human.json" \
    '[.agents[] | select(.kind == "human") | .files[].path] | index("src/extra.c") != null'
check "... and not the clients' settings" jqt "$TMP/human.json" \
    '[.agents[] | select(.kind == "human") | .files[].path] | (index(".mcp.json") == null and index(".claude/settings.json") == null)'

# A client killed (no SessionEnd) and its session resumed by a new client
# process: the session keeps its name and claims it again, so a new
# session in that worktree does not become the same agent (before, it
# took the name the dead process had claimed, and the first of the two to
# end released the other's locks); the new process's shell acts as it.
as agent new carol > /dev/null 2>&1
WC="$TMP/repo.airspace/carol"
holder() { # holder SCRIPT FIFO: a client running SCRIPT, alive until FIFO is written
    exec python3 -c 'import subprocess, sys
subprocess.call(["sh", "-c", sys.argv[1]])
open(sys.argv[2]).read()' "$1" "$2"
}
start_json() { # start_json SESSION SOURCE
    printf '{"session_id":"%s","cwd":"%s","hook_event_name":"SessionStart","source":"%s"}' "$1" "$WC" "$2"
}
mkfifo "$TMP/crash" "$TMP/resumed"
holder "printf '%s' '$(start_json s-carol startup)' | '$AIRSPACE_BIN' hook claude-code > '$TMP/c1.json'" "$TMP/crash" &
CRASHED=$!
n=0
until [ -s "$TMP/c1.json" ] || [ $n -gt 100 ]; do sleep 0.05; n=$((n + 1)); done
kill -9 $CRASHED
wait $CRASHED 2> /dev/null || true
holder "printf '%s' '$(start_json s-carol resume)' | '$AIRSPACE_BIN' hook claude-code > '$TMP/c2.json'; cd '$WC' && '$AIRSPACE_BIN' lock resumed.txt > '$TMP/c2-lock.out' 2>&1" "$TMP/resumed" &
RESUMED=$!
n=0
until [ -s "$TMP/c2-lock.out" ] || [ $n -gt 200 ]; do sleep 0.05; n=$((n + 1)); done
client "printf '%s' '$(start_json s-carol-2 startup)' | '$AIRSPACE_BIN' hook claude-code > '$TMP/c3.json'"
echo > "$TMP/resumed"
wait $RESUMED
check "the first session is carol" ctx_has "$(cat "$TMP/c1.json")" "crew update for carol:"
check "resumed in a new process, it is still carol" ctx_has "$(cat "$TMP/c2.json")" "crew update for carol:"
check "the resumed session's shell locks as carol ($(cat "$TMP/c2-lock.out"))" sh -c \
    "as locks --json | jq -e '.locks[] | select(.pattern == \"resumed.txt\") | .holder == \"carol\"' > /dev/null"
check "a new session beside the resumed one is its own agent ($(cat "$TMP/c3.json" | head -c 200))" \
    ctx_has "$(cat "$TMP/c3.json")" "crew update for $(hook_agent cc s-carol-2):"

# the session ends: the agent exits, its records go
hook_in s-bob "$WB" SessionEnd ",\"reason\":\"other\"" > "$TMP/end.out"
check "SessionEnd prints nothing" [ ! -s "$TMP/end.out" ]
check "bob exited" [ "$(as agents --json | jq -r '.agents[] | select(.id == "bob") | .status')" = exited ]
finish

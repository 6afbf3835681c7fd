# t60-claude-code.sh - the real Claude Code client (the pinned version,
# tests/clients), installed as a user installs airspace (git init, commit,
# `airspace init --claude-code`, `airspace agent new`, `airspace status`),
# run headless and offline against the scripted model server. What the
# model was told is read from the server's request log:
#  1. an Edit of a file another agent locked is denied; the model's next
#     request carries the denial naming the holder; the file is unchanged;
#  2. the user's permissions stay in force: a shell command the client
#     refuses without airspace (checked on a plain repository first) is
#     still refused, and commands the user's settings or --allowedTools
#     allow still run;
#  3. traffic before the first collision: A's edit is reported; B, about to
#     edit two lines below it, is told before the edit (PreToolUse context
#     naming A, the file and the lines), and A is told of B;
#  4. one identity: a lock taken through the MCP tool, then an Edit of the
#     same file in the same session, is allowed; commit and land through
#     MCP work; one agent per session, none of kind human;
#  5. every hook event airspace installs ran and its answer was accepted
#     (the client's --debug-file), and the MCP server logged no error,
#     including a compaction and a session started with the daemon down;
#  7. the end of a session releases its locks (with events) and its agent
#     exits;
#  8. an agent whose committed work conflicts with what landed on main
#     since its base: the next session's first request says so.
# Skipped (exit 0, SKIP) when the pinned client is not installed.
. "$(dirname "$0")/lib.sh"
: "${AIRSPACE_SOURCE_DIR:?AIRSPACE_SOURCE_DIR must point at the source tree}"
. "$AIRSPACE_SOURCE_DIR/tests/clients/lib-clients.sh"
. "$AIRSPACE_SOURCE_DIR/tests/clients/lib-claude.sh"

# session_agents WORKTREE EVENT: the agents the sessions working in
# WORKTREE since the daemon's event EVENT flew as: every agent registered
# there and every one that sent a prompt, reported an edit, took a lock or
# committed there (ids, one a line)
session_agents() {
    as agents --json > "$TMP/agents.json"
    events_after "$2" | jq -r -s --arg w "$1" --slurpfile ag "$TMP/agents.json" '
        ($ag[0].agents | map({key: .id, value: .worktree}) | from_entries) as $wt
        | [.[] | select((.type == "agent.registered" and .data.worktree == $w)
            or ((.type | test("^(prompt\\.topics|workset\\.edit|lock\\.granted|git\\.commit)$")) and $wt[.agent // ""] == $w))
          | .agent] | unique[]'
}
# edit_agent WORKTREE PATH EVENT: who reported editing PATH in WORKTREE
# since the event EVENT
edit_agent() {
    as agents --json > "$TMP/agents.json"
    events_after "$3" | jq -r -s --arg w "$1" --arg p "$2" --slurpfile ag "$TMP/agents.json" '
        ($ag[0].agents | map({key: .id, value: .worktree}) | from_entries) as $wt
        | [.[] | select(.type == "workset.edit" and .data.path == $p and $wt[.agent // ""] == $w) | .agent] | unique | .[0] // ""'
}
# last_event: the id of the daemon's latest event
last_event() {
    as log --json --limit 100000 | jq '[.events[].id] | max // 0'
}
# events_after ID: the daemon's events after ID, one JSON line each
events_after() {
    as log --json --after "$1" --limit 100000 | jq -c '.events[]'
}

# ---- the repository, as a user sets it up ----
R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/.claude" "$R/src"
# the user's own settings: one shell command allowed without asking
printf '{\n  "permissions": {\n    "allow": ["Bash(touch ok-marker.txt)"]\n  }\n}\n' > "$R/.claude/settings.json"
cp "$R/.claude/settings.json" "$TMP/user-settings.json"
printf '# notes\n\nline 3\nline 4\n' > "$R/notes.md"
i=1
while [ $i -le 30 ]; do
    echo "int v$i = $i;"
    i=$((i + 1))
done > "$R/src/conn.c"
printf 'step 1\nstep 2\nstep 3\n' > "$R/plan.txt"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
as init --claude-code > "$TMP/init.out"
git add -A
git commit -qm "airspace for Claude Code"
printf '[daemon]\n\ttick-ms = 100\n\trescan-ms = 60000\n' > .git/airspace/config
as status > "$TMP/status.out"
# AIRSPACE_KEEP=DIR keeps a copy of everything (logs, debug files, repos) there
trap 'as stop --repo "$R" > /dev/null 2>&1 || true
    [ -z "${AIRSPACE_KEEP:-}" ] || cp -a "$TMP/." "$AIRSPACE_KEEP/"
    rm -rf "$TMP"' EXIT
for a in alice bob carol; do as agent new $a > /dev/null; done
WA="$R.airspace/alice" WB="$R.airspace/bob" WC="$R.airspace/carol"
P="$TMP/plain" # the same user settings, no airspace: what the client does alone
new_repo "$P"
mkdir -p "$P/.claude"
cp "$TMP/user-settings.json" "$P/.claude/settings.json"
git -C "$P" add -A
git -C "$P" commit -qm base
# the user trusted both repositories once (until then the client drops a
# project's permissions.allow; a worktree counts as its main repository)
jq -n --arg r "$R" --arg p "$P" \
    '{projects: ([$r, $p] | map({key: ., value: {hasTrustDialogAccepted: true}}) | from_entries)}' \
    > "$HOME/.claude.json"
check "init installed the hooks for Claude Code" jqt "$WA/.claude/settings.json" \
    "[.hooks[][] | .hooks[].command] | all(. == \"$HOOKCMD\")"

# ---- 1. an edit of a file another agent holds ----
(cd "$WB" && as lock --reason "bob rewrites the notes" notes.md) > /dev/null
HOLDER=$(as locks --json | jq -r '.locks[] | select(.pattern == "notes.md") | .holder')
check "1: bob's worktree holds notes.md ($HOLDER)" [ -n "$HOLDER" ]
jq -n --arg f "$WA/notes.md" '{steps: [
    {tool: "Read", input: {file_path: $f}},
    {tool: "Edit", input: {file_path: $f, old_string: "line 3", new_string: "line three"}},
    {text: "could not"}]}' > "$TMP/s1.script"
S1=$(uuid)
cc s1 "$WA" "tidy the notes" --session-id "$S1" --allowedTools Edit
check "1: the session ran" ran s1
r=$(result "$TMP/s1.log" '.tool == "Edit"')
check "1: the model is told the Edit failed ($r)" jt "$r" '.is_error == true'
check "1: ... naming the holder and the file" says "$r" "$HOLDER" "notes.md"
check "1: notes.md is unchanged" git -C "$WA" diff --quiet -- notes.md
(cd "$WB" && as unlock notes.md) > /dev/null

# ---- 2. the user's own permissions stay in force ----
OUT="$TMP/outside-$$"
jq -n --arg o "$OUT" '{steps: [
    {tool: "Bash", input: {command: ("touch " + $o), description: "touch a file outside"}},
    {tool: "Bash", input: {command: "touch ok-marker.txt", description: "allowed by the settings"}},
    {tool: "Bash", input: {command: "touch by-flag.txt", description: "allowed by the flag"}},
    {text: "done"}]}' > "$TMP/s2plain.script"
cp "$TMP/s2plain.script" "$TMP/s2.script"
cc s2plain "$P" "touch three files" --session-id "$(uuid)" --allowedTools "Bash(touch by-flag.txt)"
check "2: without airspace the session ran" ran s2plain
check "2: without airspace the outside touch is refused" [ ! -e "$OUT" ]
r=$(result "$TMP/s2plain.log" '.input.command == "touch '"$OUT"'"')
check "2: ... and the model told so ($r)" jt "$r" '.is_error == true'
check "2: without airspace the command the settings allow ran" [ -e "$P/ok-marker.txt" ]
check "2: without airspace the command --allowedTools allows ran" [ -e "$P/by-flag.txt" ]
rm -f "$OUT"
cc s2 "$WA" "touch three files" --session-id "$(uuid)" --allowedTools "Bash(touch by-flag.txt)"
check "2: the session ran" ran s2
check "2: with airspace the outside touch is still refused" [ ! -e "$OUT" ]
r=$(result "$TMP/s2.log" '.input.command == "touch '"$OUT"'"')
check "2: ... and the model told so ($r)" jt "$r" '.is_error == true'
check "2: with airspace the command the settings allow runs" [ -e "$WA/ok-marker.txt" ]
check "2: with airspace the command --allowedTools allows runs" [ -e "$WA/by-flag.txt" ]
rm -f "$OUT" "$WA/ok-marker.txt" "$WA/by-flag.txt"

# ---- 3. traffic: B is warned before editing near A's fresh edit ----
waiter "$TMP/wait-b.sh" "$TMP/b-edited"
waiter "$TMP/wait-a.sh" "$TMP/a-done"
jq -n --arg f "$WA/src/conn.c" --arg w "sh $TMP/wait-b.sh" '{steps: [
    {tool: "Read", input: {file_path: $f}},
    {tool: "Edit", input: {file_path: $f, old_string: "int v10 = 10;\nint v11 = 11;\nint v12 = 12;",
        new_string: "int v10 = 100;\nint v11 = 110;\nint v12 = 120;"}},
    {tool: "Bash", input: {command: $w, description: "run the long build"}},
    {tool: "Edit", input: {file_path: $f, old_string: "int v11 = 110;", new_string: "int v11 = 111;"}},
    {text: "tuned"}]}' > "$TMP/s3a.script"
jq -n --arg f "$WB/src/conn.c" --arg w "sh $TMP/wait-a.sh" '{steps: [
    {tool: "Read", input: {file_path: $f}},
    {tool: "Edit", input: {file_path: $f, old_string: "int v14 = 14;\nint v15 = 15;",
        new_string: "int v14 = 140;\nint v15 = 150;"}},
    {tool: "Edit", input: {file_path: $f, old_string: "int v14 = 14;\nint v15 = 15;",
        new_string: "int v14 = 140;\nint v15 = 150;", replace_all: false}},
    {tool: "Bash", input: {command: $w, description: "run the long build"}},
    {text: "tuned too"}]}' > "$TMP/s3b.script"
took_bash() { # took_bash NAME: the session has asked for its shell step
    [ -f "$TMP/$1.log" ] && [ "$(ms_main "$TMP/$1.log" | jq -s '[.[] | select(.step.tool == "Bash")] | length')" -gt 0 ]
}
EV3=$(last_event)
cc s3a "$WA" "tune the connection values" --session-id "$(uuid)" --allowedTools Edit "Bash(sh $TMP/wait-b.sh)" &
PA=$!
check "3: A edited and went on to its build" wait_for 30 took_bash s3a
cc s3b "$WB" "tune the connection values" --session-id "$(uuid)" --allowedTools Edit "Bash(sh $TMP/wait-a.sh)" &
PB=$!
check "3: B edited and went on to its build" wait_for 30 took_bash s3b
AID=$(edit_agent "$WA" src/conn.c "$EV3")
BID=$(edit_agent "$WB" src/conn.c "$EV3")
paired() { as advisories --json | jq -e --arg a "$AID" --arg b "$BID" 'tostring | contains($a) and contains($b)' > /dev/null; }
wait_for 5 paired || true # the daemon has seen both edits (no check: A's check below tells)
touch "$TMP/b-edited"
wait $PA || true
touch "$TMP/a-done"
wait $PB || true
check "3: A's session ran" ran s3a
check "3: B's session ran" ran s3b
check "3: A's and B's edits were reported ($AID, $BID)" [ -n "$AID" -a -n "$BID" ]
# the clients show a PreToolUse's context only with the tool's result, so
# B's first edit near A's lines is held once, the warning its reason: the
# model reads it before it edits; repeated, the edit goes through
pre=$(result "$TMP/s3b.log" '.tool == "Edit" and (.input | has("replace_all") | not)')
check "3: B's first edit near A's lines is held, the warning read before the edit ($pre)" \
    jt "$pre" '.is_error == true'
check "3: ... naming A, the file and A's lines (10-12)" says "$pre" "$AID" "conn.c" "lines 10-12"
check "3: B's repeated edit went through (traffic warns, it does not forbid)" grep -q 'int v14 = 140;' "$WB/src/conn.c"
toldA=$(ms_all_after "$TMP/s3a.log" '.tool == "Bash"' | jq -c '[.. | strings | select(contains("hook additional context"))]')
check "3: A's model is told of B by a hook ($toldA)" says "$toldA" "$BID"

# ---- 4. one identity: lock through MCP, edit, commit and land ----
EV4=$(last_event)
jq -n --arg f "$WC/plan.txt" '{steps: [
    {tool: "ToolSearch", input: {query: "select:mcp__airspace__lock,mcp__airspace__commit,mcp__airspace__land"}},
    {tool: "mcp__airspace__lock", input: {patterns: ["plan.txt"], reason: "carol rewrites the plan"}},
    {tool: "Read", input: {file_path: $f}},
    {tool: "Edit", input: {file_path: $f, old_string: "step 2", new_string: "step two"}},
    {tool: "mcp__airspace__commit", input: {message: "plan: step two in words"}},
    {tool: "mcp__airspace__land", input: {}},
    {text: "landed"}]}' > "$TMP/s4.script"
cc s4 "$WC" "reword the plan and land it" --session-id "$(uuid)" \
    --allowedTools Edit mcp__airspace__lock mcp__airspace__commit mcp__airspace__land
check "4: the session ran" ran s4
for t in mcp__airspace__lock Edit mcp__airspace__commit mcp__airspace__land; do
    r=$(result "$TMP/s4.log" ".tool == \"$t\"")
    check "4: $t succeeded ($r)" jt "$r" '.content != null and .is_error != true'
done
landed() { git -C "$R" show main:plan.txt | grep -qx 'step two'; }
check "4: the reworded plan landed on main" landed
CIDS=$(session_agents "$WC" "$EV4" | tr '\n' ' ')
check "4: one agent for the session: its hooks, its MCP server and its commit ($CIDS)" [ "$(echo $CIDS | wc -w)" = 1 ]
humans=$(as agents --json | jq -c '[.agents[] | select(.kind == "human") | .id]')
check "4: no agent of kind human ($humans)" [ "$humans" = "[]" ]

# ---- 7. the end of the session releases its locks ----
left=$(as locks --json | jq -c '[.locks[] | select(.pattern == "plan.txt") | .holder]')
check "7: the session's lock is gone ($left)" [ "$left" = "[]" ]
LH=$(events_after "$EV4" | jq -s -r '[.[] | select(.type == "lock.granted" and .data.pattern == "plan.txt") | .agent] | .[0] // ""')
check "7: the lock was granted ($LH)" [ -n "$LH" ]
released() { # released AGENT: an event says AGENT's locks were released
    events_after "$EV4" | jq -s -e --arg a "$1" \
        '[.[] | select((.type == "lock.released" or .type == "lock.released_all") and .agent == $a)] | length > 0' > /dev/null
}
check "7: its release is an event" released "$LH"
st=$(as agents --json | jq -r --arg a "$LH" '[.agents[] | select(.id == $a) | .status] | .[0] // "gone"')
check "7: the lock's holder exited ($LH: $st)" [ "$st" = exited -o "$st" = gone ]
for a in $CIDS; do
    st=$(as agents --json | jq -r --arg a "$a" '[.agents[] | select(.id == $a) | .status] | .[0] // "gone"')
    check "7: the session's agent exited ($a: $st)" [ "$st" = exited -o "$st" = gone ]
done

# ---- 8. work that conflicts with what landed: the model is told ----
# carol's reworded plan is on main now; alice, still on the old base,
# changes the same line and commits while no session of hers runs (her
# agent exited with its session: the detector tells live agents only).
# Her next session registers her again, the daemon reads her work, finds
# the conflict and tells her, and that session's first request says so.
sed -i 's/^step 2$/step 2, in full/' "$WA/plan.txt"
git -C "$WA" commit -qam "plan: step 2 in full"
EV8=$(last_event)
jq -n '{steps: [{text: "noted"}]}' > "$TMP/s8.script"
cc s8 "$WA" "anything new?" --session-id "$(uuid)"
check "8: the session ran" ran s8
told=$(events_after "$EV8" | jq -s -c '[.[] | select(.type == "conflict" and .data.shape == "integration") | .data | {to, b, file}]')
check "8: the daemon told alice's agent of the conflict with main on plan.txt ($told)" \
    jt "$told" 'length == 1 and .[0].b == "main" and .[0].file == "plan.txt"'
first=$(ms_main "$TMP/s8.log" | head -1)
check "8: the session's first request tells the model, naming the file and the branch" says "$first" \
    "\\[conflict\\] integration: the work of '[^']+' conflicts in plan.txt with what 'main' changed since it began; merge or rebase onto 'main'"

# ---- 9. parked work: a new session is told of ended sessions' edits ----
# The sessions of 3 ended with their edits of src/conn.c (alice's lines
# 10-12, bob's 14-15) still in their worktrees, not landed: their agents
# are parked. A new session in carol's worktree about to change line 11
# is held once, told whose lines those are and that they are parked.
parked=$(as agents --json | jq -c '[.agents[] | select(.parked) | .worktree] | sort')
check "9: the ended sessions' agents with work left are parked ($parked)" \
    jt "$parked" "index(\"$WA\") != null and index(\"$WB\") != null"
jq -n --arg f "$WC/src/conn.c" '{steps: [
    {tool: "Read", input: {file_path: $f}},
    {tool: "Edit", input: {file_path: $f, old_string: "int v11 = 11;", new_string: "int v11 = 1100;"}},
    {text: "left it"}]}' > "$TMP/s9.script"
cc s9 "$WC" "tune v11" --session-id "$(uuid)" --allowedTools Edit
check "9: the session ran" ran s9
r=$(result "$TMP/s9.log" '.tool == "Edit"')
check "9: the edit near parked lines is held, the warning read first ($r)" jt "$r" '.is_error == true'
check "9: ... naming the lines, the file and that their agent is parked" says "$r" \
    "parked: not active now, its work not landed\\) has changed lines 10-12 of src/conn.c"

# ---- 5. every answer accepted: a compaction, and the daemon down ----
echo '{"steps": []}' > "$TMP/s5c.script" # the compaction is a side request
cc s5c "$WA" "/compact" --resume "$S1"
check "5: the compaction ran" ran s5c
as stop > /dev/null 2>&1 || true
down() { ! as status --no-start > /dev/null 2>&1; }
check "5: the daemon is down" down
jq -n --arg f "$WB/notes.md" --arg n "$WB/new/dir/file.txt" '{steps: [
    {tool: "Read", input: {file_path: $f}},
    {tool: "Edit", input: {file_path: $f, old_string: "line 4", new_string: "line four"}},
    {tool: "Write", input: {file_path: $n, content: "new\n"}},
    {tool: "Bash", input: {command: "echo \"unterminated", description: "a command no shell parses"}},
    {text: "done"}]}' > "$TMP/s5d.script"
cc s5d "$WB" "edit the notes" --session-id "$(uuid)" --allowedTools Edit Write
check "5: with the daemon down the session ran" ran s5d
check "5: ... its edit went through" grep -q 'line four' "$WB/notes.md"
up() { as status --no-start > /dev/null 2>&1; }
check "5: ... and a hook started the daemon again" wait_for 10 up

RUNS="s1 s2 s3a s3b s4 s8 s9 s5c s5d" # every session with airspace
cat /dev/null > "$TMP/all.debug"
for n in $RUNS; do
    sed "s/^/$n: /" "$TMP/$n.debug" >> "$TMP/all.debug"
done
grep -F "[$HOOKCMD]" "$TMP/all.debug" | grep -E '\[(ERROR|WARN)\]|validation failed|failed to run|non-blocking' > "$TMP/hook-errors" || true
EVENTS=$(jq -r --arg c "$HOOKCMD" '.hooks | to_entries[] | select([.value[].hooks[].command] | index($c)) | .key' "$WA/.claude/settings.json")
check "5: airspace installs the events it should ($(echo $EVENTS))" [ "$(echo $EVENTS | tr ' ' '\n' | sort | tr '\n' ' ')" = \
    "PostToolUse PreCompact PreToolUse SessionEnd SessionStart Stop UserPromptSubmit " ]
for e in $EVENTS; do
    check "5: the $e hook ran" grep -qE " $e(:[^ ]*)? \[$HOOKCMD\]" "$TMP/all.debug"
    if grep -E "\"?$e(:[^ ]*)? \[$HOOKCMD\]" "$TMP/hook-errors" | cut -c1-240 > "$TMP/e.err"; [ -s "$TMP/e.err" ]; then
        fail "5: the client accepts every answer to $e ($(wc -l < "$TMP/e.err") refused; $(head -1 "$TMP/e.err"))"
    else
        ok
    fi
done
grep -E '\[(ERROR|WARN)\].*MCP server "airspace"' "$TMP/all.debug" | cut -c1-200 > "$TMP/mcp-errors" || true
check "5: the client logged no error or warning from the MCP server ($(wc -l < "$TMP/mcp-errors"); $(head -2 "$TMP/mcp-errors" | tr '\n' ' '))" [ ! -s "$TMP/mcp-errors" ]
connected() { # the MCP server connected in every session with airspace
    [ "$(grep -c 'MCP server "airspace": Successfully connected' "$TMP/all.debug")" -ge "$(echo $RUNS | wc -w)" ]
}
check "5: the MCP server connected in every session" connected
trusted() { ! grep -q 'workspace not yet trusted' "$TMP/all.debug"; }
check "5: the workspaces were trusted (no project setting dropped)" trusted
finish

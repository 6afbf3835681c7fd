# t62-gemini.sh - the real Gemini CLI (pinned in tests/clients/package.json),
# headless and offline against the scripted model server, in a repository
# set up as a user sets it up: git init, a commit, `airspace init --gemini`,
# `airspace agent new` per agent (it copies the uncommitted .gemini/ into
# the worktree), the daemon (`airspace status`), the worktrees trusted
# (~/.gemini/trustedFolders.json, as Gemini's trust dialog writes it).
#
#  1. an edit (write_file, replace) of a file another agent locked is denied;
#     the model is told why, naming the holder; the file is unchanged
#  2. airspace never grants: a shell command Gemini's own approval refuses
#     (default mode, only `ls` allowed) stays refused, after airspace's
#     BeforeTool hook saw it
#  3. traffic before the first collision: while B is at work, A changes
#     lines 5-6 of b.txt; B, about to change line 8, is warned before the
#     edit (naming A, the file, the lines), and A is told too
#  4. one identity: a lock taken with the MCP tool, then an edit of that file
#     in the same session is allowed; one agent per session, none human
#  5. no hook or MCP error or warning in the client's debug output, and every
#     event airspace installs runs
#  7. the session ends (SessionEnd): its locks are released, with events, and
#     its agents are gone
#  8. parked work: after A's session of 3 ended with its change not
#     landed, a new session's edit near those lines is held once and the
#     model is told they are parked
# plus: the crew update reaches the model at session start; a prompt's
# topics are the user's words, not the context airspace added.
# Needs the pinned client (scripts/setup.sh --clients); SKIP without it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../clients/lib-gemini.sh"

if ! gemini_available; then
    echo "SKIP: the pinned Gemini CLI $GEMINI_PIN is not installed (scripts/setup.sh --clients)"
    exit 0
fi
T0=$(date +%s)
gemini_home

# ---- the repository, as a user sets it up ----
R="$TMP/proj"
new_repo "$R"
for f in a b c; do
    i=1
    while [ $i -le 20 ]; do echo "line$i"; i=$((i + 1)); done > "$R/$f.txt"
done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
as init --gemini > "$TMP/init.out"
# agent new starts the daemon
trap 'as stop > /dev/null 2>&1 || true
    for p in "$TMP"/*.server.pid; do kill "$(cat "$p")" 2> /dev/null || true; done
    [ -z "${T62_KEEP:-}" ] || cp -r "$TMP" "$T62_KEEP" # to look at the logs
    rm -rf "$TMP"' EXIT
for n in alice bob carol dave erin frank; do
    as agent new "$n" > "$TMP/wt.$n" 2>> "$TMP/agent-new.err"
    gemini_trust "$(cat "$TMP/wt.$n")"
done
check "agent new gives every worktree airspace's Gemini settings" \
    cmp -s .gemini/settings.json "$(cat "$TMP/wt.frank")/.gemini/settings.json"
as status > /dev/null
wt() { cat "$TMP/wt.$1"; }
# ids NAME: the ids of the agents flying in NAME's worktree, one a line
ids() {
    as agents --json | jq -r --arg w "$(realpath "$(wt "$1")")" '.agents[] | select(.worktree == $w) | .id'
}
# mentions FILE NAME: FILE names one of the agents of NAME's worktree
mentions() {
    for id in $(ids "$2"); do grep -qF "$id" "$1" && return 0; done
    return 1
}
# ledger_after N: the events after id N, one JSON object a line
ledger_after() {
    as api GET "/v1/ledger?after=$1" | jq -c '.events[]'
}
last_event() {
    as api GET /v1/status | jq -r .lastEventId
}
not() {
    ! "$@"
}
same() {
    [ -n "$1" ] && [ "$1" = "$2" ]
}
# airspace_said TAG K: what airspace told the model before its K-th tool
# call was carried out: the context it added (<hook_context>) to what the
# model had when it made the call, and the call's denial; one message a line
airspace_said() {
    gemini_main "$1" | jq -sr --argjson k "$2" '
        [range(0; length) as $i | select(.[$i].step.tool != null) | $i] as $t
        | .[$t[$k]].body.contents | .. | strings
        | match("<hook_context>([\\s\\S]*?)</hook_context>"; "g") | .captures[0].string | gsub("\n"; " ")'
    gemini_result "$1" "$2" | jq -r '.error // empty | gsub("\n"; " ")'
}
# airspace_after TAG K: the context airspace added to the K-th tool result
airspace_after() {
    gemini_result "$1" "$2" | jq -r '.. | strings
        | match("<hook_context>([\\s\\S]*?)</hook_context>"; "g") | .captures[0].string | gsub("\n"; " ")'
}
# warns FILE NAME WHERE: one message of FILE names b.txt, the lines WHERE
# (an extended regex) and an agent of NAME's worktree
warns() {
    grep -E 'b\.txt' "$1" | grep -E "$3" > "$1.hits" || return 1
    mentions "$1.hits" "$2"
}
# holds PATTERN: somebody holds a lock on PATTERN
holds() {
    as locks --json | jq -e --arg p "$1" '.locks[] | select(.pattern == $p)' > /dev/null
}

# ---- 1. an edit of a file another agent holds is denied ----
(cd "$(wt bob)" && as lock --reason "bob rewrites it" a.txt > /dev/null)
HOLDER=$(as locks --json | jq -r '.locks[] | select(.pattern == "a.txt") | .holder')
check "1: bob's worktree's agent holds a.txt ($HOLDER)" sh -c 'printf "%s\n" "$1" | grep -qxF "$2"' _ "$(ids bob)" "$HOLDER"
cat > "$TMP/s1.json" << 'JSON'
{"steps": [
  {"tool": "write_file", "input": {"file_path": "a.txt", "content": "alice was here\n"}},
  {"tool": "replace", "input": {"file_path": "a.txt", "instruction": "upper-case line 3",
    "old_string": "line3\n", "new_string": "LINE3\n"}},
  {"text": "a.txt is held by someone else"}]}
JSON
gemini_run s1 "$(wt alice)" "$TMP/s1.json" -p "Rewrite a.txt" --approval-mode auto_edit
check "1: the session ran (rc $GEMINI_RC)" [ "$GEMINI_RC" = 0 ]
for k in 0 1; do
    gemini_result s1 $k > "$TMP/s1.r$k"
    check "1: tool call $k denied" jq -e '.error | test("blocked")' "$TMP/s1.r$k" > /dev/null
    check "1: tool call $k: the model is told the holder ($HOLDER)" grep -qF "$HOLDER" "$TMP/s1.r$k"
done
check "1: a.txt unchanged" git -C "$(wt alice)" diff --quiet -- a.txt
check "1: the holder still holds a.txt after the session" \
    [ "$(as locks --json | jq -r '.locks[] | select(.pattern == "a.txt") | .holder')" = "$HOLDER" ]
gemini_main s1 | head -n 1 | jq -r '[.body.contents | .. | strings] | .[]' > "$TMP/s1.first"
check "the crew update reaches the model at session start" grep -q "airspace crew update" "$TMP/s1.first"
# the prompt's topics: words of "Rewrite a.txt", none of the crew update
# Gemini put before it
as api GET "/v1/ledger?type=prompt.topics" | jq -r '.events[].data.topics[]' > "$TMP/topics"
check "a prompt's topics are the user's words ($(tr '\n' ' ' < "$TMP/topics"))" \
    not grep -qxE 'crew|airspace|hook|context|update|nobody|changing|gemini' "$TMP/topics"

# ---- 2. airspace never grants what Gemini refuses ----
cat > "$TMP/s2.json" << 'JSON'
{"steps": [
  {"tool": "run_shell_command", "input": {"command": "touch pwned.txt", "description": "make a file"}},
  {"tool": "run_shell_command", "input": {"command": "ls", "description": "list the files"}},
  {"text": "tried"}]}
JSON
gemini_run s2 "$(wt carol)" "$TMP/s2.json" -p "Make pwned.txt" --allowed-tools "run_shell_command(ls)"
check "2: the session ran (rc $GEMINI_RC)" [ "$GEMINI_RC" = 0 ]
check "2: airspace's BeforeTool hook saw both commands" \
    [ "$(grep -ac 'Hook execution for BeforeTool: 1 hooks executed successfully' "$TMP/s2.err")" = 2 ]
gemini_result s2 0 > "$TMP/s2.r0"
gemini_result s2 1 > "$TMP/s2.r1"
check "2: the command is refused by Gemini's approval" jq -e '.error | test("denied by policy")' "$TMP/s2.r0" > /dev/null
check "2: pwned.txt not made" [ ! -e "$(wt carol)/pwned.txt" ]
check "2: the allowed command ran (the shell tool works)" jq -e '.output | test("a.txt")' "$TMP/s2.r1" > /dev/null

# ---- 3. traffic: B is warned before editing near A's lines; A is told ----
# B is at work (waiting for its build) when A changes lines 5-6 of b.txt;
# then B changes line 8, while A waits for its own build
cat > "$TMP/s3b.json" << JSON
{"steps": [
  {"tool": "run_shell_command", "input": {"command": "while [ ! -e '$TMP/go1' ]; do sleep 0.1; done",
    "description": "wait for the build"}},
  {"tool": "replace", "input": {"file_path": "b.txt", "instruction": "upper-case line 8",
    "old_string": "line8\n", "new_string": "LINE8\n"}},
  {"text": "done"}]}
JSON
cat > "$TMP/s3a.json" << JSON
{"steps": [
  {"tool": "replace", "input": {"file_path": "b.txt", "instruction": "upper-case lines 5 and 6",
    "old_string": "line5\nline6\n", "new_string": "LINE5\nLINE6\n"}},
  {"tool": "run_shell_command", "input": {"command": "while [ ! -e '$TMP/go2' ]; do sleep 0.1; done",
    "description": "wait for the build"}},
  {"text": "done"}]}
JSON
# waits TAG: the session TAG runs its shell command (waits for its build)
waits() {
    [ -s "$TMP/$1.log" ] &&
        gemini_main "$1" | jq -e 'select(.step.tool == "run_shell_command")' > /dev/null 2>&1
}
# known_a: the daemon knows A's changed lines of b.txt
known_a() {
    as api GET '/v1/agents?files=1' | jq -e --arg w "$(realpath "$(wt dave)")" \
        'any(.agents[] | select(.worktree == $w) | .files[]?; .path == "b.txt")' > /dev/null
}
# until_ COMMAND...: wait up to 90 s for COMMAND to succeed (a client starting
# under a loaded machine took over 40 s)
until_() {
    n=0
    until "$@" || [ $n -ge 900 ]; do
        sleep 0.1
        n=$((n + 1))
    done
}
gemini_start s3b "$(wt erin)" "$TMP/s3b.json" -p "Change line 8 of b.txt" --approval-mode yolo
until_ waits s3b
gemini_start s3a "$(wt dave)" "$TMP/s3a.json" -p "Change lines 5 and 6 of b.txt" --approval-mode yolo
until_ waits s3a
# (the message carries what the client got back from the edit: runs at
# -j2 on a loaded machine twice found b.txt unchanged here while the
# model server had already served the next step, and the later checks,
# A's change known and both told, passed: the write lands after; so wait
# for it, still at most 90 s)
a_changed() { grep -q LINE5 "$(wt dave)/b.txt"; }
until_ a_changed
check "3: A changed b.txt and waits ($(gemini_result s3a 0 2> /dev/null | head -c 300))" \
    sh -c 'grep -q LINE5 "$1"' _ "$(wt dave)/b.txt"
until_ known_a
check "3: the daemon knows A's change" known_a
touch "$TMP/go1"
gemini_wait s3b
check "3: B's session ran (rc $GEMINI_RC)" [ "$GEMINI_RC" = 0 ]
touch "$TMP/go2"
gemini_wait s3a
check "3: A's session ran (rc $GEMINI_RC)" [ "$GEMINI_RC" = 0 ]
# what airspace told B before its edit was made
airspace_said s3b 1 > "$TMP/s3b.before"
check "3: B is warned before the edit: A, b.txt, lines 5-6 ($(head -c 300 "$TMP/s3b.before"))" \
    warns "$TMP/s3b.before" dave '5 *(-|–|\.\.|to|and) *6'
# what A was told after B's edit: with the result of its wait
airspace_after s3a 1 > "$TMP/s3a.after"
check "3: A is told: B, b.txt, line 8 ($(head -c 300 "$TMP/s3a.after"))" \
    warns "$TMP/s3a.after" erin '\<8\>'

# ---- 4. one identity: an MCP lock, then an edit in the same session ----
E0=$(last_event)
cat > "$TMP/s4.json" << 'JSON'
{"steps": [
  {"tool": "mcp_airspace_lock", "input": {"patterns": ["c.txt"], "reason": "refactoring c.txt"}},
  {"tool": "replace", "input": {"file_path": "c.txt", "instruction": "upper-case line 3",
    "old_string": "line3\n", "new_string": "LINE3\n"}},
  {"text": "done"}]}
JSON
gemini_run s4 "$(wt frank)" "$TMP/s4.json" -p "Lock c.txt, then change line 3" --approval-mode yolo
check "4: the session ran (rc $GEMINI_RC)" [ "$GEMINI_RC" = 0 ]
gemini_result s4 0 > "$TMP/s4.r0"
gemini_result s4 1 > "$TMP/s4.r1"
check "4: the MCP lock is granted" jq -e '(.error == null) and (tostring | test("c.txt"))' "$TMP/s4.r0" > /dev/null
check "4: the edit of the file the session locked is allowed" jq -e '.error == null' "$TMP/s4.r1" > /dev/null
check "4: c.txt changed" grep -q LINE3 "$(wt frank)/c.txt"
ledger_after "$E0" > "$TMP/s4.events"
LOCKER=$(jq -r 'select(.type == "lock.granted" and .data.pattern == "c.txt") | .agent' "$TMP/s4.events" | head -n 1)
EDITOR=$(jq -r 'select(.type == "workset.edit" and .data.path == "c.txt") | .agent' "$TMP/s4.events" | head -n 1)
as agents --json | jq --arg w "$(realpath "$(wt frank)")" '[.agents[] | select(.worktree == $w)]' > "$TMP/s4.agents"
check "4: the lock's holder ($LOCKER) is the agent the edit was reported by ($EDITOR)" \
    same "$LOCKER" "$EDITOR"
check "4: one agent in the session's worktree ($(jq -r 'map(.id + " " + .kind) | join(", ")' "$TMP/s4.agents"))" \
    jqt "$TMP/s4.agents" 'length == 1'
check "4: none of kind human" jqt "$TMP/s4.agents" 'all(.kind != "human")'
check "4: the session's agent is the lock's holder" jqt "$TMP/s4.agents" "map(.id) == [\"$LOCKER\"]"

# ---- 7. the session ended: its locks released, its agents gone ----
check "7: airspace init installs SessionEnd" jqt .gemini/settings.json '.hooks.SessionEnd | length == 1'
check "7: SessionEnd ran" grep -aq 'Hook execution for SessionEnd: 1 hooks executed successfully' "$TMP/s4.err"
# still_active: the session's lock is held, or agents registered since
# the session began are still active ($TMP/s7.left)
still_active() {
    ledger_after "$E0" | jq -r 'select(.type == "agent.registered") | .data.id' | sort -u > "$TMP/s7.registered"
    as agents --json | jq -r '.agents[] | select(.status == "active") | .id' | sort > "$TMP/s7.active"
    comm -12 "$TMP/s7.registered" "$TMP/s7.active" > "$TMP/s7.left"
    holds c.txt || [ -s "$TMP/s7.left" ]
}
n=0
while still_active && [ $n -lt 50 ]; do # SessionEnd is not waited for
    sleep 0.2
    n=$((n + 1))
done
check "7: the session's lock is released" not holds c.txt
ledger_after "$E0" > "$TMP/s7.events"
check "7: with a lock.released event" \
    jq -se 'any(.[]; (.type == "lock.released" or .type == "lock.released_all") and (tostring | test("c.txt")))' "$TMP/s7.events" > /dev/null
check "7: the session's agents are gone ($(tr '\n' ' ' < "$TMP/s7.left")still active)" \
    [ ! -s "$TMP/s7.left" ]

# ---- 8. parked work: A's session of 3 ended with its change to b.txt
# still in its worktree, not landed; a new session in another
# worktree about to change line 7 is held once, told whose lines those
# are and that they are parked ----
as agent new gina > "$TMP/wt.gina" 2>> "$TMP/agent-new.err"
gemini_trust "$(wt gina)"
as agents --json > "$TMP/agents8.json"
check "8: the ended session's agent in dave's worktree is parked ($(jq -c '[.agents[] | {id, status, parked}]' "$TMP/agents8.json"))" \
    jqt "$TMP/agents8.json" "[.agents[] | select(.parked) | .worktree] | index(\"$(realpath "$(wt dave)")\") != null"
cat > "$TMP/s8.json" << 'JSON'
{"steps": [
  {"tool": "replace", "input": {"file_path": "b.txt", "instruction": "upper-case line 7",
    "old_string": "line7\n", "new_string": "LINE7\n"}},
  {"text": "left it"}]}
JSON
gemini_run s8 "$(wt gina)" "$TMP/s8.json" -p "Change line 7 of b.txt" --approval-mode yolo
check "8: the session ran (rc $GEMINI_RC)" [ "$GEMINI_RC" = 0 ]
gemini_result s8 0 > "$TMP/s8.r0"
check "8: the edit near parked lines is held ($(head -c 400 "$TMP/s8.r0"))" \
    jq -e '.error | test("blocked")' "$TMP/s8.r0" > /dev/null
check "8: the model is told dave's lines are parked" \
    sh -c 'grep -q "parked: not active now, its work not landed) has changed lines 5-6 of b.txt" "$1"' _ "$TMP/s8.r0"
check "8: ... naming dave's agent" mentions "$TMP/s8.r0" dave
check "8: b.txt is unchanged in gina's worktree" git -C "$(wt gina)" diff --quiet -- b.txt

# ---- 5. no hook or MCP error or warning; every installed event ran ----
for s in s1 s2 s3a s3b s4 s8; do
    # (the message bus's dumps of tool calls carry the tools' own texts;
    # what a hook prints that is not JSON shows as its "system message")
    grep -av '^\[MESSAGE_BUS\]' "$TMP/$s.err" | grep -anE 'Hook\(s\) \[|Hook execution error|[0-9]+ failed \(|Discarding invalid hook|Invalid hook|Hook configuration error|missing command|not an array|timed out|\[MCP error\]|MCP issues|Error (connecting to|during discovery|closing MCP|refreshing MCP)|MCP tool .* failed|output schema|structured content|Truncating MCP|MCP server .*Skipping|\[WARNING\]|Hook system message: [^a]' \
        > "$TMP/$s.bad" || true
    check "5: $s: no hook or MCP error or warning ($(head -c 300 "$TMP/$s.bad"))" [ ! -s "$TMP/$s.bad" ]
done
for ev in $(jq -r '.hooks | keys[]' .gemini/settings.json); do
    check "5: $ev ran without error" sh -c \
        'cat "$@" | grep -aq "Hook execution for '"$ev"': 1 hooks executed successfully"' _ \
        "$TMP/s1.err" "$TMP/s2.err" "$TMP/s3a.err" "$TMP/s3b.err" "$TMP/s4.err" "$TMP/s8.err"
done

echo "t62: $(($(date +%s) - T0)) s with the client"
finish

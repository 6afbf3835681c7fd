# t61-codex.sh - the real Codex CLI (pinned in tests/clients) against a
# scripted model server on loopback, in a repository set up as a user sets
# it up: git init, a commit, `airspace init --codex` (committed, so the
# agents' worktrees have it), `airspace agent new alice` and `bob`, the
# daemon started by `airspace status`, and `codex exec` sessions in the
# worktrees. What is asserted is what the model was told (the model
# server's request log) and what the repository and the daemon hold.
#
#   S1 an edit of a file another agent holds is denied, by apply_patch and
#      by shell writes; the model is told the holder; the file is unchanged
#   S2 the user's permissions stay in force: a read-only sandbox still
#      refuses writes airspace does not deny, and airspace's PreToolUse
#      answer is not one Codex rejects ("allow" is unsupported there)
#   S3 traffic: bob's session, about to patch lines near the ones alice's
#      session changed, is warned naming alice's agent, the file and the
#      lines; alice's session is told about bob's too
#   S4 one identity per session: a lock taken through the MCP tool, then
#      an edit of the file in the same session, is allowed; commit and land
#      through MCP work; each session is one agent (sessions one after
#      another in alice's worktree are agent alice, concurrent ones in two
#      worktrees are two), nothing is of kind human; the MCP tools are
#      callable under Codex's default approval settings
#   S5 no hook fails and no hook warning, for every event airspace installs
#   S6 every apply_patch shape Codex 0.169 sends is parsed: the freeform
#      tool (tool_input.command is the patch), a here-document through the
#      shell (tool_name Bash), the same after a cd; a freeform patch is
#      reported with its lines
#   S7 the end of a session releases its locks (with events) and its agent
#      leaves; `airspace init --codex` installs SessionEnd
#   S8 parked work: once alice's session of S3 ended with its change not
#      landed, a new session in carol's worktree patching near those lines
#      is held once, told whose lines they are and that they are parked
. "$(dirname "$0")/lib.sh"
. "${AIRSPACE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/clients/lib-codex.sh"

if ! codex_available; then
    echo "SKIP: the pinned Codex CLI $CODEX_PIN is not installed (scripts/setup.sh --clients)"
    exit 0
fi

R="$TMP/proj"
[ -z "${AIRSPACE_TEST_KEEP:-}" ] || echo "keeping $TMP" >&2
# a user's git identity lives in ~/.gitconfig: Codex passes its MCP servers
# HOME, not the GIT_AUTHOR_* variables
git config --global user.name tester
git config --global user.email t@example.invalid
new_repo "$R"
mkdir -p "$R/lib" "$R/src"
printf 'held one\nheld two\nheld three\n' > "$R/lib/held.txt"
i=1
while [ $i -le 30 ]; do
    printf 'v%02d = %d\n' $i $i
    i=$((i + 1))
done > "$R/src/app.py"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
as init --codex > /dev/null
git add .codex
git commit -qm "airspace for codex"
ALICE=$(as agent new alice 2> /dev/null)
BOB=$(as agent new bob 2> /dev/null)
ALICE=$(cd "$ALICE" && pwd -P)
BOB=$(cd "$BOB" && pwd -P)
as status > /dev/null
SOCK="$(git rev-parse --git-common-dir)/airspace/sock"
case $SOCK in /*) ;; *) SOCK="$R/$SOCK" ;; esac
trap 'cd /; "$AIRSPACE_BIN" stop --repo "$R" > /dev/null 2>&1 || :; [ -n "${AIRSPACE_TEST_KEEP:-}" ] || rm -rf "$TMP"' EXIT
codex_home "$(pwd -P)" "$ALICE" "$BOB"
ORIG_HELD=$(cat "$ALICE/lib/held.txt")

# ---- helpers ----

jqe() { # jqe FILTER FILE: the filter holds
    jq -e "$1" "$2" > /dev/null
}

# the daemon's last event id; the distinct agents that acted in events
# after id $1 in worktree $2 (registered, told their prompt, locked,
# reported an edit): the session's identities
last_event() {
    as log --json --limit 100000 | jq '[.events[].id] | max // 0'
}
acting_agents() {
    as log --json --limit 100000 > "$TMP/all-events.json"
    as log --json --after "$1" --limit 100000 > "$TMP/events.json"
    as agents --json > "$TMP/agents.json"
    # an agent is in the worktree its registrations after $1 name (one id
    # registered from two worktrees is in both); without one there, in its
    # last registered worktree, else the one listed now
    jq -r --arg w "$2" --slurpfile all "$TMP/all-events.json" --slurpfile a "$TMP/agents.json" '
        (($all[0].events | map(select(.type == "agent.registered" or .type == "agent.discovered") |
                               {(.agent): .data.worktree}) | add) // {}) as $reg |
        (($a[0].agents | map({(.id): .worktree}) | add) // {}) as $now |
        (reduce (.events[] | select(.type == "agent.registered")) as $e ({};
            .[$e.agent] += [$e.data.worktree])) as $here |
        [.events[] | select(.type == "agent.registered" or .type == "prompt.topics" or
                            .type == "lock.granted" or .type == "workset.edit") | .agent] | unique |
        map(select(if $here[.] then ($here[.] | index($w)) != null
                   else ($reg[.] // $now[.]) == $w end)) | .[]' "$TMP/events.json"
}
# the output the model got for the session's call number $2 (from 0)
call_output() {
    codex_calls "$1" | jq -r ".[$2].output // \"\""
}
# a script file from the steps given as JSON lines
script() {
    jq -s '{steps: .}' > "$TMP/$1.json"
    echo "$TMP/$1.json"
}
heredoc_patch() { # heredoc_patch PREFIX FILE LINE: an exec_command step whose
    # command is PREFIX, then apply_patch in a here-document changing LINE of FILE
    cmd=$(printf "%sapply_patch <<'EOF'\n*** Begin Patch\n*** Update File: %s\n@@\n-%s\n+%s (changed)\n*** End Patch\nEOF\n" "$1" "$2" "$3" "$3")
    jq -nc --arg c "$cmd" '{tool: "exec_command", input: {cmd: $c, yield_time_ms: 5000}}'
}

# ---- S1, S6: bob holds lib/held.txt; alice's session tries every write ----
(cd "$BOB" && as lock --reason "bob rewrites it" lib/held.txt > /dev/null)
S1=$(script s1 <<EOF
{"tool":"apply_patch","input":"*** Begin Patch\n*** Update File: lib/held.txt\n@@\n-held one\n+held 1\n*** End Patch\n"}
{"tool":"exec_command","input":{"cmd":"echo more >> lib/held.txt","yield_time_ms":5000}}
$(heredoc_patch "" lib/held.txt "held two")
$(heredoc_patch "cd lib && " held.txt "held three")
{"tool":"tool_search","input":{"query":"airspace status crew"}}
{"tool":"mcp__airspace__status","input":{}}
{"tool":"exec_command","input":{"cmd":"true","yield_time_ms":5000},"tokens":200000}
{"text":"done"}
EOF
)
E0=$(last_event)
codex_run s1 "$ALICE" "$S1" -c model_auto_compact_token_limit=20000 -- "change lib/held.txt"
ran() { # ran NAME SCRIPT: the session exited 0 having followed its script
    check "$1: codex exited 0 and followed its script" sh -c '[ "$(cat "$1")" = 0 ]' _ "$CODEX_DIR/$1.rc"
    check "$1: ... to the end" codex_followed "$1" "$2"
}
ran s1 "$S1"
for k in 0 1 2 3; do
    what=$(codex_calls s1 | jq -r ".[$k] | .name + \": \" + (.input | tostring | gsub(\"\\\\s+\"; \" \") | .[0:48])" | tr -d '\\')
    check "S1/S6: call $k ($what) denied, the model told bob holds it" \
        sh -c 'printf "%s" "$1" | grep -q "blocked by PreToolUse hook" && printf "%s" "$1" | grep -q "bob"' \
        _ "$(call_output s1 $k)"
done
check "S1: lib/held.txt unchanged in alice's worktree" [ "$(cat "$ALICE/lib/held.txt")" = "$ORIG_HELD" ]
check "S4: the MCP status tool is callable under Codex's default approval (no approval required)" \
    sh -c '[ -n "$1" ] && ! printf "%s" "$1" | grep -q "requires approval"' _ "$(call_output s1 5)"
S1_AGENTS=$(acting_agents "$E0" "$ALICE")

# ---- S2: a read-only sandbox (the user's choice) still refuses writes ----
S2=$(script s2 <<'EOF'
{"tool":"apply_patch","input":"*** Begin Patch\n*** Add File: lib/ro1.txt\n+x\n*** End Patch\n"}
{"tool":"exec_command","input":{"cmd":"echo x > lib/ro2.txt","yield_time_ms":5000}}
{"text":"done"}
EOF
)
E1=$(last_event)
codex_run s2 "$ALICE" "$S2" -s read-only -- "add two files"
ran s2 "$S2"
check "S2: the read-only sandbox refused the patch" [ ! -e "$ALICE/lib/ro1.txt" ]
check "S2: ... and the shell write" [ ! -e "$ALICE/lib/ro2.txt" ]
check "S2: the PreToolUse hook ran for both" [ "$(grep -c '^hook: PreToolUse$' "$CODEX_DIR/s2.err")" -ge 2 ]
check "S2: airspace's PreToolUse answer is one Codex accepts (no 'allow': unsupported, the hook fails)" \
    [ "$(grep -c '^hook: PreToolUse Failed' "$CODEX_DIR/s2.err")" = 0 ]
S2_AGENTS=$(acting_agents "$E1" "$ALICE")

# ---- S4, S7: MCP lock, edit, commit, land; then the session ends ----
S4=$(script s4 <<'EOF'
{"tool":"tool_search","input":{"query":"airspace lock commit land"}}
{"tool":"mcp__airspace__lock","input":{"patterns":["lib/s4.txt"],"reason":"s4"}}
{"tool":"apply_patch","input":"*** Begin Patch\n*** Add File: lib/s4.txt\n+from s4\n*** End Patch\n"}
{"tool":"mcp__airspace__commit","input":{"message":"s4: add lib/s4.txt"}}
{"tool":"mcp__airspace__land","input":{}}
{"text":"done"}
EOF
)
E2=$(last_event)
# with the approvals a person gives these tools by answering "always allow"
codex_run s4 "$ALICE" "$S4" -c 'mcp_servers.airspace.tools.lock.approval_mode="approve"' \
    -c 'mcp_servers.airspace.tools.commit.approval_mode="approve"' \
    -c 'mcp_servers.airspace.tools.land.approval_mode="approve"' -- "add lib/s4.txt, commit and land it"
ran s4 "$S4"
check "S4: the MCP lock was granted" sh -c 'printf "%s" "$1" | grep -q granted' _ "$(call_output s4 1)"
check "S4: the session's own edit of the file it locked is allowed" [ -f "$ALICE/lib/s4.txt" ]
check "S4: the MCP commit committed it on alice's branch" git -C "$ALICE" cat-file -e HEAD:lib/s4.txt
check "S4: the MCP land put it on main" git -C "$R" cat-file -e main:lib/s4.txt
S4_AGENTS=$(acting_agents "$E2" "$ALICE")
check "S4: session s4 is one agent (got: $(echo $S4_AGENTS))" [ "$(echo "$S4_AGENTS" | grep -c .)" = 1 ]
check "S4: session s1 is one agent (got: $(echo $S1_AGENTS))" [ "$(echo "$S1_AGENTS" | grep -c .)" = 1 ]
# one after another in the worktree `agent new alice` made, each session
# is that worktree's agent (concurrent sessions are two agents: S3 below)
check "S4: sessions s1, s2, s4, one after another in alice's worktree, are agent alice" \
    [ "$(printf '%s\n%s\n%s\n' "$S1_AGENTS" "$S2_AGENTS" "$S4_AGENTS" | grep . | sort -u)" = alice ]
as log --json --after "$E2" --limit 100000 > "$TMP/events.json"
HOLDER=$(jq -r '[.events[] | select(.type == "lock.granted" and .data.pattern == "lib/s4.txt") | .data.holder][0] // ""' "$TMP/events.json")
check "S4: the lock's holder (${HOLDER:-none}) is the session's agent" [ "${HOLDER:-none}" = "$S4_AGENTS" ]
# S7: the session is over
n=0
while [ $n -lt 30 ]; do
    as locks --json > "$TMP/locks.json"
    jqe '[.locks[] | select(.pattern == "lib/s4.txt")] | length == 0' "$TMP/locks.json" && break
    sleep 0.1
    n=$((n + 1))
done
check "S7: after the session, its lock on lib/s4.txt is released" \
    jqe '[.locks[] | select(.pattern == "lib/s4.txt")] | length == 0' "$TMP/locks.json"
as log --json --after "$E2" --limit 100000 > "$TMP/events.json"
check "S7: with a release event" jqe '[.events[] | select((.type | startswith("lock.released")) and .data.pattern == "lib/s4.txt")] | length >= 1' "$TMP/events.json"
as agents --json > "$TMP/agents.json"
for a in $(printf '%s\n' $S1_AGENTS $S2_AGENTS $S4_AGENTS | sort -u); do
    check "S7: the ended session's agent $a is no longer active" \
        jqe "[.agents[] | select(.id == \"$a\" and .status == \"active\")] | length == 0" "$TMP/agents.json"
done
check "S7: airspace init --codex installs SessionEnd (Codex $CODEX_PIN has it)" jqe '.hooks.SessionEnd | length >= 1' "$R/.codex/hooks.json"
check "S4: no agent is of kind human" jqe '[.agents[] | select(.kind == "human")] | length == 0' "$TMP/agents.json"

# ---- S3, S6: alice's session changes lines 10-12 of src/app.py; bob's,
# running at the same time, patches line 14 ----
FLAG="$TMP/alice-may-go-on"
A=$(script s3a <<EOF
{"tool":"apply_patch","input":"*** Begin Patch\n*** Update File: src/app.py\n@@\n v09 = 9\n-v10 = 10\n-v11 = 11\n-v12 = 12\n+v10 = 100\n+v11 = 110\n+v12 = 120\n v13 = 13\n*** End Patch\n"}
{"tool":"exec_command","input":{"cmd":"i=0; while [ ! -e '$FLAG' ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done","yield_time_ms":30000}}
{"tool":"exec_command","input":{"cmd":"true","yield_time_ms":5000}}
{"text":"done"}
EOF
)
B=$(script s3b <<'EOF'
{"tool":"apply_patch","input":"*** Begin Patch\n*** Update File: src/app.py\n@@\n v13 = 13\n-v14 = 14\n+v14 = 140\n v15 = 15\n*** End Patch\n"}
{"text":"done"}
EOF
)
E3=$(last_event)
codex_start s3a "$ALICE" "$A" -- "change v10 to v12"
# alice's patch is made and reported once her model is asked again
n=0
until [ "$(cat "$CODEX_DIR/s3a.log" 2> /dev/null | grep -c '"side":false' || :)" -ge 2 ] || [ $n -gt 300 ]; do
    sleep 0.1
    n=$((n + 1))
done
codex_run s3b "$BOB" "$B" -- "change v14"
touch "$FLAG"
codex_wait s3a
ran s3a "$A"
ran s3b "$B"
A_AGENTS=$(acting_agents "$E3" "$ALICE")
B_AGENTS=$(acting_agents "$E3" "$BOB")
check "S3: alice's patch was applied" grep -q '^v10 = 100$' "$ALICE/src/app.py"
as log --json --after "$E3" --limit 100000 > "$TMP/events.json"
check "S6: alice's freeform patch was reported (workset.edit src/app.py)" \
    jqe '[.events[] | select(.type == "workset.edit" and .data.path == "src/app.py")] | length >= 1' "$TMP/events.json"
codex_told s3b > "$TMP/told-b"
told_names() { # told_names FILE AGENTS...: the text names one of the agents
    f=$1
    shift
    for a in "$@"; do grep -q -- "$a" "$f" && return 0; done
    return 1
}
check "S3: bob's model is warned naming alice's agent ($(echo $A_AGENTS))" told_names "$TMP/told-b" $A_AGENTS
check "S3: ... and the file" grep -q 'src/app.py' "$TMP/told-b"
check "S3: ... and alice's lines (10-12)" grep -q -E '(lines? |L)1[0-2]\b|\b1[0-2] ?(-|–|to) ?1[0-2]\b' "$TMP/told-b"
codex_told s3a > "$TMP/told-a"
check "S3: alice's model is told about bob's change ($(echo $B_AGENTS))" told_names "$TMP/told-a" $B_AGENTS
distinct() { # distinct A B: both non-empty, no agent in both
    [ -n "$1" ] && [ -n "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort | uniq -d | grep -c .)" = 0 ]
}
check "S4: concurrent sessions in alice's and bob's worktrees are distinct agents" distinct "$A_AGENTS" "$B_AGENTS"
PROMPTERS=$(jq -r '[.events[] | select(.type == "prompt.topics") | .agent] | unique | join(" ")' "$TMP/events.json")
check "S4: ... their prompts came from two agents (got: $PROMPTERS)" [ "$(echo $PROMPTERS | wc -w)" = 2 ]
check "S4: session s3a is one agent (got: $(echo $A_AGENTS))" [ "$(echo "$A_AGENTS" | grep -c .)" = 1 ]
check "S4: session s3b is one agent (got: $(echo $B_AGENTS))" [ "$(echo "$B_AGENTS" | grep -c .)" = 1 ]

# ---- S8: parked work: the sessions of S3 ended with their changes to
# src/app.py still in their worktrees, not landed; a new session in
# carol's worktree about to patch line 11 is held once, told whose lines
# those are and that they are parked ----
CAROL=$(as agent new carol 2> /dev/null)
CAROL=$(cd "$CAROL" && pwd -P)
as agents --json > "$TMP/agents8.json"
check "S8: the ended session in alice's worktree, its work left there, is parked ($(jq -c "[.agents[] | {id, status, parked, worktree}]" "$TMP/agents8.json"))" \
    jqe "[.agents[] | select(.parked) | .worktree] | index(\"$ALICE\") != null" "$TMP/agents8.json"
C8=$(script s8 <<'EOF'
{"tool":"apply_patch","input":"*** Begin Patch\n*** Update File: src/app.py\n@@\n v10 = 10\n-v11 = 11\n+v11 = 1100\n v12 = 12\n*** End Patch\n"}
{"text":"left it"}
EOF
)
codex_run s8 "$CAROL" "$C8" -- "change v11"
ran s8 "$C8"
out8=$(call_output s8 0)
check "S8: the patch near parked lines is held, the model told ($out8)" \
    sh -c 'printf "%s" "$1" | grep -q "blocked by PreToolUse hook"' _ "$out8"
check "S8: ... that their agent is parked, with its lines and the file" \
    sh -c 'printf "%s" "$1" | grep -q "parked: not active now, its work not landed) has changed lines 10-12 of src/app.py"' _ "$out8"
check "S8: carol's file is unchanged" grep -q '^v11 = 11$' "$CAROL/src/app.py"

# ---- S5: across every session ----
cat "$CODEX_DIR"/*.err > "$TMP/all.err"
check "S5: no hook failed ($(grep -E '^hook: [A-Za-z]+ Failed' "$TMP/all.err" | sort | uniq -c | tr -s ' ' | paste -sd, -))" \
    [ "$(grep -c -E '^hook: [A-Za-z]+ Failed' "$TMP/all.err")" = 0 ]
check "S5: no hook or MCP warning ($(grep -i -E '^warning:.*(hook|mcp)' "$TMP/all.err" | grep -v -- '--dangerously-bypass-hook-trust' | sort -u | head -3 | paste -sd'|' -))" \
    [ "$(grep -i -E '^warning:.*(hook|mcp)' "$TMP/all.err" | grep -v -c -- '--dangerously-bypass-hook-trust')" = 0 ]
check "S5: no MCP error ($(grep -i -E '^mcp:.*fail|mcp.*error' "$TMP/all.err" | sort | uniq -c | tr -s ' ' | paste -sd, -))" \
    [ "$(grep -c -i -E '^mcp:.*fail|mcp.*error' "$TMP/all.err")" = 0 ]
for ev in $(jq -r '.hooks | keys[]' "$R/.codex/hooks.json"); do
    [ "$ev" = SessionEnd ] && continue # exec prints nothing for it
    check "S5: the installed $ev hook ran and completed" grep -q -E "^hook: $ev (Completed|Blocked)\$" "$TMP/all.err"
done
finish

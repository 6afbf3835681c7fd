# t128-codex-discard.sh - the real Codex CLI (the pinned version,
# tests/clients) is kept from throwing away work that is not its own: t127
# with Codex. Two `codex exec` sessions at once in the main checkout, set
# up as a user does (`airspace init --codex`), offline against the
# scripted model server: session A patches src/a.txt (apply_patch) and
# stays busy (a shell command waiting for the test); the person has typed
# in src/h.txt; session B patches src/c.txt, then runs `git stash` through
# its shell tool (exec_command; the hook sees tool_name Bash). B's command
# is denied: the tool output the model gets names "would throw away", A's
# agent and its file, the person and theirs; nothing was stashed, every
# change is still there. So is `git checkout -- a.txt` run in src/ (the
# call's workdir, which Codex gives the hook as its cwd). B's own `git
# checkout -- src/c.txt` goes through and undoes its change. No hook run
# failed (an answer Codex rejects is "hook: PreToolUse Failed" on its
# stderr). A is registered by its own real session (two sessions of
# Codex run at once in one directory), not by hook JSON.
# B runs with `-s danger-full-access`, as a user lets an agent run git:
# Codex's default sandbox (workspace-write) keeps .git read-only, where
# git itself fails on the index lock (`git checkout -- FILE` too), and
# could not show that the discard is stopped by the hook alone.
# Skipped (exit 0, SKIP) when the pinned client is not installed.
. "$(dirname "$0")/lib.sh"
. "${AIRSPACE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/clients/lib-codex.sh"

if ! codex_available; then
    echo "SKIP: the pinned Codex CLI $CODEX_PIN is not installed (scripts/setup.sh --clients)"
    exit 0
fi
T0=$(date +%s)
R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
for f in a c h; do printf 'one\ntwo\nthree\n' > "$R/src/$f.txt"; done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
as init --codex > "$TMP/init.out"
git add .codex
git commit -qm "airspace for codex"
printf '[daemon]\n\ttick-ms = 100\n\tdebounce-ms = 50\n\trescan-ms = 60000\n' > .git/airspace/config
as status > /dev/null
FLAG="$TMP/a-may-go-on"
trap 'touch "$FLAG"; cd /; as stop --repo "$R" > /dev/null 2>&1 || :
    [ -z "${AIRSPACE_TEST_KEEP:-}" ] || cp -a "$TMP/." "$AIRSPACE_TEST_KEEP/"
    rm -rf "$TMP"' EXIT
codex_home "$(pwd -P)"
sed -i '3s/.*/typed by the person/' src/h.txt

# script NAME: a script file from the steps given as JSON lines
script() {
    jq -s '{steps: .}' > "$TMP/$1.json"
    echo "$TMP/$1.json"
}
# the output the model got for the session's call number $2 (from 0)
call_output() {
    codex_calls "$1" | jq -r ".[$2].output // \"\""
}
# owner PATH KIND: the id of the active agent of kind KIND (agent, human)
# that has PATH changed, as the daemon has it
owner() {
    as api GET '/v1/agents?files=1' 2> /dev/null |
        jq -r --arg p "$1" --arg k "$2" '[.agents[] | select(.kind == $k and .status != "exited" and
            any(.files[]?; .path == $p)) | .id][0] // empty'
}
has_owner() { [ -n "$(owner "$1" "$2")" ]; }
wait_for() { # wait_for SECONDS COMMAND...
    wl=$(($1 * 10))
    shift
    wn=0
    until "$@"; do
        wn=$((wn + 1))
        [ $wn -lt $wl ] || return 1
        sleep 0.1
    done
}

# session A: a patch, then a shell command that keeps it in the air
A=$(script a <<EOF
{"tool":"apply_patch","input":"*** Begin Patch\n*** Update File: src/a.txt\n@@\n one\n-two\n+TWO by A\n three\n*** End Patch\n"}
{"tool":"exec_command","input":{"cmd":"i=0; while [ ! -e '$FLAG' ] && [ \$i -lt 400 ]; do sleep 0.1; i=\$((i+1)); done","yield_time_ms":45000}}
{"text":"done"}
EOF
)
codex_start a "$R" "$A" -- "edit src/a.txt"
wait_for 40 has_owner src/a.txt agent || :
AID=$(owner src/a.txt agent)
check "session A patched src/a.txt and flies (${AID:-no agent has it})" \
    sh -c '[ -n "$1" ] && grep -q "TWO by A" src/a.txt' _ "$AID"

# session B: its own patch, git stash (denied), a checkout of A's file
# from src/ (denied), its own checkout (allowed)
B=$(script b <<'EOF'
{"tool":"apply_patch","input":"*** Begin Patch\n*** Update File: src/c.txt\n@@\n one\n-two\n+TWO by B\n three\n*** End Patch\n"}
{"tool":"exec_command","input":{"cmd":"git stash","yield_time_ms":10000}}
{"tool":"exec_command","input":{"cmd":"git checkout -- a.txt","workdir":"src","yield_time_ms":10000}}
{"tool":"exec_command","input":{"cmd":"git checkout -- src/c.txt","yield_time_ms":10000}}
{"text":"done"}
EOF
)
codex_run b "$R" "$B" -s danger-full-access -- "tidy up"
# the person is one of the crew once a second session shares the checkout
# (and leaves with B, the checkout A's alone again: the ledger says who)
HUMAN=$(as log --type agent.discovered --json | jq -r '[.events[] | select(.data.kind == "human") | .agent][0] // empty')
check "the person at the keyboard is known (${HUMAN:-nobody})" [ -n "$HUMAN" ]
check "session B: codex exited 0 ($(cat "$CODEX_DIR/b.rc"))" [ "$(cat "$CODEX_DIR/b.rc")" = 0 ]
check "session B: ... having followed its script" codex_followed b "$B"
r=$(call_output b 0)
check "B's patch of its own file went through ($(printf '%s' "$r" | head -c 200))" \
    sh -c '[ -n "$1" ] && ! printf "%s" "$1" | grep -q "blocked by PreToolUse hook"' _ "$r"
r=$(call_output b 1)
check "the model is told git stash was blocked ($(printf '%s' "$r" | head -c 600))" \
    sh -c 'printf "%s" "$1" | grep -q "Command blocked by PreToolUse hook"' _ "$r"
for w in "would throw away" "'${AID:-?}' (src/a.txt)" "'${HUMAN:-?}' (src/h.txt)"; do
    check "... saying $w" sh -c 'printf "%s" "$1" | grep -qF -- "$2"' _ "$r" "$w"
done
check "... and not B's own file" sh -c '! printf "%s" "$1" | grep -q "src/c.txt"' _ "$r"
check "nothing was stashed" [ -z "$(git stash list)" ]
check "A's and the person's changes are there" sh -c 'grep -q "TWO by A" src/a.txt && grep -q person src/h.txt'
# Codex gives the hook a call's workdir as its cwd
r=$(call_output b 2)
check "B's git checkout -- a.txt in src/ (exec_command workdir) is blocked, naming A and src/a.txt ($(printf '%s' "$r" | head -c 300))" \
    sh -c 'printf "%s" "$1" | grep -q "Command blocked by PreToolUse hook" &&
        printf "%s" "$1" | grep -qF -- "$2"' _ "$r" "'${AID:-?}' (src/a.txt)"
check "... and src/a.txt keeps A's change" grep -q "TWO by A" src/a.txt
r=$(call_output b 3)
check "B's checkout of its own file went through ($(printf '%s' "$r" | head -c 300))" \
    sh -c '[ -n "$1" ] && ! printf "%s" "$1" | grep -q "blocked by PreToolUse hook"' _ "$r"
check "... and undid B's change" sh -c '[ "$(sed -n 2p src/c.txt)" = two ]'
check "B's PreToolUse hook blocked twice" [ "$(grep -c '^hook: PreToolUse Blocked$' "$CODEX_DIR/b.err")" = 2 ]

touch "$FLAG"
codex_wait a
check "session A: codex exited 0 ($(cat "$CODEX_DIR/a.rc"))" [ "$(cat "$CODEX_DIR/a.rc")" = 0 ]
check "session A: ... having followed its script" codex_followed a "$A"
check "A's change outlived B's session" grep -q "TWO by A" src/a.txt
cat "$CODEX_DIR"/a.err "$CODEX_DIR"/b.err > "$TMP/all.err"
check "no hook failed ($(grep -E '^hook: [A-Za-z]+ Failed' "$TMP/all.err" | sort | uniq -c | tr -s ' ' | paste -sd, -))" \
    [ "$(grep -c -E '^hook: [A-Za-z]+ Failed' "$TMP/all.err")" = 0 ]
check "no hook warning ($(grep -i -E '^warning:.*hook' "$TMP/all.err" | grep -v -- '--dangerously-bypass-hook-trust' | sort -u | head -3 | paste -sd'|' -))" \
    [ "$(grep -i -E '^warning:.*hook' "$TMP/all.err" | grep -v -c -- '--dangerously-bypass-hook-trust')" = 0 ]
echo "t128: $(($(date +%s) - T0)) s with the client"
finish

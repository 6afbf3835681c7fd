# t129-gemini-discard.sh - the real Gemini CLI (the pinned version,
# tests/clients) is kept from throwing away work that is not its own: t127
# with Gemini. Two headless sessions at once in the main checkout, set up
# as a user does (`airspace init --gemini`, the checkout trusted),
# offline against the scripted model server: session A changes src/a.txt
# (replace) and stays busy (a shell command waiting for the test); the
# person has typed in src/h.txt; session B changes src/c.txt, then runs
# `git stash` through run_shell_command. The BeforeTool hook denies it:
# the tool result the model gets names "would throw away", A's agent and
# its file, the person and theirs; nothing was stashed, every change is
# still there. So is `git checkout -- a.txt` with dir_path src (the
# directory the shell tool runs the command in, given in tool_input). B's
# own `git checkout -- src/c.txt` goes through and undoes its change. The
# client's debug output shows no hook error. A is registered by its own
# real session (two sessions of Gemini run at once in one directory), not
# by hook JSON.
# Skipped (exit 0, SKIP) when the pinned client is not installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../clients/lib-gemini.sh"

if ! gemini_available; then
    echo "SKIP: the pinned Gemini CLI $GEMINI_PIN is not installed (scripts/setup.sh --clients)"
    exit 0
fi
T0=$(date +%s)
gemini_home
R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/@scope"
for f in a c h @scope/d; do printf 'one\ntwo\nthree\n' > "$R/src/$f.txt"; done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
as init --gemini > "$TMP/init.out"
git add .gemini
git commit -qm "airspace for gemini"
printf '[daemon]\n\ttick-ms = 100\n\tdebounce-ms = 50\n\trescan-ms = 60000\n' > .git/airspace/config
as status > /dev/null
FLAG="$TMP/a-may-go-on"
trap 'touch "$FLAG"; cd /; as stop --repo "$R" > /dev/null 2>&1 || :
    for p in "$TMP"/*.server.pid; do kill "$(cat "$p")" 2> /dev/null || :; done
    [ -z "${AIRSPACE_TEST_KEEP:-}" ] || cp -a "$TMP/." "$AIRSPACE_TEST_KEEP/"
    rm -rf "$TMP"' EXIT
gemini_trust "$(pwd -P)"
sed -i '3s/.*/typed by the person/' src/h.txt
sed -i '3s/.*/typed by the person/' src/@scope/d.txt

# owner PATH: the id of the active agent (not the person) that has PATH
# changed, as the daemon has it
owner() {
    as api GET '/v1/agents?files=1' 2> /dev/null |
        jq -r --arg p "$1" '[.agents[] | select(.kind == "agent" and .status != "exited" and
            any(.files[]?; .path == $p)) | .id][0] // empty'
}
has_owner() { [ -n "$(owner "$1")" ]; }
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
# result K: the tool result of session B's K-th tool call, one line
result() {
    gemini_result b "$1" | jq -r 'tostring | gsub("\n"; " ")'
}
# tells TEXT WORD...: TEXT holds every WORD
tells() {
    t=$1
    shift
    for w; do
        case $t in *"$w"*) ;; *) echo "  no '$w'" >&2; return 1 ;; esac
    done
}

# session A: an edit, then a shell command that keeps it in the air (a
# script: Gemini refuses a command holding $(( )) as command substitution)
cat > "$TMP/wait.sh" << EOF
i=0
until [ -e '$FLAG' ] || [ \$i -ge 400 ]; do sleep 0.1; i=\$((i + 1)); done
EOF
cat > "$TMP/a.json" << JSON
{"steps": [
  {"tool": "replace", "input": {"file_path": "src/a.txt", "instruction": "change line 2",
    "old_string": "two\n", "new_string": "TWO by A\n"}},
  {"tool": "run_shell_command", "input": {"command": "sh $TMP/wait.sh",
    "description": "wait for the build"}},
  {"text": "done"}]}
JSON
gemini_start a "$R" "$TMP/a.json" -p "Change line 2 of src/a.txt" --approval-mode yolo
wait_for 40 has_owner src/a.txt || :
AID=$(owner src/a.txt)
check "session A changed src/a.txt and flies (${AID:-no agent has it})" \
    sh -c '[ -n "$1" ] && grep -q "TWO by A" src/a.txt' _ "$AID"

# session B: its own edit, git stash (denied), a checkout of A's file
# from src/ (denied), its own checkout (allowed)
cat > "$TMP/b.json" << 'JSON'
{"steps": [
  {"tool": "replace", "input": {"file_path": "src/c.txt", "instruction": "change line 2",
    "old_string": "two\n", "new_string": "TWO by B\n"}},
  {"tool": "run_shell_command", "input": {"command": "git stash", "description": "put the changes aside"}},
  {"tool": "run_shell_command", "input": {"command": "git checkout -- a.txt", "dir_path": "src",
    "description": "undo a.txt"}},
  {"tool": "run_shell_command", "input": {"command": "git checkout -- src/c.txt", "description": "undo mine"}},
  {"text": "done"}]}
JSON
gemini_run b "$R" "$TMP/b.json" -p "Tidy up the checkout" --approval-mode yolo
check "session B ran (rc $GEMINI_RC)" [ "$GEMINI_RC" = 0 ]
check "... its script to the end" \
    [ "$(gemini_main b | jq -s '[.[] | select(.step != null)] | length')" -ge "$(jq '.steps | length' "$TMP/b.json")" ]
# (the ledger: the person leaves with B, the checkout A's alone again)
HUMAN=$(as log --type agent.discovered --json | jq -r '[.events[] | select(.data.kind == "human") | .agent][0] // empty')
check "the person at the keyboard is known (${HUMAN:-nobody})" [ -n "$HUMAN" ]
r=$(result 0)
check "B's edit of its own file went through ($(printf '%s' "$r" | head -c 200))" \
    sh -c '[ "$1" != null ] && ! printf "%s" "$1" | grep -q "\"error\""' _ "$r"
r=$(result 1)
check "git stash: the model is told it was blocked ($(printf '%s' "$r" | head -c 600))" \
    jq -e '.error | test("blocked")' > /dev/null << EOF
$(gemini_result b 1)
EOF
check "... that it would throw away A's and the person's changes, with their files" \
    tells "$r" "would throw away" "'${AID:-?}' (src/a.txt)" "'${HUMAN:-?}' (src/@scope/d.txt, src/h.txt)"
check "... and not B's own file" sh -c '! printf "%s" "$1" | grep -q "src/c.txt"' _ "$r"
check "nothing was stashed" [ -z "$(git stash list)" ]
r=$(result 2)
check "git checkout -- a.txt in dir_path src: blocked, naming A and src/a.txt ($(printf '%s' "$r" | head -c 300))" \
    tells "$r" "blocked" "would throw away" "'${AID:-?}' (src/a.txt)"
check "A's and the person's changes are there" sh -c 'grep -q "TWO by A" src/a.txt && grep -q person src/h.txt'
r=$(result 3)
check "B's checkout of its own file went through ($(printf '%s' "$r" | head -c 300))" \
    sh -c '[ "$1" != null ] && ! printf "%s" "$1" | grep -q "blocked"' _ "$r"
check "... and undid B's change" sh -c '[ "$(sed -n 2p src/c.txt)" = two ]'

# the crew update names src/@scope/d.txt (the person's): Gemini reads an
# "@word" of the prompt, hook context included, as a file to paste in,
# unless a backslash comes before it
check "the crew update reached B's model with the path as text" \
    sh -c 'gemini_main() { jq -c "select(.dialect == \"gemini\" and .side == false)" "$1"; }
        gemini_main "$1" | head -1 | grep -qF "src/\\\\@scope/d.txt"' _ "$TMP/b.log"
check "... and no file pasted into the prompt" sh -c '! grep -q "Content from referenced files" "$1"' _ "$TMP/b.log"

touch "$FLAG"
gemini_wait a
check "session A ran (rc $GEMINI_RC)" [ "$GEMINI_RC" = 0 ]
check "A's change outlived B's session" grep -q "TWO by A" src/a.txt
for s in a b; do
    grep -av '^\[MESSAGE_BUS\]' "$TMP/$s.err" | grep -anE 'Hook\(s\) \[|Hook execution error|[0-9]+ failed \(|Discarding invalid hook|Invalid hook|Hook configuration error|timed out|\[WARNING\]|Hook system message: [^a]' \
        > "$TMP/$s.bad" || true
    check "session $s: no hook error or warning ($(head -c 300 "$TMP/$s.bad"))" [ ! -s "$TMP/$s.bad" ]
done
check "B's BeforeTool hook ran for each call" \
    [ "$(grep -ac 'Hook execution for BeforeTool: 1 hooks executed successfully' "$TMP/b.err")" -ge 4 ]
echo "t129: $(($(date +%s) - T0)) s with the client"
finish

# t127-client-discard.sh - the real Claude Code client (the pinned version,
# tests/clients) is kept from throwing away work that is not its own. Two
# sessions in the main checkout, set up as a user does (`airspace init
# --claude-code`), offline against the scripted model server: session A
# edits src/a.txt and stays busy (a long shell command); the person has
# typed in src/h.txt; session B runs `git stash`. B's command is denied
# and the model told whose changes it would have thrown away (A's agent,
# the person) and with which files; nothing was stashed. B's own
# `git checkout -- FILE` of the file it changed goes through.
# Skipped (exit 0, SKIP) when the pinned client is not installed.
. "$(dirname "$0")/lib.sh"
: "${AIRSPACE_SOURCE_DIR:?AIRSPACE_SOURCE_DIR must point at the source tree}"
. "$AIRSPACE_SOURCE_DIR/tests/clients/lib-clients.sh"
. "$AIRSPACE_SOURCE_DIR/tests/clients/lib-claude.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
for f in a c h; do printf 'one\ntwo\nthree\n' > "$R/src/$f.txt"; done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
as init --claude-code > "$TMP/init.out"
printf '[daemon]\n\ttick-ms = 100\n\tdebounce-ms = 50\n\trescan-ms = 60000\n' > .git/airspace/config
as status > "$TMP/status.out"
trap 'as stop --repo "$R" > /dev/null 2>&1 || true
    [ -z "${AIRSPACE_KEEP:-}" ] || cp -a "$TMP/." "$AIRSPACE_KEEP/"
    rm -rf "$TMP"' EXIT
jq -n --arg r "$R" '{projects: {($r): {hasTrustDialogAccepted: true}}}' > "$HOME/.claude.json"
sed -i '3s/.*/typed by the person/' src/h.txt

# session A: an Edit, then a shell command that keeps it in the air
jq -n --arg f "$R/src/a.txt" '{steps: [
    {tool: "Read", input: {file_path: $f}},
    {tool: "Edit", input: {file_path: $f, old_string: "two", new_string: "TWO by A"}},
    {tool: "Bash", input: {command: "sleep 20", description: "wait"}},
    {text: "done"}]}' > "$TMP/a.script"
(cc a "$R" "edit a" --session-id "$(uuid)" --allowedTools Edit Bash) &
APID=$!
# A's agent, once the daemon has its Edit
owner_a() {
    as agents --json 2> /dev/null |
        jq -r '.agents[] | select(.kind == "agent" and .client == "claude-code" and .status == "active") | .id' | head -1
}
n=0
while ! grep -q "TWO by A" src/a.txt && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
AID=$(owner_a)
check "session A edited src/a.txt and flies ($AID)" [ -n "$AID" ]

# session B: its own Edit, git stash (denied), its own checkout (allowed)
jq -n --arg f "$R/src/c.txt" '{steps: [
    {tool: "Read", input: {file_path: $f}},
    {tool: "Edit", input: {file_path: $f, old_string: "two", new_string: "TWO by B"}},
    {tool: "Bash", input: {command: "git stash", description: "stash"}},
    {tool: "Bash", input: {command: "git checkout -- src/c.txt", description: "undo mine"}},
    {text: "done"}]}' > "$TMP/b.script"
cc b "$R" "tidy up" --session-id "$(uuid)" --allowedTools Edit Bash
check "session B ran" ran b
r=$(result "$TMP/b.log" '.tool == "Bash" and .input.command == "git stash"')
check "the model is told git stash failed ($r)" jt "$r" '.is_error == true'
HUMAN=$(as agents --json | jq -r '.agents[] | select(.kind == "human") | .id')
check "... naming A and its file, the person and theirs" says "$r" "would throw away" "$AID" "src/a.txt" "$HUMAN" "src/h.txt"
check "nothing was stashed" sh -c '[ -z "$(git stash list)" ] && grep -q "TWO by A" src/a.txt && grep -q person src/h.txt'
r=$(result "$TMP/b.log" '.tool == "Bash" and .input.command == "git checkout -- src/c.txt"')
check "B's checkout of its own file went through ($r)" jt "$r" '.is_error != true'
check "... and undid B's change" grep -qx two src/c.txt
wait "$APID" || true
check "session A ran to its end" ran a
finish

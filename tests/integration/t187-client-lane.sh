# t187-client-lane.sh - the real Claude Code client (the pinned version,
# tests/clients) is told before its first edit in another agent's lane:
# bob's session edits src/alice/a.c, in alice's lane; the Edit is held
# once (the model reads why: alice's lane, land refuses it), and the
# repeated Edit goes through (t186 with hook JSON). Skipped (exit 0, SKIP)
# when the pinned client is not installed.
. "$(dirname "$0")/lib.sh"
: "${AIRSPACE_SOURCE_DIR:?AIRSPACE_SOURCE_DIR must point at the source tree}"
. "$AIRSPACE_SOURCE_DIR/tests/clients/lib-clients.sh"
. "$AIRSPACE_SOURCE_DIR/tests/clients/lib-claude.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/alice" "$R/src/bob"
printf 'int a;\n' > "$R/src/alice/a.c"
printf 'int b;\n' > "$R/src/bob/b.c"
git -C "$R" add -A
git -C "$R" commit -qm base
claude_project "$R"
for a in alice bob; do as agent new $a > /dev/null 2>&1; done
WA="$R.airspace/alice" WB="$R.airspace/bob"
as api POST /v1/agents "{\"id\":\"alice\",\"client\":\"claude-code\",\"worktree\":\"$WA\",\"lanes\":[\"src/alice\"]}" > /dev/null

jq -n --arg f "$WB/src/alice/a.c" '{steps: [
    {tool: "Read", input: {file_path: $f}},
    {tool: "Edit", input: {file_path: $f, old_string: "int a;", new_string: "long a;"}},
    {tool: "Edit", input: {file_path: $f, old_string: "int a;", new_string: "long a;"}},
    {text: "done"}]}' > "$TMP/b.script"
cc b "$WB/src" "rework a" --session-id "$(uuid)" --allowedTools Edit
check "bob's session ran" ran b
r=$(ms_new_after "$TMP/b.log" '.tool == "Edit"' | jq -c '[.[] | .content? | arrays | .[] | select(.type == "tool_result")] | .[0] // {}')
check "the first Edit is held, the model told it is alice's lane ($r)" sh -c \
    'printf "%s" "$1" | jq -e ".is_error == true" > /dev/null && printf "%s" "$1" | grep -q "in the lane of .alice. (src/alice)"' x "$r"
check "the repeated Edit went through" grep -qx 'long a;' "$WB/src/alice/a.c"
finish

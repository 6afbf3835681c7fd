# t111-client-subdir.sh - the real Claude Code client (the pinned version,
# tests/clients) started below a worktree's top still runs airspace's
# hooks. The client reads project settings only from the directory it
# starts in, plus the main checkout's .claude/settings.local.json, which
# `airspace init --claude-code` fills too (docs/init.md). Set up as a user
# does (git init, commit, `airspace init --claude-code`, `airspace agent
# new`), run headless and offline against the scripted model server:
#  1. a session started in a subdirectory of an agent's worktree: its Edit
#     of a file another agent locked is denied, the model is told naming
#     the holder, the file is unchanged;
#  2. the same for a session started in a subdirectory of the main
#     checkout;
#  3. a session started at the worktree's top, which finds airspace's hooks
#     in both .claude/settings.json and the main checkout's
#     .claude/settings.local.json, runs each of them once.
# Skipped (exit 0, SKIP) when the pinned client is not installed.
. "$(dirname "$0")/lib.sh"
: "${AIRSPACE_SOURCE_DIR:?AIRSPACE_SOURCE_DIR must point at the source tree}"
. "$AIRSPACE_SOURCE_DIR/tests/clients/lib-clients.sh"
. "$AIRSPACE_SOURCE_DIR/tests/clients/lib-claude.sh"

# runs NAME EVENT: how many times the session ran airspace's hook for
# EVENT (e.g. "PreToolUse:Edit"), as its debug log tells
runs() {
    grep -cE " $2 \[$HOOKCMD\] (finished|completed)" "$TMP/$1.debug" || true
}

# ---- the repository, as a user sets it up ----
R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/sub"
printf 'one\ntwo\nthree\n' > "$R/src/sub/f.txt"
printf 'free\n' > "$R/src/sub/g.txt"
git -C "$R" add -A
git -C "$R" commit -qm base
claude_project "$R"
for a in alice bob; do as agent new $a > /dev/null 2>&1; done
WA="$R.airspace/alice" WB="$R.airspace/bob"
check "init wrote the hooks where a session below the top finds them" jqt "$R/.claude/settings.local.json" \
    "[.hooks[][] | .hooks[].command] | length == 7 and all(. == \"$HOOKCMD\")"

(cd "$WB" && as lock --reason "bob reworks f" src/sub/f.txt) > /dev/null
HOLDER=$(as locks --json | jq -r '.locks[] | select(.pattern == "src/sub/f.txt") | .holder')
check "bob's worktree holds src/sub/f.txt ($HOLDER)" [ -n "$HOLDER" ]

# denied NAME DIR WORKTREE: a session started in DIR edits WORKTREE's
# src/sub/f.txt: the edit is refused and the model told who holds it
denied() {
    jq -n --arg f "$3/src/sub/f.txt" '{steps: [
        {tool: "Read", input: {file_path: $f}},
        {tool: "Edit", input: {file_path: $f, old_string: "two", new_string: "TWO"}},
        {text: "could not"}]}' > "$TMP/$1.script"
    cc "$1" "$2" "rework f" --session-id "$(uuid)" --allowedTools Edit
    check "$1: the session ran" ran "$1"
    check "$1: airspace's hook checked the Edit" [ "$(runs "$1" PreToolUse:Edit)" -ge 1 ]
    r=$(result "$TMP/$1.log" '.tool == "Edit"')
    check "$1: the model is told the Edit failed ($r)" jt "$r" '.is_error == true'
    check "$1: ... naming the holder and the file" says "$r" "$HOLDER" "src/sub/f.txt"
    check "$1: f.txt is unchanged" git -C "$3" diff --quiet -- src/sub/f.txt
}

# ---- 1. a subdirectory of an agent's worktree ----
denied s1 "$WA/src/sub" "$WA"

# ---- 2. a subdirectory of the main checkout ----
denied s2 "$R/src" "$R"

# ---- 3. at the worktree's top: every hook once ----
jq -n --arg f "$WA/src/sub/g.txt" '{steps: [
    {tool: "Read", input: {file_path: $f}},
    {tool: "Edit", input: {file_path: $f, old_string: "free", new_string: "freed"}},
    {text: "done"}]}' > "$TMP/s3.script"
cc s3 "$WA" "edit g" --session-id "$(uuid)" --allowedTools Edit
check "3: the session ran" ran s3
check "3: its free Edit went through" grep -qx freed "$WA/src/sub/g.txt"
check "3: the session read both settings files" \
    grep -q "Watching for changes in setting files.*$WA/.claude/settings.json.*$R/.claude/settings.local.json" "$TMP/s3.debug"
for e in SessionStart:startup UserPromptSubmit PreToolUse:Edit PostToolUse:Edit Stop SessionEnd:other; do
    n=$(runs s3 "$e")
    check "3: the $e hook ran once ($n)" [ "$n" = 1 ]
done
finish

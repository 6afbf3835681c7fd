# t46-init.sh - `airspace init`: a fresh repository; a repository with its
# own .claude/settings.json and pre-commit hook (kept, merged, chained and
# still run); a second run changes nothing; --dry-run writes nothing;
# --remove restores the original files byte for byte; the pre-commit hook
# refuses a file another agent holds.
. "$(dirname "$0")/lib.sh"

BIN=$(realpath "$AIRSPACE_BIN")
# hooks run the lean airspace-hook built beside the binary
HOOK="$(dirname "$BIN")/airspace-hook"
# snapshot DIR: path, mode and hash of every file in the worktree, the git
# hooks and what init keeps in the git dir.
snapshot() {
    (cd "$1" && { find . -path ./.git -prune -o -type f -print
        find .git/hooks -type f
        find .git/airspace -name 'init*' 2>/dev/null; } |
        LC_ALL=C sort | while read -r f; do
            printf '%s %s %s\n' "$f" "$(stat -c %a "$f")" "$(sha256sum < "$f")"
        done)
}

# ---- fresh repository ----
F="$TMP/fresh"
new_repo "$F"
git -C "$F" commit -q --allow-empty -m base
cd "$F"
before=$(snapshot "$F")
as init --all --dry-run > "$TMP/dry.out"
check "dry run lists the changes" grep -q "create .claude/settings.json" "$TMP/dry.out"
check "dry run writes nothing" [ "$(snapshot "$F")" = "$before" ]
as init --all > "$TMP/init.out"
check "fresh: claude hooks" jqt .claude/settings.json \
    '.hooks.PreToolUse[0].matcher == "Edit|Write|MultiEdit|NotebookEdit|Bash"'
check "fresh: claude command is the absolute binary" jqt .claude/settings.json \
    ".hooks.SessionStart[0].hooks[0].command == \"$HOOK claude-code\""
check "fresh: claude timeouts in seconds" jqt .claude/settings.json \
    '.hooks.PreToolUse[0].hooks[0].timeout == 5'
check "fresh: every claude event" jqt .claude/settings.json \
    '[.hooks | keys[]] | sort == ["PostToolUse","PreCompact","PreToolUse","SessionEnd","SessionStart","Stop","UserPromptSubmit"]'
check "fresh: .mcp.json" jqt .mcp.json \
    ".mcpServers.airspace == {\"command\": \"$BIN\", \"args\": [\"mcp\"]}"
check "fresh: codex hooks" jqt .codex/hooks.json \
    ".hooks.PreToolUse[0].hooks[0].command == \"$HOOK codex\""
check "fresh: codex mcp table" grep -qx '\[mcp_servers.airspace\]' .codex/config.toml
check "fresh: codex mcp command" grep -qx "command = \"$BIN\"" .codex/config.toml
check "fresh: gemini timeouts in milliseconds" jqt .gemini/settings.json \
    '.hooks.BeforeTool[0].hooks[0].timeout == 5000'
check "fresh: gemini mcpServers" jqt .gemini/settings.json \
    '.mcpServers.airspace.args == ["mcp"]'
for h in pre-commit post-commit reference-transaction; do
    check "fresh: $h installed and executable" [ -x .git/hooks/$h ]
done
check "fresh: a record of the changes" jqt .git/airspace/init.json '.entries | length == 8'
once=$(snapshot "$F")
as init --all > "$TMP/again.out"
check "fresh: a second run changes nothing" [ "$(snapshot "$F")" = "$once" ]
check "fresh: a second run says so" grep -q "nothing to change" "$TMP/again.out"
git commit -q --allow-empty -m "with hooks, no daemon"
check "fresh: commits work without a daemon" [ "$(git rev-list --count HEAD)" = 2 ]
as init --remove --dry-run > "$TMP/rdry.out"
check "remove --dry-run lists the changes" grep -q "delete .*/.claude/settings.json" "$TMP/rdry.out"
check "remove --dry-run writes nothing" [ "$(snapshot "$F")" = "$once" ]
as init --remove > /dev/null
check "fresh: --remove leaves nothing" [ ! -e .claude ] && [ ! -e .codex ] && \
    [ ! -e .gemini ] && [ ! -e .mcp.json ] && [ ! -e .git/hooks/pre-commit ] && \
    [ ! -e .git/airspace/init.json ]

# ---- existing configuration and hooks ----
E="$TMP/existing"
new_repo "$E"
mkdir -p "$E/.claude" "$E/src"
cat > "$E/.claude/settings.json" <<'JSON'
{
    "model": "opus",
    "permissions": { "allow": ["Bash(make:*)"] },
    "hooks": {
        "PreToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "echo mine" } ] }
        ]
    },
    "env": { "A": "1" }
}
JSON
printf '{"mcpServers":{"other":{"command":"other-server"}}}' > "$E/.mcp.json"
printf 'model = "o3"\n[mcp_servers.other]\ncommand = "x"' > "$E/.codex.toml.tmp"
mkdir -p "$E/.codex"
mv "$E/.codex.toml.tmp" "$E/.codex/config.toml"
cat > "$E/.git/hooks/pre-commit" <<'SH'
#!/bin/sh
echo "original pre-commit ran" >> "$(git rev-parse --git-common-dir)/ran.log"
SH
chmod 750 "$E/.git/hooks/pre-commit"
printf 'int f(void) { return 0; }\n' > "$E/src/a.c"
cd "$E"
git add src
git commit -qm base
check "existing hook ran before init" [ "$(wc -l < .git/ran.log)" = 1 ]
cp .claude/settings.json "$TMP/settings.orig"
cp .mcp.json "$TMP/mcp.orig"
cp .codex/config.toml "$TMP/config.orig"
cp .git/hooks/pre-commit "$TMP/pre-commit.orig"
orig=$(snapshot "$E")
as init --claude-code --codex > /dev/null
check "existing: other keys kept in order" jqt .claude/settings.json \
    '[keys_unsorted[]] == ["model","permissions","hooks","env"]'
check "existing: permissions kept" jqt .claude/settings.json \
    '.permissions.allow == ["Bash(make:*)"]'
check "existing: unrelated hook kept first" jqt .claude/settings.json \
    '.hooks.PreToolUse[0].hooks[0].command == "echo mine"'
check "existing: airspace hook added after it" jqt .claude/settings.json \
    '.hooks.PreToolUse[1].hooks[0].command | endswith("airspace-hook claude-code")'
check "existing: other MCP server kept" jqt .mcp.json \
    '.mcpServers.other.command == "other-server" and (.mcpServers.airspace.args == ["mcp"])'
check "existing: codex config kept" grep -q '^model = "o3"' .codex/config.toml
check "existing: codex table added" grep -qx '\[mcp_servers.airspace\]' .codex/config.toml
check "existing: pre-commit chained" cmp -s .git/hooks/pre-commit.airspace-chained "$TMP/pre-commit.orig"
check "existing: chained hook keeps its mode" [ "$(stat -c %a .git/hooks/pre-commit.airspace-chained)" = 750 ]
twice=$(snapshot "$E")
as init --claude-code --codex > /dev/null
check "existing: a second run changes nothing" [ "$(snapshot "$E")" = "$twice" ]
echo 'int g(void) { return 1; }' >> src/a.c
git commit -qam "second"
check "existing: the original hook still runs" [ "$(wc -l < .git/ran.log)" = 2 ]

# the pre-commit hook refuses a file another agent holds
"$AIRSPACE_BIN" serve --log-stderr --rescan-ms 60000 2> "$TMP/daemon.log" &
DPID=$!
trap 'kill $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
i=0
while [ ! -S .git/airspace/sock ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
as api POST /v1/agents '{"id":"bob","client":"codex"}' > /dev/null
as lock --agent bob --reason "bob refactors" src/a.c > /dev/null
echo 'int h(void) { return 2; }' >> src/a.c
git add src/a.c
if git commit -qm "third" 2> "$TMP/commit.err"; then
    fail "a commit of a file bob locks is refused"
else
    ok
fi
check "the refusal names the holder and reason" grep -q "locked by bob.*bob refactors" "$TMP/commit.err"
check "no commit was made" [ "$(git rev-list --count HEAD)" = 2 ]
as unlock --agent bob src/a.c > /dev/null
check "after the release the commit goes through" git commit -qm "third"
as stop > /dev/null 2>&1 || true
wait $DPID 2>/dev/null || true
git reset -q --hard HEAD~2

as init --remove > "$TMP/remove.out"
check "remove: settings restored byte for byte" cmp -s .claude/settings.json "$TMP/settings.orig"
check "remove: .mcp.json restored byte for byte" cmp -s .mcp.json "$TMP/mcp.orig"
check "remove: config.toml restored byte for byte" cmp -s .codex/config.toml "$TMP/config.orig"
check "remove: pre-commit restored byte for byte" cmp -s .git/hooks/pre-commit "$TMP/pre-commit.orig"
check "remove: pre-commit mode restored" [ "$(stat -c %a .git/hooks/pre-commit)" = 750 ]
check "remove: no chained copy left" [ ! -e .git/hooks/pre-commit.airspace-chained ]
check "remove: created files gone" [ ! -e .codex/hooks.json ] && [ ! -e .git/hooks/post-commit ]
check "remove: every file as before" [ "$(snapshot "$E" | grep -v ran.log)" = "$(echo "$orig" | grep -v ran.log)" ]

# ---- edited after init: --remove takes out only airspace's entries ----
cd "$F"
as init --claude-code > /dev/null
jq '.extra = true' .claude/settings.json > "$TMP/s.json" && cp "$TMP/s.json" .claude/settings.json
as init --remove > /dev/null
check "edited: the user's later key survives" jqt .claude/settings.json '. == {"extra": true}'
finish

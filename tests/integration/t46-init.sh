# t46-init.sh - `airspace init`: a fresh repository; a repository with its
# own .claude/settings.json and pre-commit hook (kept, merged, chained and
# still run); a second run changes nothing; --dry-run writes nothing;
# --remove restores the original files byte for byte; the pre-commit hook
# refuses a file another agent holds; a symlinked file is changed where it
# points; created files honour the umask; --remove keeps edits made between
# two runs; a failed install writes nothing or records what it changed; a
# binary path that needs shell quoting is recognised on the next run;
# Claude Code's hooks also go into the main checkout's
# .claude/settings.local.json (read by a session started anywhere in the
# repository), spelled as in .claude/settings.json, also when init runs in
# a linked worktree, and --remove restores that file too; Gemini CLI's
# hooks come with a note to start it at the worktree's top; the record
# names files relative to where they belong, so --remove in a moved
# repository undoes its own files and in a copy never the original's (an
# earlier release's record naming another repository is refused), also
# after init ran from a directory since removed, and says what it could
# not undo; the git hooks let commits through once the binary is gone and
# init from its new place updates airspace's commands; config.toml's other
# spellings of mcp_servers.airspace are left alone; --remove keeps a
# user's own mcpServers.airspace and leaves a file with nothing of
# airspace's untouched; numbers keep their spelling.
. "$(dirname "$0")/lib.sh"

BIN=$(realpath "$AIRSPACE_BIN")
# hooks run the lean airspace-hook built beside the binary
HOOK="$(dirname "$BIN")/airspace-hook"
# snapshot DIR: path, mode and hash of every file in the worktree, the git
# hooks and what init keeps in the git dir.
snapshot() {
    (cd "$1" && { find . -path ./.git -prune -o -type f -print
        find .git/hooks -type f
        find .git/airspace -name 'init*' -type f 2>/dev/null; } |
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
# a bad option: one line naming it and the hint, exit 2, nothing written
rc=0
as init --all --bogus > "$TMP/bad.out" 2> "$TMP/bad.err" || rc=$?
check "bad option: exit 2" [ "$rc" = 2 ]
check "bad option: named, then the hint, nothing else" [ "$(cat "$TMP/bad.err")" = \
    "$(printf "airspace init: unknown or incomplete option '--bogus'\nTry 'airspace init --help'.")" ]
check "bad option: nothing written" [ "$(snapshot "$F")" = "$before" -a ! -s "$TMP/bad.out" ]
rc=0
as init stray 2> "$TMP/bad.err" || rc=$?
check "an operand: exit 2" [ "$rc" = 2 ]
check "an operand: named" grep -qx "airspace init: unexpected argument 'stray'" "$TMP/bad.err"
as init --all --dry-run > "$TMP/dry.out"
check "dry run lists the changes" grep -q "create .claude/settings.json" "$TMP/dry.out"
check "dry run lists the main checkout's local settings" grep -qx "create .claude/settings.local.json" "$TMP/dry.out"
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
check "fresh: the local settings run the same hooks" jqsame .hooks .claude/settings.json .claude/settings.local.json
check "fresh: ... and nothing else" jqt .claude/settings.local.json '[keys[]] == ["hooks"]'
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
check "fresh: a record of the changes" jqt .git/airspace/init.json '.entries | length == 9'
check "fresh: init says where Gemini must start" grep -qx \
    "note: start Gemini CLI at the worktree's top ($F): it reads .gemini/settings.json only where it starts, so started in a subdirectory it runs no airspace hook and locks are not enforced" "$TMP/init.out"
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
printf '{"permissions":{"allow":["Bash(ls:*)"]},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo local"}]}]}}' \
    > "$E/.claude/settings.local.json"
chmod 600 "$E/.claude/settings.local.json"
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
cp .claude/settings.local.json "$TMP/local.orig"
cp .codex/config.toml "$TMP/config.orig"
cp .git/hooks/pre-commit "$TMP/pre-commit.orig"
orig=$(snapshot "$E")
as init --claude-code --codex > "$TMP/existing.out"
check "existing: no note about Gemini when it is not wired" [ "$(grep -c Gemini "$TMP/existing.out")" = 0 ]
check "existing: the local settings keep theirs" jqt .claude/settings.local.json \
    '.permissions.allow == ["Bash(ls:*)"] and .hooks.Stop[0].hooks[0].command == "echo local"'
check "existing: ... and run airspace's hooks after them" jqt .claude/settings.local.json \
    '(.hooks.Stop[1].hooks[0].command | endswith("airspace-hook claude-code")) and (.hooks | length == 7)'
check "existing: the local settings keep their mode" [ "$(stat -c %a .claude/settings.local.json)" = 600 ]
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
trap 'kill $DPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
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
check "remove: local settings restored byte for byte" cmp -s .claude/settings.local.json "$TMP/local.orig"
check "remove: local settings mode restored" [ "$(stat -c %a .claude/settings.local.json)" = 600 ]
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
# ---- a symlinked file is changed where it points; the link stays ----
S="$TMP/symlinked"
new_repo "$S"
mkdir -p "$S/.claude"
printf '{"model":"opus"}\n' > "$S/shared.json"
chmod 640 "$S/shared.json"
ln -s ../shared.json "$S/.claude/settings.json"
cp "$S/shared.json" "$TMP/shared.orig"
cd "$S"
as init --claude-code > /dev/null
check "symlink: the link is kept" [ -L .claude/settings.json -a "$(readlink .claude/settings.json)" = ../shared.json ]
check "symlink: the target gets the hooks" jqt shared.json '.model == "opus" and (.hooks.Stop | length == 1)'
check "symlink: the target keeps its mode" [ "$(stat -c %a shared.json)" = 640 ]
as init --claude-code > "$TMP/sym2.out"
check "symlink: a second run changes nothing" grep -q "nothing to change" "$TMP/sym2.out"
as init --remove > /dev/null
check "symlink: --remove keeps the link" [ -L .claude/settings.json ]
check "symlink: --remove restores the target byte for byte" cmp -s shared.json "$TMP/shared.orig"
check "symlink: --remove restores the target's mode" [ "$(stat -c %a shared.json)" = 640 ]
rm .claude/settings.json
ln -s ../missing.json .claude/settings.json
if as init --claude-code > /dev/null 2> "$TMP/dangling.err"; then
    fail "a dangling symlink is refused"
else
    ok
fi
check "dangling: the refusal says why" grep -q "symlink to a missing file" "$TMP/dangling.err"
check "dangling: the link is kept, nothing written" [ -L .claude/settings.json -a ! -e missing.json \
    -a ! -e .mcp.json -a ! -e .git/airspace/init.json ]

# ---- created files honour the umask ----
U="$TMP/umask"
new_repo "$U"
cd "$U"
(umask 077 && as init --claude-code > /dev/null)
check "umask: a created config file honours it" [ "$(stat -c %a .claude/settings.json)" = 600 ]
check "umask: a created git hook honours it" [ "$(stat -c %a .git/hooks/pre-commit)" = 700 ]

# ---- a second run after edits: --remove keeps the edits ----
B="$TMP/rerun"
new_repo "$B"
mkdir -p "$B/.claude"
cd "$B"
echo '{"model":"opus"}' > .claude/settings.json
cp .claude/settings.json "$TMP/rerun.orig"
as init --claude-code > /dev/null
cp .claude/settings.json "$TMP/rerun.first"
jq 'del(.hooks.Stop)' .claude/settings.json > "$TMP/s.json" && cp "$TMP/s.json" .claude/settings.json
as init --claude-code > /dev/null
check "rerun: a run putting back what the first wrote" cmp -s .claude/settings.json "$TMP/rerun.first"
as init --remove > /dev/null
check "rerun: ... still restores the backup" cmp -s .claude/settings.json "$TMP/rerun.orig"
as init --claude-code > /dev/null
jq 'del(.hooks.Stop) | .hooks.Notification = [{"hooks": [{"type": "command", "command": "notify-me"}]}]
    | .permissions = {"allow": ["Bash(ls:*)"]}' .claude/settings.json > "$TMP/s.json"
cp "$TMP/s.json" .claude/settings.json
as init --claude-code > /dev/null
as init --remove > /dev/null
check "rerun: --remove keeps the edits made between runs" jqt .claude/settings.json \
    '. == {"model": "opus", "hooks": {"Notification": [{"hooks": [{"type": "command", "command": "notify-me"}]}]}, "permissions": {"allow": ["Bash(ls:*)"]}}'

# ---- a failed install: refused before writing, or recorded as far as it got ----
P="$TMP/partial"
new_repo "$P"
cd "$P"
printf '#!/bin/sh\n' > .git/hooks/pre-commit
chmod 755 .git/hooks/pre-commit
cp .git/hooks/pre-commit "$TMP/partial.pre-commit"
echo in-the-way > .git/hooks/pre-commit.airspace-chained
if as init --claude-code > /dev/null 2> "$TMP/partial.err"; then
    fail "a chained hook in the way refuses the install"
else
    ok
fi
check "in the way: the refusal names it" grep -q "pre-commit.airspace-chained' is in the way" "$TMP/partial.err"
check "in the way: nothing written" [ ! -e .claude -a ! -e .mcp.json -a ! -e .git/airspace/init.json ]
rm .git/hooks/pre-commit.airspace-chained
mkdir .git/hooks/post-commit.airspace-tmp
if as init --claude-code > /dev/null 2> "$TMP/partial.err"; then
    fail "a write that fails fails the install"
else
    ok
fi
check "failed write: what was changed is recorded" jqt .git/airspace/init.json \
    '[.entries[].path | sub(".*/"; "")] == ["settings.json", "settings.local.json", ".mcp.json", "pre-commit"]'
rmdir .git/hooks/post-commit.airspace-tmp
as init --remove > /dev/null
check "failed write: --remove undoes it" [ ! -e .claude -a ! -e .mcp.json -a ! -e .git/airspace/init.json \
    -a ! -e .git/hooks/pre-commit.airspace-chained ]
check "failed write: the chained hook is back" cmp -s .git/hooks/pre-commit "$TMP/partial.pre-commit"

# ---- a binary whose path needs shell quoting ----
Q="$TMP/quoted"
QB="$TMP/my bin's"
new_repo "$Q"
mkdir -p "$QB"
cp "$BIN" "$HOOK" "$QB/"
cd "$Q"
"$QB/airspace" init --claude-code > /dev/null
eval "set -- $(jq -r '.hooks.Stop[0].hooks[0].command' .claude/settings.json)"
check "quoted: the command runs the copied hook" [ "$1" = "$QB/airspace-hook" -a "$2" = claude-code -a $# = 2 ]
"$QB/airspace" init --claude-code > "$TMP/quoted.out"
check "quoted: a second run changes nothing" grep -q "nothing to change" "$TMP/quoted.out"
check "quoted: no event runs the hook twice" jqt .claude/settings.json '[.hooks[] | length] | all(. == 1)'
check "quoted: nor in the local settings" jqt .claude/settings.local.json '[.hooks[] | length] | all(. == 1)'
"$QB/airspace" init --remove > /dev/null
check "quoted: --remove leaves nothing" [ ! -e .claude -a ! -e .mcp.json -a ! -e .git/airspace/init.json ]

# ---- init in a linked worktree: the main checkout's local settings ----
L="$TMP/linked"
new_repo "$L"
mkdir -p "$L/src/sub"
echo x > "$L/src/sub/x"
git -C "$L" add -A
git -C "$L" commit -qm base
mkdir -p "$L/.claude"
printf '{"model":"opus"}' > "$L/.claude/settings.local.json"
cp "$L/.claude/settings.local.json" "$TMP/linked.orig"
git -C "$L" worktree add -q "$TMP/linked-w"
lbefore=$(snapshot "$L")
cd "$TMP/linked-w/src/sub" # init from below a linked worktree's top
as init --claude-code > "$TMP/linked.out"
check "linked: the worktree gets settings.json" jqt "$TMP/linked-w/.claude/settings.json" '.hooks | length == 7'
check "linked: the main checkout's local settings get the hooks" jqt "$L/.claude/settings.local.json" \
    ".model == \"opus\" and ([.hooks[][] | .hooks[].command] | length == 7 and all(. == \"$HOOK claude-code\"))"
check "linked: named by their path" grep -qx "merge into $L/.claude/settings.local.json" "$TMP/linked.out"
check "linked: the main checkout gets no settings.json" [ ! -e "$L/.claude/settings.json" ]
lonce=$(snapshot "$L")
as init --claude-code > "$TMP/linked2.out"
check "linked: a second run changes nothing" grep -q "nothing to change" "$TMP/linked2.out"
check "linked: ... byte for byte" [ "$(snapshot "$L")" = "$lonce" ]
cd "$L"
as init --claude-code > "$TMP/linked3.out"
check "linked: from the main checkout, its own settings.json is new" grep -qx "create .claude/settings.json" "$TMP/linked3.out"
check "linked: ... its local settings are complete already" [ "$(grep -c settings.local.json "$TMP/linked3.out")" = 0 ]
ltwice=$(snapshot "$L")
as init --remove --dry-run > "$TMP/linked-rdry.out"
check "linked: remove --dry-run names the local settings" grep -qx "restore $L/.claude/settings.local.json" "$TMP/linked-rdry.out"
check "linked: remove --dry-run writes nothing" [ "$(snapshot "$L")" = "$ltwice" ]
as init --remove > /dev/null
check "linked: --remove restores the local settings byte for byte" cmp -s "$L/.claude/settings.local.json" "$TMP/linked.orig"
check "linked: --remove leaves the main checkout as it was" [ "$(snapshot "$L")" = "$lbefore" ]
check "linked: ... and the worktree" [ ! -e "$TMP/linked-w/.claude" ]

# ---- an install that spells the hook otherwise: no event runs it twice ----
O="$TMP/otherspelling"
new_repo "$O"
mkdir -p "$O/.claude"
jq -n '{hooks: (["SessionStart","UserPromptSubmit","PreToolUse","PostToolUse","PreCompact","SessionEnd","Stop"]
    | map({key: ., value: [{hooks: [{type: "command", command: "/opt/elsewhere/airspace-hook claude-code"}]}]}) | from_entries)}' \
    > "$O/.claude/settings.json"
git -C "$O" add -A
git -C "$O" commit -qm "an earlier install, committed"
cd "$O"
as init --claude-code > /dev/null
check "other spelling: the committed settings are left as they are" git diff --quiet
check "other spelling: the local settings spell it the same" jqt .claude/settings.local.json \
    '[.hooks[][] | .hooks[].command] | length == 7 and all(. == "/opt/elsewhere/airspace-hook claude-code")'
as init --remove > /dev/null
check "other spelling: --remove takes the local settings away" [ ! -e .claude/settings.local.json ]

# ---- a bare repository has no main checkout: said, nothing written there ----
N="$TMP/bare.git"
git clone -q --bare "$O" "$N"
git -C "$N" worktree add -q "$TMP/bare-w" > /dev/null 2>&1
cd "$TMP/bare-w"
as init --claude-code > "$TMP/bare.out"
check "bare: init says a session below the top runs no hook" grep -q "no main checkout" "$TMP/bare.out"
check "bare: the worktree's settings.json is there" jqt .claude/settings.json '.hooks | length == 7'
check "bare: no local settings anywhere" [ ! -e .claude/settings.local.json -a ! -e "$TMP/.claude" ]
as init --remove > /dev/null

# ---- agent new: where to start Gemini; what is copied ----
G="$TMP/gemini"
new_repo "$G"
git -C "$G" commit -q --allow-empty -m base
cd "$G"
as init --gemini --claude-code > /dev/null
as agent new gw --no-start > /dev/null 2> "$TMP/gw.err"
check "gemini: agent new says to start Gemini at the worktree's top" grep -qx \
    "airspace agent new: start Gemini CLI at the worktree's top ($G.airspace/gw): .*" "$TMP/gw.err"
check "agent new copies settings.json" cmp -s .claude/settings.json "$G.airspace/gw/.claude/settings.json"
check "... not the main checkout's local settings Claude Code reads there anyway" \
    [ ! -e "$G.airspace/gw/.claude/settings.local.json" ]
as init --remove > /dev/null
as agent new gx --no-start > /dev/null 2> "$TMP/gx.err"
check "gemini: not when Gemini is not wired" [ "$(grep -c Gemini "$TMP/gx.err")" = 0 ]

# ---- a moved repository, a copy, and an earlier release's record ----
M="$TMP/moved"
new_repo "$M"
git -C "$M" commit -q --allow-empty -m base
printf '{"mcpServers":{"other":{"command":"x"}}}' > "$M/.mcp.json"
cp "$M/.mcp.json" "$TMP/moved.mcp.orig"
cd "$M"
as init --claude-code > /dev/null
check "record: paths relative to where they belong" jqt .git/airspace/init.json \
    '[.entries[].path | startswith("/") or contains("..")] | any | not'
cp -a "$M" "$TMP/copy"
morig=$(snapshot "$M")
cd "$TMP/copy"
as init --remove > "$TMP/copy.out"
check "copy: --remove undoes the copy's own files" [ ! -e .claude -a ! -e .git/hooks/pre-commit ] && \
    cmp -s .mcp.json "$TMP/moved.mcp.orig"
check "copy: ... and never the original's" [ "$(snapshot "$M")" = "$morig" ]
check "copy: ... nor names them" [ "$(grep -c "$M/" "$TMP/copy.out")" = 0 ]
mv "$M" "$TMP/moved2"
cd "$TMP/moved2"
as init --remove > /dev/null
check "moved: --remove undoes everything" [ ! -e .claude -a ! -e .git/hooks/pre-commit \
    -a ! -e .git/airspace/init.json ] && cmp -s .mcp.json "$TMP/moved.mcp.orig"
# a record as the previous release wrote it: absolute paths
V="$TMP/v1"
new_repo "$V"
git -C "$V" commit -q --allow-empty -m base
cd "$V"
as init --claude-code > /dev/null
jq --arg top "$V" '.version = 1 | .entries[] |= (.path = (if .in == "git" then $top + "/.git/" else $top + "/" end) + .path
    | .dirs = [.dirs[] | $top + "/" + .] | del(.in, .worktree))' .git/airspace/init.json > "$TMP/v1.json"
cp "$TMP/v1.json" .git/airspace/init.json
cp -a "$V" "$TMP/v1-copy"
vorig=$(snapshot "$V")
cd "$TMP/v1-copy"
vcopy=$(snapshot "$TMP/v1-copy")
rc=0
as init --remove > /dev/null 2> "$TMP/v1copy.err" || rc=$?
check "earlier record in a copy: refused" [ "$rc" != 0 ]
check "earlier record in a copy: says why" grep -q "not in this repository" "$TMP/v1copy.err"
check "earlier record in a copy: the original untouched" [ "$(snapshot "$V")" = "$vorig" ]
check "earlier record in a copy: the copy untouched" [ "$(snapshot "$TMP/v1-copy")" = "$vcopy" ]
cd "$V"
as init --remove > /dev/null
check "earlier record: still undone where it was written" [ ! -e .claude -a ! -e .git/hooks/pre-commit \
    -a ! -e .git/airspace/init.json ]

# ---- init from a subdirectory since removed ----
D="$TMP/subdir"
new_repo "$D"
git -C "$D" commit -q --allow-empty -m base
mkdir -p "$D/build/tmp"
cd "$D/build/tmp"
as init --claude-code > "$TMP/subdir.out"
check "subdir: hooks named by their real path" grep -qx "create $D/.git/hooks/pre-commit" "$TMP/subdir.out"
cd "$D"
rm -rf build
as init --remove > /dev/null
check "subdir gone: --remove takes the git hooks out" [ ! -e .git/hooks/pre-commit \
    -a ! -e .git/hooks/post-commit -a ! -e .git/hooks/reference-transaction -a ! -e .git/airspace/init.json ]
# what cannot be undone is said, and stays recorded
git commit -q --allow-empty -m base 2> /dev/null || true
git worktree add -q "$TMP/subdir-w" 2> /dev/null
cd "$TMP/subdir-w"
as init --claude-code > /dev/null
mv "$TMP/subdir-w" "$TMP/subdir-w2"
cd "$D"
rc=0
as init --remove > /dev/null 2> "$TMP/subdir.err" || rc=$?
check "worktree moved: --remove fails" [ "$rc" != 0 ]
check "worktree moved: ... names what it could not undo" grep -q "cannot undo '.claude/settings.json'" "$TMP/subdir.err"
check "worktree moved: ... and keeps it recorded" jqt .git/airspace/init.json \
    '[.entries[].path] == [".claude/settings.json", ".mcp.json"]'
check "worktree moved: the rest is undone" [ ! -e .git/hooks/pre-commit -a ! -e .claude ]

# ---- the binary moves: commits go on, init from the new place updates ----
H="$TMP/stale"
new_repo "$H"
git -C "$H" commit -q --allow-empty -m base
mkdir -p "$TMP/binA" "$TMP/binB"
cp "$BIN" "$HOOK" "$TMP/binA/"
cd "$H"
"$TMP/binA/airspace" init --claude-code --codex > /dev/null
hfirst=$(snapshot "$H")
mv "$TMP/binA/airspace" "$TMP/binA/airspace-hook" "$TMP/binB/"
rc=0
git commit -q --allow-empty -m "binary gone" 2> "$TMP/stale.err" || rc=$?
check "binary gone: the commit goes through" [ "$rc" = 0 ]
check "binary gone: one line says the check is skipped" [ "$(wc -l < "$TMP/stale.err")" = 1 ] && \
    grep -q "binA/airspace is gone" "$TMP/stale.err"
"$TMP/binB/airspace" init --claude-code --codex > "$TMP/stale.out"
check "binary gone: init from the new place updates the hooks" grep -q "^update .*pre-commit" "$TMP/stale.out"
check "binary gone: nothing names the old place" [ "$(grep -rl binA .claude .mcp.json .codex .git/hooks | wc -l)" = 0 ]
check "binary gone: ... the new one instead" jqt .claude/settings.json \
    "[.hooks[][] | .hooks[].command] | all(. == \"$TMP/binB/airspace-hook claude-code\")"
"$TMP/binB/airspace" init --claude-code --codex > "$TMP/stale2.out"
check "binary gone: then nothing to change" grep -q "nothing to change" "$TMP/stale2.out"
"$TMP/binB/airspace" init --remove > /dev/null
check "binary gone: --remove leaves nothing" [ ! -e .claude -a ! -e .mcp.json -a ! -e .codex \
    -a ! -e .git/hooks/pre-commit -a ! -e .git/airspace/init.json ]

# ---- config.toml with mcp_servers.airspace spelled otherwise ----
T="$TMP/toml"
new_repo "$T"
mkdir -p "$T/.codex"
cd "$T"
for v in 1 2 3 4; do
    case $v in
    1) printf '[mcp_servers]\nairspace = { command = "airspace", args = ["mcp"] }\n' ;;
    2) printf '[ mcp_servers.airspace ]\ncommand = "airspace"\nargs = ["mcp"]\n' ;;
    3) printf "[mcp_servers.'airspace']\ncommand = \"airspace\"\nargs = [\"mcp\"]\n" ;;
    4) printf 'mcp_servers.airspace.command = "airspace"\nmcp_servers.airspace.args = ["mcp"]\n' ;;
    esac > .codex/config.toml
    cp .codex/config.toml "$TMP/toml.orig"
    as init --codex > /dev/null
    check "toml spelling $v: left as it is" cmp -s .codex/config.toml "$TMP/toml.orig"
    as init --remove > /dev/null
done

# ---- a user's own mcpServers.airspace; nothing left to take out ----
W="$TMP/own"
new_repo "$W"
mkdir -p "$W/.gemini"
cd "$W"
printf '{"theme": "Dark", "mcpServers": {"airspace": {"command": "/opt/a/airspace", "args": ["mcp", "--agent", "me"]}}}\n' \
    > .gemini/settings.json
as init --gemini > /dev/null
jq '.theme = "Light"' .gemini/settings.json > "$TMP/own.json" && cp "$TMP/own.json" .gemini/settings.json
as init --remove > /dev/null
check "own server: --remove keeps it" jqt .gemini/settings.json \
    '. == {"theme": "Light", "mcpServers": {"airspace": {"command": "/opt/a/airspace", "args": ["mcp", "--agent", "me"]}}}'
R="$TMP/reverted"
new_repo "$R"
mkdir -p "$R/.claude"
printf '{"model": "opus", "temperature": 0.1, "ratio": 1.1}\n' > "$R/.claude/settings.json"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
as init --claude-code > /dev/null
check "numbers: kept as written" grep -q '"temperature": 0.1,' .claude/settings.json
check "numbers: ... all of them" grep -q '"ratio": 1.1,' .claude/settings.json
git checkout -q -- .claude/settings.json
as init --remove > "$TMP/reverted.out"
check "nothing to take out: the file is not rewritten" git diff --quiet
check "nothing to take out: said" grep -q "leave .*settings.json: nothing of airspace's" "$TMP/reverted.out"
finish

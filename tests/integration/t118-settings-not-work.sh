# t118-settings-not-work.sh - the agent clients' settings that `airspace
# init` writes, not committed, which `agent new` copies into every
# worktree, are nobody's work: a commit naming no path leaves them out
# (named, they are committed); no working set holds them, also after a
# land moves main and the daemon moves the other agents onto it; no
# conflict, escalation, advisory, alert or scan pair is about them; an
# agent that did nothing has no uncommitted work for `agent rm` (no
# --force needed) or `fleet down`.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
seq 1 20 > f.txt
commit 00:01 files
git config airspace.integration main
as init --claude-code --codex --gemini > /dev/null
start_daemon --tick-ms 50 --rescan-ms 60000 --window-ms 500
for a in alice bob carol dave; do
    as agent new "$a" > /dev/null 2>&1
done
WA="$TMP/repo.airspace/alice"
WD="$TMP/repo.airspace/dave"
check "agent new copied the settings" test -f "$WA/.mcp.json" -a -f "$WA/.codex/hooks.json"

# jq: whether a path is one of the clients' settings
CFG='def cfg: test("^(\\.claude/settings(\\.local)?\\.json|\\.mcp\\.json|\\.codex/(hooks\\.json|config\\.toml)|\\.gemini/settings\\.json)$");'

# a commit naming no path: the real change only
sed -i 's/^x$/x2/' "$WD/x"
(cd "$WD" && as commit -m "dave's work" --json) > "$TMP/commit.json" 2> "$TMP/err" &&
    rc=0 || rc=$?
check "commit without paths: exit 0 ($rc: $(cat "$TMP/err"))" [ "$rc" = 0 ]
check "... commits the real change only" jqt "$TMP/commit.json" \
    '[.files[].path] == ["x"]'
check "... HEAD has no settings file" \
    [ "$(git -C "$WD" show --name-only --format= HEAD)" = x ]
check "... which stay untracked" [ -n "$(git -C "$WD" status --porcelain -- .mcp.json)" ]
# a commit naming nothing but the settings changed: nothing, and why
echo '{}' > "$WD/.mcp.json"
(cd "$WD" && as commit -m none) > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "only settings changed: nothing committed (exit $rc)" [ "$rc" = 1 ]
check "... saying so" grep -q "but for the agent clients' settings" "$TMP/err"
# named, they are committed
(cd "$WD" && as commit -m settings --json .mcp.json) > "$TMP/named.json" 2> "$TMP/err" &&
    rc=0 || rc=$?
check "a named settings file is committed ($rc: $(cat "$TMP/err"))" jqt "$TMP/named.json" \
    '[.files[].path] == [".mcp.json"]'

# alice lands her change: main moves, the daemon moves the others onto it
api POST /v1/locks '{"agent":"alice","pattern":"f.txt","ttlMs":3600000}'
sed -i 's/^7$/seven/' "$WA/f.txt"
(cd "$WA" && as commit -m "alice's work" f.txt) > /dev/null
OLD=$(git rev-parse main)
as land alice > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "alice lands ($rc: $(cat "$TMP/err"))" [ "$rc" = 0 ]
MAIN=$(git rev-parse main)
moved() { # moved: bob and carol are on the new main
    api GET '/v1/agents?files=1'
    jqt "$TMP/body" "[.agents[] | select(.id == \"bob\" or .id == \"carol\") | .base] == [\"$MAIN\", \"$MAIN\"]"
}
n=0
until moved || [ $n -ge 200 ]; do
    sleep 0.05
    n=$((n + 1))
done
check "main moved" [ "$MAIN" != "$OLD" ]
check "the daemon moved bob and carol onto main" moved
check "no working set holds a settings file" jqt "$TMP/body" \
    "$CFG [.agents[].files[]? | .path, .newPath // empty | select(cfg)] == []"
check "bob and carol, idle, hold nothing" jqt "$TMP/body" \
    '[.agents[] | select(.id == "bob" or .id == "carol") | .files | length] == [0, 0]'

# past the escalation window: no conflict, escalation or alert names one
sleep 1.5
api GET /v1/conflicts
check "no conflict on a settings file" jqt "$TMP/body" \
    "$CFG [.conflicts[] | select(.file | cfg)] == []"
api GET /v1/escalations
check "no escalation names a settings file" jqt "$TMP/body" \
    "$CFG [.escalations[] | select((.file // \"\") | cfg)] == []"
for route in '/v1/advisories?all=1' /v1/alerts; do
    api GET "$route"
    check "$route: none is about a settings file" sh -c \
        "! grep -q -e 'settings.json' -e '.mcp.json' -e 'config.toml' -e 'hooks.json' '$TMP/body'"
done

# scan: no agent holds one, no pair is contested on one
as scan --json --explain > "$TMP/scan.json" 2> /dev/null
check "scan: no agent holds a settings file" jqt "$TMP/scan.json" \
    "$CFG [.agents[].files[]? | .path | select(cfg)] == []"
check "scan: no pair contested on a settings file" jqt "$TMP/scan.json" \
    "$CFG [.pairs[]? | .evidence.contested[]? | .path | select(cfg)] == []"
check "scan: every pair is clear" jqt "$TMP/scan.json" \
    '[.pairs[] | select(.level != "clear")] == []'

# an agent that did nothing: removed without --force
as agent rm carol > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "agent rm of an idle agent: exit 0 ($rc: $(cat "$TMP/err"))" [ "$rc" = 0 ]
check "... its worktree is gone" [ ! -e "$TMP/repo.airspace/carol" ]
# real uncommitted work still stops it
echo more >> "$TMP/repo.airspace/bob/f.txt"
as agent rm bob > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "agent rm with real work: refused (exit $rc)" [ "$rc" = 1 ]
check "... naming the work alone" grep -q "uncommitted changes (1: f.txt)" "$TMP/err"

# fleet down: an agent that did nothing left no work
if command -v tmux > /dev/null; then
    unset TMUX # a private tmux server, also when the tests run inside tmux
    export TMUX_TMPDIR="$TMP"
    trap 'tmux kill-server 2> /dev/null || :; kill $DPID 2> /dev/null && wait $DPID 2> /dev/null; rm -rf "$TMP"' EXIT
    mkdir -p .airspace
    printf '[agent "idle"]\n\tcommand = "sleep 60"\n' > .airspace/fleet
    as fleet up > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
    check "fleet up ($rc: $(cat "$TMP/err"))" [ "$rc" = 0 ]
    check "... copied the settings" test -f "$TMP/repo.airspace/idle/.mcp.json"
    as fleet down > "$TMP/down" 2> "$TMP/err" || :
    check "fleet down: the idle agent is clean ($(cat "$TMP/down"))" \
        grep -Eq "^idle +clean, left in place" "$TMP/down"
fi
finish

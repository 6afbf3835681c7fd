# t115-mcp-session.sh - an MCP session of a client that runs no airspace
# hooks, in a worktree made by `airspace agent new carol`, is carol (it
# was a new agent named after the client, with no branch to land); the
# daemon stopped in the middle of the session is started again by the
# next tool call (it stayed unreachable for the rest of the session); and
# `near`, when the daemon cannot be reached, is a tool error, never
# "clear" (it answered "clear: nobody else is working there" while bob
# held the file).
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
printf 'int held(void);\n' > "$R/src/held.c"
printf 'int mine(void);\n' > "$R/src/mine.c"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
as agent new carol > /dev/null 2> "$TMP/err" || fail "agent new carol: $(cat "$TMP/err")"
WC="$TMP/repo.airspace/carol"
start_daemon --tick-ms 50 --rescan-ms 60000
as api POST /v1/agents '{"id":"bob","client":"claude-code"}' > /dev/null
check "bob locks src/held.c" as lock --agent bob --reason "bob is here" src/held.c

# One MCP server for the whole session, fed line by line.
mkfifo "$TMP/in"
(cd "$WC" && exec env -u AIRSPACE_AGENT -u CLAUDE_CODE_SESSION_ID \
    "$AIRSPACE_BIN" mcp < "$TMP/in" > "$TMP/out" 2> "$TMP/mcp.err") &
MPID=$!
exec 3> "$TMP/in"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"gemini-cli","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3

mcp_send 2 status '{}'
check "the session in carol's worktree is carol ($(mcp_text 2 | head -n 1))" \
    sh -c "jq -r '.result.content[0].text' '$TMP/r-2' | grep -q '^airspace crew update for carol:'"
mcp_send 3 lock '{"patterns":["src/mine.c"]}'
check "its lock is carol's" sh -c "'$AIRSPACE_BIN' locks --json | jq -e '.locks[] | select(.pattern == \"src/mine.c\") | .holder == \"carol\"' > /dev/null"
as agents --json > "$TMP/agents.json"
check "no agent named after the client" jqt "$TMP/agents.json" '[.agents[] | select(.id == "gemini-cli")] | length == 0'

# the daemon stops; the next call starts it again and sees bob's lock
as stop > /dev/null 2>&1
wait $DPID 2> /dev/null || true
mcp_send 4 near '{"path":"src/held.c"}'
check "near after the daemon stopped: answered by a new daemon ($(mcp_text 4 | tr '\n' ' '))" \
    sh -c "jq -e '.result.isError != true' '$TMP/r-4' > /dev/null && jq -r '.result.content[0].text' '$TMP/r-4' | grep -q 'bob'"
check "... which is running" curl -sf --unix-socket "$SOCK" http://a/v1/status -o /dev/null

# a daemon that cannot start: near is an error, not an all-clear
as stop > /dev/null 2>&1
n=0
while [ -S "$SOCK" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
printf '[daemon]\n\tstale-ms = soon\n' > "$R/.git/airspace/config"
mcp_send 5 near '{"path":"src/held.c"}'
check "near with no daemon is a tool error ($(mcp_text 5 | tr '\n' ' '))" \
    sh -c "jq -e '.result.isError == true' '$TMP/r-5' > /dev/null && ! jq -r '.result.content[0].text' '$TMP/r-5' | grep -q clear"
rm -f "$R/.git/airspace/config"

exec 3>&-
wait $MPID 2> /dev/null || true
# the restarted daemons' own leftovers
as stop > /dev/null 2>&1 || true
finish

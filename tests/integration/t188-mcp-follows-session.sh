# t188-mcp-follows-session.sh - a client that goes on as another session
# in the same process without a hook (Codex's and Gemini CLI's /resume in
# the terminal UI), and back: its MCP server, started with the first
# session, acts as the session its hooks name now. It acted for the first session for
# the rest of the process's life: the locks the model took through it
# were the old session's, and its crew update was the old session's.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
printf 'int a(void);\n' > "$R/src/a.c"
printf 'int b(void);\n' > "$R/src/b.c"
printf 'int c(void);\n' > "$R/src/c.c"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
R=$(pwd -P)
start_daemon --tick-ms 50 --rescan-ms 60000

hook() { # hook SESSION EVENT: the command a client runs
    printf "printf '%%s' '{\"session_id\":\"%s\",\"cwd\":\"%s\",\"hook_event_name\":\"%s\"}' | '%s' hook codex > /dev/null" \
        "$1" "$R" "$2" "$AIRSPACE_BIN"
}
holder() { # holder PATTERN: who holds it ("" when nobody)
    curl -s --unix-socket "$SOCK" http://a/v1/locks |
        jq -r --arg p "$1" '[.locks[] | select(.pattern == $p) | .holder][0] // ""'
}

A1=$(hook_agent codex s-one)
A2=$(hook_agent codex s-two)
client_start C
client_run C "$(hook s-one SessionStart)"
# the client's MCP server: its child for as long as it runs
mkfifo "$TMP/in"
client_spawn C "cd '$R' && exec env -u AIRSPACE_AGENT -u CLAUDE_CODE_SESSION_ID '$AIRSPACE_BIN' mcp < '$TMP/in' > '$TMP/out' 2> '$TMP/mcp.err'"
exec 3> "$TMP/in"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"codex-mcp-client","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3

mcp_send 2 status '{}'
check "the MCP server acts as the first session ($(mcp_text 2 | head -n 1))" \
    sh -c "jq -r '.result.content[0].text' '$TMP/r-2' | grep -q '^airspace crew update for $A1:'"
mcp_send 3 lock '{"patterns":["src/a.c"]}'
check "... its lock is the first session's ($(holder src/a.c))" [ "$(holder src/a.c)" = "$A1" ]

# /resume of another session in the same process: no hook, then the
# next turn's prompt names the new session
client_run C "$(hook s-two UserPromptSubmit)"
mcp_send 4 status '{}'
check "after the switch the MCP server acts as the session now ($(mcp_text 4 | head -n 1))" \
    sh -c "jq -r '.result.content[0].text' '$TMP/r-4' | grep -q '^airspace crew update for $A2:'"
mcp_send 5 lock '{"patterns":["src/b.c"]}'
check "... its lock is the session's now ($(holder src/b.c))" [ "$(holder src/b.c)" = "$A2" ]
mcp_send 6 release '{"patterns":["src/b.c"]}'
check "... and so is its release ($(mcp_text 6 | tr '\n' ' '))" [ -z "$(holder src/b.c)" ]

# /resume back to the first session (Gemini CLI: no hook, and none ended
# it): the next turn's prompt names it again, and so does the server; it
# stayed the second session's agent, and the first session's next edit of
# the file it had just locked was refused as the second's
client_run C "$(hook s-one UserPromptSubmit)"
mcp_send 8 status '{}'
check "back to the first session, the server acts as it again ($(mcp_text 8 | head -n 1))" \
    sh -c "jq -r '.result.content[0].text' '$TMP/r-8' | grep -q '^airspace crew update for $A1:'"
mcp_send 9 lock '{"patterns":["src/c.c"]}'
check "... its lock is the first session's ($(holder src/c.c))" [ "$(holder src/c.c)" = "$A1" ]
client_run C "$(hook s-two UserPromptSubmit)"
mcp_send 10 status '{}'
check "and to the second again ($(mcp_text 10 | head -n 1))" \
    sh -c "jq -r '.result.content[0].text' '$TMP/r-10' | grep -q '^airspace crew update for $A2:'"

# no session's records name the process any more (its session ended):
# the server stays the agent it was
client_run C "$(hook s-two SessionEnd)"
mcp_send 7 status '{}'
check "after the session's end it stays the agent it was ($(mcp_text 7 | head -n 1))" \
    sh -c "jq -r '.result.content[0].text' '$TMP/r-7' | grep -q '^airspace crew update for $A2:'"

exec 3>&-
client_stop C
finish

# t03-mcp-intent.sh - the MCP `intent` tool tells the model, in the text it
# reads, what the daemon found: each conflict the intent caused (the other
# agent and the file) and another agent's live intent with a close summary
# ([duplicate?]); not only in structuredContent.
. "$(dirname "$0")/lib.sh"
base_repo "$TMP/repo"
mkdir -p src
printf 'int a;\n' > src/a.c
commit 00:01 "a.c"
trap 'as stop > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
as api POST /v1/agents '{"id":"alice"}' > /dev/null
as api POST /v1/agents '{"id":"bob"}' > /dev/null
as intent --agent alice --summary "retry the page fetch" src/a.c > /dev/null
printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t03","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"intent","arguments":{"files":["src/a.c"],"summary":"retry the page fetch"}}}' |
    AIRSPACE_AGENT=bob as mcp > "$TMP/out" 2> "$TMP/err"
jq -c 'select(.id == 2)' "$TMP/out" > "$TMP/reply"
jq -r '.result.content[0].text' "$TMP/reply" > "$TMP/text"
check "the intent is declared" jqt "$TMP/reply" '.result.isError != true'
check "structuredContent has the conflict" jqt "$TMP/reply" \
    '[.result.structuredContent.conflicts[] | select(.with == "alice")] | length > 0'
check "the text names the conflict with alice on src/a.c" \
    grep -q "\[conflict\] forward: 'alice' and 'bob' both intend to touch src/a.c" "$TMP/text"
check "the text names alice's duplicate intent" \
    grep -q "\[duplicate?\] 'alice' is already on it: \"retry the page fetch\"" "$TMP/text"
[ "$FAILED" -eq 0 ] || { cat "$TMP/text" "$TMP/err" >&2; }
finish

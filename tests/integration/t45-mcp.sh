# t45-mcp.sh - `airspace mcp` driven by the official MCP TypeScript SDK
# client (tests/mcp/mcp_client.mjs) against a live daemon: negotiation, tool
# list, every tool, a lock refused because another agent holds it, protocol
# errors; then the session's agent exits when the client disconnects.
. "$(dirname "$0")/lib.sh"

: "${AIRSPACE_SOURCE_DIR:?AIRSPACE_SOURCE_DIR must point at the source tree}"
NM="${AIRSPACE_NODE_MODULES:-$AIRSPACE_SOURCE_DIR/node_modules}"
if ! command -v node >/dev/null 2>&1; then
    echo "FAIL: node not found (scripts/setup.sh installs it)" >&2
    exit 1
fi
if [ ! -f "$NM/@modelcontextprotocol/sdk/dist/esm/client/index.js" ]; then
    echo "FAIL: @modelcontextprotocol/sdk not in '$NM' (npm ci)" >&2
    exit 1
fi

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
for f in held mine free bclaim claimed; do
    printf 'int %s(void)\n{\n    return 0;\n}\n' "$f" > "$R/src/$f.c"
done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
"$AIRSPACE_BIN" serve --log-stderr --tick-ms 50 --rescan-ms 60000 \
    2> "$TMP/daemon.log" &
DPID=$!
trap 'kill $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
SOCK="$R/.git/airspace/sock"
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
check "daemon up" [ -S "$SOCK" ]

as api POST /v1/agents '{"id":"bob","client":"claude-code"}' >/dev/null
check "bob locks src/held.c" as lock --agent bob --reason "bob is here" src/held.c
check "bob claims src/bclaim.c" as claim --agent bob src/bclaim.c

if MCP_NODE_MODULES="$NM" node "$AIRSPACE_SOURCE_DIR/tests/mcp/mcp_client.mjs" \
    > "$TMP/node.out" 2> "$TMP/node.err"; then
    ok
else
    fail "SDK client run: $(tail -n 1 "$TMP/node.out")"
    cat "$TMP/node.err" >&2
fi
tail -n 1 "$TMP/node.out"

# The SDK session registered over the main worktree and exited at the end.
as api GET /v1/agents > "$TMP/agents.json"
check "the MCP agent registered with the SDK client name" \
    jqt "$TMP/agents.json" '[.agents[] | select(.client == "sdk-test")] | length == 1'
check "the MCP agent exited when the client closed" \
    jqt "$TMP/agents.json" '[.agents[] | select(.client == "sdk-test")][0].status == "exited"'
check "bob still holds his lock" \
    sh -c "'$AIRSPACE_BIN' locks --json | jq -e '.locks | map(select(.holder == \"bob\" and .pattern == \"src/held.c\")) | length == 1' >/dev/null"
finish

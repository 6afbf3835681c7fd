# t45-mcp.sh - `airspace mcp` driven by the official MCP TypeScript SDK
# client (tests/mcp/mcp_client.mjs) against a live daemon: negotiation, tool
# list (titles, hints, output schemas the SDK checks every result against,
# and what each protocol version is given), every tool, a lock refused
# because another agent holds it, protocol errors; then the session, having
# taken over the main worktree's agent, leaves it (and the lock the person
# there took) when the client disconnects, while a session that created its
# own agent exits it. A session in agent feat's worktree lands its branch
# with the land tool (scope check first).
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
for f in held mine free bclaim claimed human; do
    printf 'int %s(void)\n{\n    return 0;\n}\n' "$f" > "$R/src/$f.c"
done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
"$AIRSPACE_BIN" serve --log-stderr --tick-ms 50 --rescan-ms 60000 \
    2> "$TMP/daemon.log" &
DPID=$!
trap 'kill $DPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
SOCK="$R/.git/airspace/sock"
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
check "daemon up" [ -S "$SOCK" ]

as api POST /v1/agents '{"id":"bob","client":"claude-code"}' > "$TMP/bob.json"
check "a new agent: created" jqt "$TMP/bob.json" '.id == "bob" and .created == true'
as api POST /v1/agents '{"id":"bob","label":"bob again"}' > "$TMP/bob.json"
check "the same id again: updated, not created" jqt "$TMP/bob.json" \
    '.created == false and .label == "bob again"'
# The person in the main worktree locks a file before any session starts.
MAIN=$(as api GET /v1/agents | jq -r --arg r "$(pwd -P)" \
    '.agents[] | select(.worktree == $r) | .id')
check "the main worktree is an agent" [ -n "$MAIN" ]
check "the person locks src/human.c" as lock --reason "editing by hand" src/human.c
check "bob locks src/held.c" as lock --agent bob --reason "bob is here" src/held.c
check "bob claims src/bclaim.c" as claim --agent bob src/bclaim.c

# agent feat: a worktree with a commit of its own, for the land tool
as agent new feat > /dev/null 2> "$TMP/err" || fail "agent new feat: $(cat "$TMP/err")"
WF="$TMP/repo.airspace/feat"
printf 'int feat(void)\n{\n    return 0;\n}\n' > "$WF/src/feat.c"
git -C "$WF" add src/feat.c
git -C "$WF" commit -qm "feat's work"
FEAT_TIP=$(git -C "$WF" rev-parse HEAD)

if MCP_LAND_DIR="$WF" MCP_NODE_MODULES="$NM" node "$AIRSPACE_SOURCE_DIR/tests/mcp/mcp_client.mjs" \
    > "$TMP/node.out" 2> "$TMP/node.err"; then
    ok
else
    fail "SDK client run: $(tail -n 1 "$TMP/node.out")"
    cat "$TMP/node.err" >&2
fi
tail -n 1 "$TMP/node.out"

# The land tool merged feat's branch (main had moved: a merge commit), and
# main's checkout followed.
check "the MCP land is HEAD" [ "$(git log -1 --format=%s)" = "land feat" ]
check "... merging feat's tip" [ "$(git rev-parse HEAD^2)" = "$FEAT_TIP" ]
check "... src/feat.c checked out in main's worktree" [ -f src/feat.c ]
# The commit tool committed src/mine.c alone, and nothing of src/held.c.
check "the MCP commit is HEAD's first parent" [ "$(git log -1 --format=%s HEAD^1)" = "mcp commit" ]
check "... with src/mine.c only" [ "$(git show --format= --name-only HEAD^1)" = src/mine.c ]
check "... src/held.c and src/free.c still uncommitted" \
    [ "$(git status --porcelain src | tr '\n' ' ')" = " M src/free.c  M src/held.c " ]

# The SDK session took the main worktree over (keeping its id) and, not
# having created it, left it as it was: active, the person's lock kept.
as api GET /v1/agents > "$TMP/agents.json"
check "the MCP session took the main worktree over, keeping its id" \
    jqt "$TMP/agents.json" "[.agents[] | select(.client == \"sdk-test\")] | length == 1 and .[0].id == \"$MAIN\""
check "the taken-over agent is still active after the client closed" \
    jqt "$TMP/agents.json" '[.agents[] | select(.client == "sdk-test")][0].status == "active"'
check "the person's lock survived the session" \
    sh -c "'$AIRSPACE_BIN' locks --json | jq -e '.locks | map(select(.holder == \"$MAIN\" and .pattern == \"src/human.c\")) | length == 1' >/dev/null"
# A second session finds the worktree's agent registered: at its first
# tool call it creates its own agent (sharing the worktree), and that one
# exits when stdin closes.
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-client","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}}' \
    | env -u AIRSPACE_AGENT "$AIRSPACE_BIN" mcp > "$TMP/raw.out" 2> "$TMP/raw.err"
as api GET /v1/agents > "$TMP/agents.json"
check "the second session created its own agent, which exited" \
    jqt "$TMP/agents.json" '[.agents[] | select(.client == "raw-client")] | length == 1 and .[0].status == "exited" and .[0].id != "'"$MAIN"'"'
check "the person's lock survived the second session too" \
    sh -c "'$AIRSPACE_BIN' locks --json | jq -e '.locks | map(select(.holder == \"$MAIN\")) | length == 1' >/dev/null"
check "bob still holds his lock" \
    sh -c "'$AIRSPACE_BIN' locks --json | jq -e '.locks | map(select(.holder == \"bob\" and .pattern == \"src/held.c\")) | length == 1' >/dev/null"

# The advisories tool says why: feat rewrites src/free.c, which the main
# worktree changed too (uncommitted): the two trees conflict there.
printf 'int free_in_feat(void)\n{\n    return 1;\n}\n' > "$WF/src/free.c"
n=0
until as api GET '/v1/advisories?agent=feat' |
    jq -e '[.advisories[] | select(.level == "resolution")] | length == 1' > /dev/null; do
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 150 ] || break
done
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-client","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"advisories","arguments":{}}}' |
    (cd "$WF" && AIRSPACE_AGENT=feat "$AIRSPACE_BIN" mcp) > "$TMP/adv.out" 2> "$TMP/adv.err"
jq -r 'select(.id == 2) | .result.content[0].text' "$TMP/adv.out" > "$TMP/adv.txt"
check "the advisories tool names the resolution and the channels that make it" \
    grep -Eq "resolution .* <-> .*, risk 1.00 from (merge, overlap|overlap, merge)" "$TMP/adv.txt"
finish

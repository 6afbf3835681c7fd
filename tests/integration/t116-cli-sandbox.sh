# t116-cli-sandbox.sh - the CLI run where a sandbox forbids connecting to
# the daemon's socket (the pinned Codex CLI's own sandbox, `codex sandbox`,
# as its shell tool runs commands): it says that the connection was not
# permitted and that the client's hooks and MCP tools reach the daemon,
# and starts no second daemon. It said "no daemon serves" and then failed
# to start one ("another daemon serves this airspace", or a read-only
# start lock), while the daemon ran.
. "$(dirname "$0")/lib.sh"
. "$AIRSPACE_SOURCE_DIR/tests/clients/lib-clients.sh"
CODEX="$CLIENTS/node_modules/.bin/codex"
client_skip_unless "$CODEX" "the Codex CLI"
offline

R="$TMP/repo"
base_repo "$R"
start_daemon --rescan-ms 60000
mkdir -p "$TMP/codex-home"
# (the sanitizer's leak check cannot run under the sandbox's ptrace ban)
HOME="$TMP/codex-home" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
    "$CODEX" sandbox -- "$AIRSPACE_BIN" locks > "$TMP/out" 2> "$TMP/err" && rc=0 || rc=$?
echo "rc=$rc" >> "$TMP/out"
grep -v '^WARNING' "$TMP/err" > "$TMP/said" || true
check "exit 3, daemon unreachable ($(cat "$TMP/out"))" grep -qx 'rc=3' "$TMP/out"
check "it says the connection was not permitted ($(cat "$TMP/said"))" \
    grep -q "cannot connect to '.*/sock': Operation not permitted (this process may run in a sandbox" "$TMP/said"
check "... not that no daemon serves" sh -c "! grep -qi 'no daemon serves\|did not start\|another daemon' '$TMP/said'"
check "the daemon still runs, the same one" sh -c \
    "curl -sf --unix-socket '$SOCK' http://a/v1/status | jq -e '.pid == $DPID' > /dev/null"
check "outside the sandbox the CLI reaches it" as locks
finish

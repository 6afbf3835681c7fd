# t58-mcp-signals.sh - `airspace mcp` stopped the way clients stop it: a
# SIGINT, SIGTERM or SIGHUP while it waits for input. A session that
# registered its agent tells the daemon the agent exited (its lock released,
# with events) and then dies of the signal; a session flying as an agent
# given with --agent leaves that agent and its lock as they are.
. "$(dirname "$0")/lib.sh"

# fresh_repo NAME: a repository with src/a.c and src/d.c, its daemon up,
# and agent bob registered in its main worktree (taking the discovered
# worktree agent over), so that an MCP session there creates its own agent.
fresh_repo() {
    R="$TMP/$1"
    new_repo "$R"
    mkdir -p "$R/src"
    for f in a d; do echo "int $f;" > "$R/src/$f.c"; done
    git -C "$R" add -A
    git -C "$R" commit -qm base
    cd "$R"
    start_daemon --tick-ms 50 --rescan-ms 60000
    as api POST /v1/agents "{\"id\":\"bob\",\"client\":\"person\",\"worktree\":\"$R\"}" > /dev/null
}

# mcp_start NAME FILE [OPTIONS...]: an MCP session on a pipe (MPID, fd 3
# its stdin) that initializes as client NAME and locks FILE; waits for
# both replies.
mcp_start() {
    name=$1 file=$2
    shift 2
    rm -f "$TMP/in"
    mkfifo "$TMP/in"
    : > "$TMP/$name.out"
    env -u AIRSPACE_AGENT "$AIRSPACE_BIN" mcp "$@" > "$TMP/$name.out" \
        2> "$TMP/$name.err" < "$TMP/in" &
    MPID=$!
    exec 3> "$TMP/in"
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"'"$name"'","version":"1"}}}' \
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lock","arguments":{"patterns":["'"$file"'"]}}}' >&3
    n=0
    while [ "$(wc -l < "$TMP/$name.out")" -lt 2 ] && [ $n -lt 200 ]; do
        sleep 0.05
        n=$((n + 1))
    done
}

# mcp_stop SIGNAL: send it, close fd 3, and set ST to the exit status; a
# server still there after 10 s is killed (ST 137).
mcp_stop() {
    kill -"$1" "$MPID"
    (sleep 10 && kill -KILL "$MPID") > /dev/null 2>&1 &
    WD=$!
    ST=0
    wait "$MPID" || ST=$?
    kill "$WD" 2> /dev/null || true
    exec 3>&-
}

# holder_of FILE: who holds a lock on it ("" when nobody).
holder_of() {
    as locks --json | jq -r --arg p "$1" '[.locks[] | select(.pattern == $p)][0].holder // ""'
}

for sig in INT TERM HUP; do
    case $sig in
    INT) want=130 ;;
    TERM) want=143 ;;
    HUP) want=129 ;;
    esac
    file=src/a.c
    fresh_repo "repo-$sig"
    mcp_start "sig-$sig" "$file"
    check "SIG$sig: the lock was granted" grep -q "locked '$file'" "$TMP/sig-$sig.out"
    me=$(holder_of "$file")
    check "SIG$sig: the session's agent holds it" [ -n "$me" ]
    last=$(as api GET /v1/status | jq .lastEventId)
    mcp_stop "$sig"
    check "SIG$sig: the server dies of the signal ($ST)" [ "$ST" = "$want" ]
    check "SIG$sig: it says why on stderr" grep -q "SIG$sig: leaving" "$TMP/sig-$sig.err"
    check "SIG$sig: the lock is gone" [ -z "$(holder_of "$file")" ]
    as api GET /v1/agents > "$TMP/agents.json"
    check "SIG$sig: the agent exited" jqt "$TMP/agents.json" \
        "[.agents[] | select(.id == \"$me\")][0].status == \"exited\""
    as api GET "/v1/ledger?after=$last" > "$TMP/ev.json"
    check "SIG$sig: agent.exited was emitted" jqt "$TMP/ev.json" \
        "[.events[] | select(.type == \"agent.exited\" and .data.id == \"$me\")] | length == 1"
    check "SIG$sig: the release was emitted" jqt "$TMP/ev.json" \
        "[.events[] | select((.type | startswith(\"lock.released\")) and .agent == \"$me\")] | length == 1"
    check "SIG$sig: bob is still active" jqt "$TMP/agents.json" \
        '[.agents[] | select(.id == "bob")][0].status == "active"'
    as stop > /dev/null
    wait "$DPID" || true
done

# An agent given with --agent is someone else's: left flying, lock kept.
fresh_repo repo-given
mcp_start given src/d.c --agent bob
check "--agent bob: the lock was granted" [ "$(holder_of src/d.c)" = bob ]
mcp_stop INT
check "--agent bob: the server dies of SIGINT" [ "$ST" = 130 ]
check "--agent bob: bob keeps the lock" [ "$(holder_of src/d.c)" = bob ]
as api GET /v1/agents > "$TMP/agents.json"
check "--agent bob: bob is still active" jqt "$TMP/agents.json" \
    '[.agents[] | select(.id == "bob")][0].status == "active"'
finish

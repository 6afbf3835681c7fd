# t63-daemon-lifetime.sh - the daemon leaves by itself: when its
# repository is gone (deleted, moved, or replaced by another at its path),
# and after --idle-exit-ms (or [daemon] idle-exit-ms) with no registered
# agent active, no event stream open and no request; 0 never. It leaves
# cleanly: exit 0, its socket removed, its ledger stored.
. "$(dirname "$0")/lib.sh"

# gone PID: true once process PID has exited (at most 10 s)
gone() {
    n=0
    while kill -0 "$1" 2> /dev/null; do
        n=$((n + 1))
        [ $n -lt 200 ] || return 1
        sleep 0.05
    done
}
# exits PID: waits for PID (a child) and says whether it exited 0
exits0() {
    gone "$1" || return 1
    wait "$1"
}

# ---- the repository deleted ----
base_repo "$TMP/r1"
start_daemon --tick-ms 50 --idle-exit-ms 0
cd "$TMP"
rm -rf "$TMP/r1"
check "deleted repository: the daemon exits 0" exits0 "$DPID"
check "it says why" grep -q "repository gone: shutting down" "$TMP/daemon.log"

# ---- the repository moved away ----
base_repo "$TMP/r2"
start_daemon --tick-ms 50 --idle-exit-ms 0
cd "$TMP"
mv "$TMP/r2" "$TMP/r2-moved"
check "moved repository: the daemon exits 0" exits0 "$DPID"
check "the socket of the moved repository is removed" \
    [ ! -e "$TMP/r2-moved/.git/airspace/sock" ]

# ---- another repository at the same path (while the daemon is stopped,
# so it never sees the path empty) ----
base_repo "$TMP/r3"
start_daemon --tick-ms 50 --idle-exit-ms 0
cd "$TMP"
kill -STOP "$DPID"
rm -rf "$TMP/r3"
base_repo "$TMP/r3"
kill -CONT "$DPID"
check "replaced repository: the old daemon exits 0" exits0 "$DPID"
check "and leaves no socket in the new one" [ ! -e "$TMP/r3/.git/airspace/sock" ]
cd "$TMP"

# ---- idle: no agent, no client ----
base_repo "$TMP/r4"
: > "$TMP/daemon.log"
start_daemon --tick-ms 50 --idle-exit-ms 1000
api POST /v1/agents '{"id":"alice"}'
api POST /v1/locks '{"agent":"alice","pattern":"x"}'
sleep 1.3
check "an active agent keeps the daemon" kill -0 "$DPID"
# an event stream is a client: the daemon stays while it is open
curl -sN --unix-socket "$SOCK" http://a/v1/events > /dev/null 2>&1 &
SSE=$!
api POST /v1/agents/alice/exit
sleep 1.3
check "an open event stream keeps the daemon" kill -0 "$DPID"
kill "$SSE"
wait "$SSE" 2> /dev/null || true
check "idle: the daemon exits 0" exits0 "$DPID"
check "it says why" grep -q "idle for .* ms (no active agent, no client): shutting down" "$TMP/daemon.log"
check "its socket is removed" [ ! -e "$SOCK" ]
# what it did is in the store: a new daemon replays it
start_daemon --idle-exit-ms 0
api GET '/v1/ledger?type=lock.'
check "the ledger kept the lock's grant and release" jqt "$TMP/body" \
    '[.events[].type] == ["lock.granted", "lock.released_all"]'
api POST /v1/stop
wait "$DPID" 2> /dev/null || true

# ---- 0: never ----
start_daemon --tick-ms 50 --idle-exit-ms 0
sleep 0.6
check "idle-exit-ms 0: the daemon stays" kill -0 "$DPID"
api POST /v1/stop
wait "$DPID" 2> /dev/null || true

# ---- the configuration file, and a daemon started on demand ----
printf '[daemon]\n\tidle-exit-ms = 300\n\ttick-ms = 50\n' > .git/airspace/config
PID=$(as status --json | jq -r .daemon.pid)
check "a daemon started on demand ($PID)" [ "$PID" -gt 0 ]
check "reads idle-exit-ms" gone "$PID"
check "no socket left" [ ! -e "$SOCK" ]
rc=0
as status --no-start > /dev/null 2>&1 || rc=$?
check "status --no-start: nobody serves (exit 3, got $rc)" [ $rc -eq 3 ]

finish

# t05-watch-daemon-gone.sh - `airspace watch` while the daemon stops: it
# prints what came, then exits 3 saying the daemon closed the event stream,
# not a transfer library's "Transferred a partial file".
. "$(dirname "$0")/lib.sh"
base_repo "$TMP/repo"
trap 'as stop > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
as api POST /v1/agents '{"id":"alice"}' > /dev/null
(
    set +e
    "$AIRSPACE_BIN" watch > "$TMP/out" 2> "$TMP/err"
    echo $? > "$TMP/rc"
) &
WPID=$!
sleep 0.5 # the stream is open
as lock --agent alice x > /dev/null
sleep 0.5
as stop > /dev/null
n=0
while kill -0 $WPID 2> /dev/null && [ $n -lt 100 ]; do
    sleep 0.05
    n=$((n + 1))
done
check "watch ended when the daemon stopped" [ -s "$TMP/rc" ]
check "watch: exit 3 ($(cat "$TMP/rc" 2> /dev/null))" [ "$(cat "$TMP/rc" 2> /dev/null)" = 3 ]
check "watch printed the lock first" grep -q "lock.granted" "$TMP/out"
check "watch says the daemon closed the stream" grep -q "closed the event stream" "$TMP/err"
check "... not the transfer library's words" sh -c "! grep -qi 'partial file' '$TMP/err'"
[ "$FAILED" -eq 0 ] || cat "$TMP/err" >&2
finish

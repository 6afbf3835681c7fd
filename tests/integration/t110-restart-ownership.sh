# t110-restart-ownership.sh - the conflict detector after a restart: erin
# changes u.h in her worktree, then fay declares an intent on it, an
# in-flight overlap and nobody's trespass; the daemon restarts, reads
# erin's worktree again, and when she began changing u.h is not known: it
# stays an in-flight overlap, with no ownership conflict and no
# escalation to a human. A worktree made after the restart whose agent
# then changes u.h inside fay's intent does trespass on it.
. "$(dirname "$0")/lib.sh"
new_repo "$TMP/repo"
cd "$TMP/repo"
seq -f 'line %g' 1 40 > u.h
commit 00:00 C0
git worktree add -q -b erin "$TMP/erin" main
sed -i 's/^line 10$/erin 10/' "$TMP/erin/u.h"
start_daemon --debounce-ms 50 --tick-ms 50

shapes() { # the shapes of the conflicts on u.h, "shape:a:b" sorted
    api GET /v1/conflicts &&
        jq -r '[.conflicts[] | select(.file == "u.h") | "\(.shape):\(.agents | join(":"))"] | sort | join(" ")' "$TMP/body"
}
wait_for() { # wait_for CMD... (at most 5 s)
    n=0
    until "$@" || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
}
api POST /v1/agents '{"id":"fay"}'
api POST /v1/intents '{"agent":"fay","files":["u.h"],"summary":"rework u.h"}'
check "fay declares an intent on u.h ($CODE)" [ "$CODE" = 200 ]
inflight() { [ "$(shapes)" = "in-flight:erin:fay" ]; }
wait_for inflight
check "before the restart: an in-flight overlap only ($(shapes))" inflight

kill "$DPID"
wait "$DPID" 2> /dev/null || true
start_daemon --debounce-ms 50 --tick-ms 50
api POST /v1/refresh
sleep 1 # twenty ticks: an escalation would have come
check "after the restart: still an in-flight overlap only ($(shapes))" inflight
api GET '/v1/ledger?type=conflict.escalated'
check "no escalation after the restart" jqt "$TMP/body" '.events | length == 0'
api GET /v1/agents/supervisor/inbox?peek=1
check "nothing waits for a human" jqt "$TMP/body" '[.messages[] | select(.body | contains("ownership"))] | length == 0'

# gus's worktree is made now, and he changes u.h inside fay's intent
git worktree add -q -b gus "$TMP/gus" main
api POST /v1/refresh
sleep 0.5
sed -i 's/^line 20$/gus 20/' "$TMP/gus/u.h"
trespass() { shapes | grep -q "ownership:gus:fay"; }
wait_for trespass
check "gus, who began after fay's intent, trespasses on it ($(shapes))" trespass
check "erin still does not ($(shapes))" sh -c '! printf "%s" "$1" | grep -q "ownership:erin"' _ "$(shapes)"
finish

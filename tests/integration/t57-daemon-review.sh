# t57-daemon-review.sh - a discovered worktree's agent taken over by a
# registration that names only its worktree (no id: it keeps its id) has its
# reports stored then, so a kill -9 keeps them; restarts make no second
# human agent for the shared tree.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
seq 1 10 | sed 's/^/line /' > "$R/x.txt"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
SOCK="$R/.git/airspace/sock"
DPID=
trap 'kill -9 $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
start() {
    "$AIRSPACE_BIN" serve --log-stderr --tick-ms 50 --debounce-ms 50 \
        --rescan-ms 60000 2>> "$TMP/daemon.log" &
    DPID=$!
    n=0
    until curl -sf --unix-socket "$SOCK" http://a/v1/status > /dev/null 2>&1; do
        sleep 0.05
        n=$((n + 1))
        [ $n -lt 400 ] || return 1
    done
}
crash() {
    kill -9 $DPID
    wait $DPID 2> /dev/null || true
    start
}
reported() { # reported AGENT: its reported paths, space separated
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1?files=1" |
        jq -r '(.reported // []) | join(" ")'
}

start
git worktree add -q -b side "$TMP/side"
api POST /v1/refresh
api GET /v1/agents
SIDE=$(jq -r ".agents[] | select(.worktree == \"$(realpath "$TMP/side")\") | .id" "$TMP/body")
check "the side worktree is discovered ($SIDE)" [ -n "$SIDE" ]
echo more >> "$TMP/side/x.txt"
api POST "/v1/agents/$SIDE/edits" '{"path":"x.txt"}'
check "the discovered agent reports ($CODE)" [ "$CODE" = 200 ]
api POST /v1/agents "{\"client\":\"test\",\"worktree\":\"$TMP/side\"}"
check "a registration naming the worktree takes $SIDE over" \
    jqt "$TMP/body" ".created == false and .id == \"$SIDE\""
api POST /v1/agents "{\"id\":\"dave\",\"client\":\"test\",\"worktree\":\"$TMP/side\"}"
check "$SIDE reported x.txt ($(reported "$SIDE"))" [ "$(reported "$SIDE")" = x.txt ]
check "restarts after a kill -9" crash
check "$SIDE still reported x.txt ($(reported "$SIDE"))" [ "$(reported "$SIDE")" = x.txt ]
humans() {
    curl -s --unix-socket "$SOCK" http://a/v1/agents |
        jq "[.agents[] | select(.kind == \"human\")] | length"
}
check "one human agent ($(humans))" [ "$(humans)" = 1 ]
check "restarts again" crash
check "still one human agent after two restarts ($(humans))" [ "$(humans)" = 1 ]

# an agent that exited reports nothing more: its reports went with it
api POST /v1/agents/dave/exit
api POST /v1/agents/dave/edits '{"path":"x.txt","lines":[[1,1]]}'
check "an exited agent's edit is refused (409, got $CODE)" [ "$CODE" = 409 ]
check "it says to register again" grep -q "register it again" "$TMP/body"
api GET '/v1/agents/dave?files=1'
check "nothing was stored for it" jqt "$TMP/body" '(.files | length) == 0'
kill $DPID
wait $DPID 2> /dev/null || true
finish

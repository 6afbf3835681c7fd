# t80-top.sh - `airspace top` in a real terminal (a detached tmux session
# of a fixed size): the agents, the advisory and the lock are on the
# screen; a new lock and a new advisory appear within seconds; the screen
# follows a resize; NO_COLOR leaves no colour escapes; the daemon gone says
# so and the picture comes back with it; q quits with exit 0. Without a
# terminal: exit 2, pointing at status and watch.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
i=1
while [ $i -le 20 ]; do echo "int v$i = $i;" >> "$R/src/a.c"; i=$((i + 1)); done
cp "$R/src/a.c" "$R/src/b.c"
git -C "$R" add -A
git -C "$R" commit -qm base
git -C "$R" worktree add -q -b alice "$TMP/alice" main
git -C "$R" worktree add -q -b bob "$TMP/bob" main
git -C "$R" worktree add -q -b carol "$TMP/carol" main
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
as api POST /v1/agents "{\"id\":\"alice\",\"client\":\"claude-code\",\"worktree\":\"$TMP/alice\"}" > /dev/null
as api POST /v1/agents "{\"id\":\"bob\",\"client\":\"codex\",\"worktree\":\"$TMP/bob\",\"lanes\":[\"src/b*\"]}" > /dev/null
as lock --agent alice --reason "parser rework" src/a.c > /dev/null
as intent --agent alice --summary "rework the parser" src/a.c > /dev/null
# both change the same lines of b.c: a resolution advisory
sed -i 's/v3 = 3/v3 = 30/' "$TMP/alice/src/b.c"
sed -i 's/v3 = 3/v3 = 33/' "$TMP/bob/src/b.c"
n=0
until as api GET /v1/advisories | jq -e '.advisories | length == 1' > /dev/null; do
    n=$((n + 1))
    [ $n -lt 100 ] || break
    sleep 0.1
done

# ---- not a terminal ----
as top < /dev/null > "$TMP/out" 2> "$TMP/err" && st=0 || st=$?
check "no terminal: exit 2" [ "$st" = 2 ]
check "... pointing at status and watch" grep -q "airspace status.*airspace watch" "$TMP/err"

# ---- in tmux ----
unset TMUX # a private server, also when the tests run inside tmux
TM="tmux -S $TMP/tmux.sock -f /dev/null"
# start_top NAME ENV...: airspace top in a new detached session, 100x40;
# its exit status goes to $TMP/NAME.exit
start_top() {
    name=$1
    shift
    $TM new-session -d -s "$name" -x 100 -y 40 \
        "env $* '$AIRSPACE_BIN' top; echo \$? > '$TMP/$name.exit'"
}
if ! start_top colour -u NO_COLOR TERM=screen-256color 2> "$TMP/tmux.err"; then
    echo "SKIP: tmux cannot start: $(cat "$TMP/tmux.err")"
    exit 0
fi
trap '$TM kill-server 2>/dev/null || true; kill $DPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
screen() { # screen NAME [-e]: the pane's text now
    $TM capture-pane -p ${2:-} -t "$1" > "$TMP/screen" 2> /dev/null || : > "$TMP/screen"
}
# wait_screen NAME ERE: until the pane shows ERE, up to 10 s
wait_screen() {
    n=0
    while :; do
        screen "$1"
        grep -Eq "$2" "$TMP/screen" && return 0
        n=$((n + 1))
        [ $n -lt 100 ] || { cat "$TMP/screen" >&2; return 1; }
        sleep 0.1
    done
}
check "the agents are on the screen" wait_screen colour '^alice +claude-code +active'
check "... with their client and lanes" grep -Eq '^bob +codex +active +[0-9]+ +lanes src/b\*' "$TMP/screen"
check "... and alice's intent" grep -Eq '^alice .*rework the parser: src/a\.c' "$TMP/screen"
check "the advisory: level, pair, risk, who holds and steers" \
    grep -Eq '^RESOLUTION +(alice ~ bob|bob ~ alice) +1\.00 +[a-z]+ +[a-z]+ +src/b\.c' "$TMP/screen"
check "the lock: pattern, holder, kind, expiry, reason" \
    grep -Eq '^src/a\.c +alice +exclusive lock +[45]m[0-9]{2}s +parser rework' "$TMP/screen"
check "the latest events, from the record" grep -Eq '^ *[0-9]+ [0-9:]{8} [a-z._]+ ' "$TMP/screen"
check "the title counts them" grep -Eq '^airspace top \| 4 agents +1 resolution +0 traffic +1 lock ' "$TMP/screen"
check "live" grep -q 'live (event [0-9]*)' "$TMP/screen"
screen colour -e
check "colour by default (the resolution in red)" grep -q "$(printf '\033')\\[31m" "$TMP/screen"

# ---- it follows: a new lock, a new advisory ----
as lock --agent bob --ttl 90 src/c.c > /dev/null
check "a new lock appears" wait_screen colour '^src/c\.c +bob +exclusive lock +(1m[0-9]{2}s|[0-9]+s)'
sed -i 's/v9 = 9/v9 = 90/' "$TMP/alice/src/a.c"
sed -i 's/v9 = 9/v9 = 99/' "$TMP/carol/src/a.c"
check "a new advisory appears" wait_screen colour '^RESOLUTION +(alice ~ carol|carol ~ alice) .*src/a\.c'
check "... the event too" grep -Eq '^ *[0-9]+ [0-9:]{8} advisory .*-> resolution' "$TMP/screen"

# ---- resize ----
$TM resize-window -t colour -x 72 -y 20
# (wait for what only the new layout has: until top redraws, tmux shows
# the old screen cut to the new size, the agents' lines included)
check "redrawn at the new size" wait_screen colour '^AGENT .* \+[0-9]+ more$'
check "... the agents still shown" grep -Eq '^alice +claude-code +active' "$TMP/screen"
check "... nothing past 72 columns" [ "$(awk '{ if (length > m) m = length } END { print m + 0 }' "$TMP/screen")" -le 72 ]
check "... the events still shown" grep -q '^EVENTS' "$TMP/screen"
$TM resize-window -t colour -x 100 -y 40
check "back to 100x40: every agent again" wait_screen colour '^carol '

# ---- the daemon gone, then back: the stream resumes ----
kill "$DPID"
wait "$DPID" 2> /dev/null || true
check "daemon gone, retrying" wait_screen colour 'daemon gone, retrying'
check "... the last picture stays" grep -q '^alice ' "$TMP/screen"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
trap '$TM kill-server 2>/dev/null || true; kill $DPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
check "back live" wait_screen colour 'live \(event'
as lock --agent alice --reason "after the restart" src/d.c > /dev/null
check "events after the restart arrive" wait_screen colour 'lock\.granted +alice +src/d\.c'
check "... and the locks are read again" wait_screen colour '^src/d\.c +alice '

# ---- q quits ----
$TM send-keys -t colour q
n=0
until [ -s "$TMP/colour.exit" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
check "q quits with exit 0" [ "$(cat "$TMP/colour.exit" 2> /dev/null)" = 0 ]

# ---- NO_COLOR: no colour at all ----
start_top plain NO_COLOR=1 TERM=screen-256color
check "NO_COLOR: the screen is drawn" wait_screen plain '^RESOLUTION '
screen plain -e
# every SGR parameter: none may be a colour (30-38, 40-48, 90-107; tmux
# itself puts 39 and 49, the defaults, after a reset)
check "NO_COLOR: no colour escapes" sh -c "! grep -ao '$(printf '\033')\\[[0-9;]*m' '$TMP/screen' |
    tr -d '\\033[m' | tr ';' '\\n' | grep -Eq '^(3[0-8]|4[0-8]|9[0-7]|10[0-7])\$'"
check "... but escapes were captured (bold headers)" grep -q "$(printf '\033')\\[1m" "$TMP/screen"
$TM send-keys -t plain q
n=0
until [ -s "$TMP/plain.exit" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
check "q quits with exit 0 (NO_COLOR)" [ "$(cat "$TMP/plain.exit" 2> /dev/null)" = 0 ]

# ---- a terminal type curses cannot drive: exit 2 ----
start_top bogus TERM=airspace-no-such-terminal
n=0
until [ -s "$TMP/bogus.exit" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
check "an unknown terminal type: exit 2" [ "$(cat "$TMP/bogus.exit" 2> /dev/null)" = 2 ]
finish

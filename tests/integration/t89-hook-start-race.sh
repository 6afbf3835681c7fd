# t89-hook-start-race.sh - hooks of several agents called at once on a
# repository without a daemon (with a few commands among them) start one
# daemon between them, by the commands' start lock: every hook answers
# (exit 0, within its deadline), every command succeeds, no second daemon
# is even tried ("not serving" in the log), and the next hook call is
# checked by the daemon that won.
. "$(dirname "$0")/lib.sh"

N=10
ROUNDS=3
HOOKBIN="$(dirname "$AIRSPACE_BIN")/airspace-hook"
[ -x "$HOOKBIN" ] || HOOKBIN=

serving() {
    pgrep -f "^airspace serve --repo $1( |\$)" || true
}
trap 'for p in $(pgrep -f "^airspace serve --repo $TMP/" || true); do
    kill "$p" 2> /dev/null; done; rm -rf "$TMP"' EXIT

round=1
while [ $round -le $ROUNDS ]; do
    base_repo "$TMP/r$round"
    R=$(pwd -P)
    mkdir -p src
    echo 'int f(void);' > src/a.h
    i=1
    pids=
    rm -f "$TMP/go"
    while [ $i -le $N ]; do
        (
            while [ ! -e "$TMP/go" ]; do sleep 0.01; done
            if [ $((i % 5)) = 0 ]; then
                exec "$AIRSPACE_BIN" status > "$TMP/out.$round.$i" 2> "$TMP/err.$round.$i"
            fi
            json="{\"session_id\":\"s$i-$round\",\"cwd\":\"$R\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$R/src/a.h\"}}"
            # half through the lean binary, half through airspace hook
            if [ -n "$HOOKBIN" ] && [ $((i % 2)) = 0 ]; then
                printf '%s' "$json" | exec "$HOOKBIN" claude-code > "$TMP/out.$round.$i" 2> "$TMP/err.$round.$i"
            else
                printf '%s' "$json" | exec "$AIRSPACE_BIN" hook claude-code > "$TMP/out.$round.$i" 2> "$TMP/err.$round.$i"
            fi
        ) &
        pids="$pids $!"
        i=$((i + 1))
    done
    sleep 0.2
    : > "$TMP/go"
    i=1
    for p in $pids; do
        rc=0
        wait "$p" || rc=$?
        check "round $round, caller $i: exit 0 ($rc: $(cat "$TMP/err.$round.$i"))" [ "$rc" = 0 ]
        i=$((i + 1))
    done
    n=0
    until curl -sf --unix-socket .git/airspace/sock http://a/v1/status > /dev/null 2>&1 || [ $n -gt 200 ]; do
        sleep 0.05
        n=$((n + 1))
    done
    sleep 0.5 # a late start would show up in the log by now
    n=$(serving "$R" | wc -l)
    check "round $round: one daemon runs ($n)" [ "$n" = 1 ]
    started=$(grep -c "starting: pid" .git/airspace/daemon.log || true)
    refused=$(grep -c "not serving" .git/airspace/daemon.log || true)
    check "round $round: one daemon started ($started), none refused ($refused)" \
        [ "$started,$refused" = "1,0" ]
    out=$(printf '%s' "{\"session_id\":\"late-$round\",\"cwd\":\"$R\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$R/src/a.h\"}}" |
        "$AIRSPACE_BIN" hook claude-code)
    check "round $round: the next hook call is checked ($out)" \
        sh -c "! printf '%s' '$out' | grep -q 'not checked'"
    as stop > /dev/null 2>&1
    d=$(serving "$R")
    k=0
    while [ -n "$d" ] && kill -0 $d 2> /dev/null && [ $k -lt 200 ]; do
        sleep 0.05
        k=$((k + 1))
    done
    round=$((round + 1))
done
finish

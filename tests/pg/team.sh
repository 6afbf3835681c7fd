# team.sh - helpers of the team-store tests (t97, t98), sourced after
# tests/integration/lib.sh with TMP (clones c1..cN in it), URL (the shared
# store) and AIRSPACE_BIN set. start K (clone K's daemon, its pid in PK),
# req K METHOD PATH [JSON], ms, all CMD.

# start K: the daemon of clone K on the shared store
start() {
    (cd "$TMP/c$1" && exec "$AIRSPACE_BIN" serve --log-stderr --store "$URL" \
        --tick-ms 50 --rescan-ms 600000 --idle-exit-ms 0 2>> "$TMP/d$1.log") &
    eval "P$1=$!"
    PIDS="$PIDS $!"
    n=0
    until curl -sf --unix-socket "$TMP/c$1/.git/airspace/sock" http://a/v1/status > /dev/null 2>&1; do
        sleep 0.05
        n=$((n + 1))
        [ $n -lt 300 ] || { echo "daemon $1 did not start" >&2; cat "$TMP/d$1.log" >&2; return 1; }
    done
}
# req K METHOD PATH [JSON]: one request to daemon K; body in $TMP/body, CODE
req() {
    s="$TMP/c$1/.git/airspace/sock"
    if [ $# -ge 4 ]; then
        CODE=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$s" \
            -X "$2" -H 'Content-Type: application/json' --data "$4" "http://a$3")
    else
        CODE=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$s" -X "$2" "http://a$3")
    fi
}
ms() { date +%s%3N; }
# all CMD...: the commands joined by &&, for check (one assertion)
all() { sh -c "$1"; }

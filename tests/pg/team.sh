# team.sh - helpers of the team-store tests (t16, t19, t97, t98, t99),
# sourced after tests/integration/lib.sh (TMP, AIRSPACE_BIN set):
# team_server (a real PostgreSQL server, or SKIP), team_remote N (a bare
# remote and N clones of it), start K (clone K's daemon, its pid in PK),
# req K METHOD PATH [JSON], ms, all CMD.

# team_server: exit 0 with SKIP when the PostgreSQL server programs are
# missing; else a fresh server (initdb) in PGD, its URL in URL, and an exit
# trap that stops the daemons in PIDS (kill $TEAM_KILL, e.g. -9), the server
# and removes TMP.
team_server() {
    PGT="${AIRSPACE_SOURCE_DIR:?}/tests/pg/pgtemp.sh"
    if ! sh "$PGT" check; then
        echo "SKIP: no PostgreSQL server programs (scripts/setup.sh installs postgresql)"
        echo "0 passed, 0 failed"
        exit 0
    fi
    PGD=$(mktemp -d /tmp/airspace-pg.XXXXXX)
    PIDS=""
    trap team_cleanup EXIT
    URL=$(sh "$PGT" start "$PGD")
}
team_cleanup() {
    for p in $PIDS; do kill ${TEAM_KILL:-} "$p" 2> /dev/null || true; done
    wait 2> /dev/null || true
    sh "$PGT" stop "$PGD"
    rm -rf "$PGD" "$TMP"
}
# team_remote N: a bare remote $TMP/remote.git whose main holds src/a.c
# (40 lines "line K"), and its clones $TMP/c1..cN; the cwd is then TMP.
team_remote() {
    git -c init.defaultBranch=main init -q --bare "$TMP/remote.git"
    base_repo "$TMP/seed"
    mkdir -p src
    seq 1 40 | sed 's/^/line /' > src/a.c
    git add -A
    git commit -qm files
    git push -q "$TMP/remote.git" main
    cd "$TMP"
    k=1
    while [ "$k" -le "$1" ]; do
        git clone -q "$TMP/remote.git" "$TMP/c$k"
        k=$((k + 1))
    done
}

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

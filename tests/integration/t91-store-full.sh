# t91-store-full.sh - a store that cannot be written never acknowledges:
# with its filesystem full (a small tmpfs) or its file made immutable, a
# lock request is answered 507 store_full / 503 store_failed and nothing
# it asked for is kept in memory either; after kill -9 and a restart every
# acknowledged lock is there with its token, and fencing tokens only
# increase. Needs root (mount, chattr): SKIP without it.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v chattr > /dev/null; then
    echo "SKIP: needs root (a small tmpfs for the store, chattr)"
    echo "0 passed, 0 failed"
    exit 0
fi
R="$TMP/repo"
base_repo "$R"
AIR="$R/.git/airspace"
mkdir -p "$AIR"
if ! mount -t tmpfs -o size=1m,mode=0700 tmpfs "$AIR" 2> "$TMP/mount.err"; then
    echo "SKIP: cannot mount a tmpfs: $(cat "$TMP/mount.err")"
    echo "0 passed, 0 failed"
    exit 0
fi
SOCK="$AIR/sock"
DPID=
trap 'kill -9 $DPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; chattr -i "$AIR/airspace.db" "$AIR/airspace.db-wal" 2>/dev/null || true; umount "$AIR" 2>/dev/null || true; rm -rf "$TMP"' EXIT

up() { # wait until the daemon answers
    n=0
    until curl -sf --unix-socket "$SOCK" http://a/v1/status > "$TMP/status" 2> /dev/null; do
        sleep 0.05
        n=$((n + 1))
        [ $n -lt 400 ] || { echo "daemon did not start" >&2; tail "$TMP/daemon.log" >&2; return 1; }
    done
}
start() {
    "$AIRSPACE_BIN" serve --log-stderr --tick-ms 50 --rescan-ms 60000 2>> "$TMP/daemon.log" &
    DPID=$!
    up
}
post() { # post PATH JSON -> the HTTP code (000: no answer); the body in $TMP/last
    curl -s -o "$TMP/last" -w '%{http_code}' --unix-socket "$SOCK" -X POST \
        -H 'Content-Type: application/json' --data "$2" "http://a$1" 2> /dev/null || echo 000
}
: > "$TMP/acked"
maxtok=0
# grab PREFIX N: N lock requests; the acknowledged ones are recorded with
# their token; counts codes in $TMP/codes
grab() {
    : > "$TMP/codes"
    k=0
    while [ $k -lt "$2" ]; do
        k=$((k + 1))
        c=$(post /v1/locks "{\"agent\":\"w\",\"pattern\":\"$1$k.c\",\"ttlMs\":600000}")
        echo "$c $(jq -r '.error.code // empty' "$TMP/last" 2> /dev/null)" >> "$TMP/codes"
        if [ "$c" = 200 ]; then
            t=$(jq .token "$TMP/last")
            echo "$1$k.c $t" >> "$TMP/acked"
            [ "$t" -gt "$maxtok" ] || fail "token $t after $maxtok"
            maxtok=$t
        elif [ "$c" = 000 ]; then
            # starting again from its store, or gone when it cannot open it
            kill -0 $DPID 2> /dev/null || break
            up
        fi
    done
}
# every acknowledged lock is held, with its token
all_there() {
    curl -sf --unix-socket "$SOCK" http://a/v1/locks > "$TMP/locks"
    while read -r p t; do
        jq -e --arg p "$p" --argjson t "$t" \
            '[.locks[] | select(.pattern == $p and .token == $t)] | length == 1' \
            "$TMP/locks" > /dev/null || { echo "lost: $p $t" >&2; return 1; }
    done < "$TMP/acked"
}
only_acked() { # and nothing else
    [ "$(jq '.locks | length' "$TMP/locks")" = "$(wc -l < "$TMP/acked")" ]
}
crash_restart() {
    kill -9 $DPID
    wait $DPID 2> /dev/null || true
    start
}

start
post /v1/agents '{"id":"w"}' > /dev/null
grab a 20
check "healthy: 20 grants" [ "$(wc -l < "$TMP/acked")" = 20 ]
check "status: store ok" jqt "$TMP/status" '.store.state == "ok"'

# 1. the filesystem full
dd if=/dev/zero of="$AIR/fill" bs=4k 2> /dev/null || true
grab full 300
check "full: some grant refused 507" grep -q '^507 store_full$' "$TMP/codes"
check "full: every refusal is 507 store_full" \
    sh -c "! grep -v '^200 \$' '$TMP/codes' | grep -v '^507 store_full\$' | grep -v '^000' | grep -q ."
curl -sf --unix-socket "$SOCK" http://a/v1/status > "$TMP/status"
check "status: store full, saying why" jqt "$TMP/status" \
    '.store.state == "full" and (.store.error | test("full"))'
check "log says the writes are refused" grep -q 'writes are refused' "$TMP/daemon.log"
check "no refused lock held in memory" all_there
check "nothing but acknowledged locks" only_acked
# the next ids after a crash while full
crash_restart
grab crashed 20
check "after a crash while full: nothing lost" all_there
check "after a crash while full: nothing else" only_acked

# 2. room again: writes are taken again, tokens go on increasing
rm -f "$AIR/fill"
sleep 0.3
grab room 20
check "room again: grants" [ "$(grep -c '^200' "$TMP/codes")" = 20 ]
curl -sf --unix-socket "$SOCK" http://a/v1/status > "$TMP/status"
check "status: store ok again" jqt "$TMP/status" '.store.state == "ok"'
crash_restart
check "after kill -9: every acknowledged lock" all_there
check "after kill -9: nothing else" only_acked
grab after 5
check "tokens go on increasing after the restart" [ "$(grep -c '^200' "$TMP/codes")" = 5 ]

# 3. the store made read-only (immutable): what the daemon acknowledged
# before is kept; a daemon that cannot open it for writing does not serve
chattr +i "$AIR/airspace.db" "$AIR/airspace.db-wal"
grab ro 5
kill -9 $DPID
wait $DPID 2> /dev/null || true
"$AIRSPACE_BIN" serve --log-stderr 2>> "$TMP/daemon.log" &
DPID=$!
rc=0
wait $DPID || rc=$?
check "read-only: the daemon does not serve ($rc)" [ "$rc" != 0 ]
check "read-only: the log says why" grep -q "cannot open store.*not permitted" "$TMP/daemon.log"
chattr -i "$AIR/airspace.db" "$AIR/airspace.db-wal"
start
check "read-only, kill -9: every acknowledged lock" all_there
check "read-only, kill -9: nothing else" only_acked
grab last 3
check "tokens still increase" [ "$(grep -c '^200' "$TMP/codes")" = 3 ]
finish

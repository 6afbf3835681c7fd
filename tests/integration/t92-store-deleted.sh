# t92-store-deleted.sh - the store deleted or replaced under a running
# daemon (a cleanup script): the daemon notices, writes what it held back
# at the path (deleted) and stops acknowledging writes, saying why in its
# log, in GET /v1/status and in its 503 store_failed answers; after kill -9
# and a restart every acknowledged lock is there and fencing tokens only
# increase.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
AIR="$R/.git/airspace"
DB="$AIR/airspace.db"
start_daemon --tick-ms 50 --rescan-ms 60000
trap 'kill -9 $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
: > "$TMP/acked"
maxtok=0
# grab PREFIX N: N lock requests; acknowledged ones recorded with their
# token (each above every token before); codes in $TMP/codes
grab() {
    : > "$TMP/codes"
    k=0
    while [ $k -lt "$2" ]; do
        k=$((k + 1))
        api POST /v1/locks "{\"agent\":\"w\",\"pattern\":\"$1$k.c\",\"ttlMs\":600000}"
        echo "$CODE $(jq -r '.error.code // empty' "$TMP/body")" >> "$TMP/codes"
        if [ "$CODE" = 200 ]; then
            t=$(jq .token "$TMP/body")
            echo "$1$k.c $t" >> "$TMP/acked"
            [ "$t" -gt "$maxtok" ] || fail "token $t after $maxtok"
            maxtok=$t
        fi
    done
}
all_there() {
    curl -sf --unix-socket "$SOCK" http://a/v1/locks > "$TMP/locks"
    while read -r p t; do
        jq -e --arg p "$p" --argjson t "$t" \
            '[.locks[] | select(.pattern == $p and .token == $t)] | length == 1' \
            "$TMP/locks" > /dev/null || { echo "lost: $p $t" >&2; return 1; }
    done < "$TMP/acked"
    [ "$(jq '.locks | length' "$TMP/locks")" = "$(wc -l < "$TMP/acked")" ]
}
restart() {
    kill -9 $DPID
    wait $DPID 2> /dev/null || true
    start_daemon --tick-ms 50 --rescan-ms 60000
}

api POST /v1/agents '{"id":"w"}'
grab a 10
check "10 grants" [ "$(grep -c '^200' "$TMP/codes")" = 10 ]

# 1. deleted (with its WAL), as by rm -f .git/airspace/airspace.db*
rm -f "$DB" "$DB-wal" "$DB-shm"
grab gone 10
check "deleted: no grant acknowledged" [ "$(grep -c '^200' "$TMP/codes")" = 0 ]
check "deleted: every grant 503 store_failed" [ "$(grep -c '^503 store_failed$' "$TMP/codes")" = 10 ]
check "deleted: the answer says why" jqt "$TMP/body" '.error.message | test("deleted while in use")'
api GET /v1/status
check "deleted: status says why" jqt "$TMP/body" \
    '.store.state == "failed" and (.store.error | test("deleted while in use"))'
check "deleted: logged" grep -q "was deleted while in use.*writes are refused" "$TMP/daemon.log"
api POST /v1/intents '{"agent":"w","files":["i.c"]}'
check "deleted: an intent is refused too ($CODE)" [ "$CODE" = 503 ]
api GET /v1/intents
check "deleted: and not kept in memory" jqt "$TMP/body" '.intents | length == 0'
check "deleted: what it held is written back" [ -s "$DB" ]
restart
check "deleted, restarted: every acknowledged lock" all_there
grab b 5
check "deleted, restarted: grants again, tokens increasing" [ "$(grep -c '^200' "$TMP/codes")" = 5 ]

# 2. replaced by another file (an older copy)
cp "$DB" "$TMP/copy.db"
grab c 3
cp "$TMP/copy.db" "$DB.new"
mv "$DB.new" "$DB"
grab replaced 5
check "replaced: no grant acknowledged" [ "$(grep -c '^200' "$TMP/codes")" = 0 ]
check "replaced: 503 store_failed" [ "$(grep -c '^503 store_failed$' "$TMP/codes")" = 5 ]
api GET /v1/status
check "replaced: status says why" jqt "$TMP/body" \
    '.store.state == "failed" and (.store.error | test("replaced by another file"))'
sleep 0.2
check "replaced: the file there is left alone" cmp -s "$DB" "$TMP/copy.db"
api GET /v1/locks
check "replaced: reads are answered" [ "$CODE" = 200 ]
finish

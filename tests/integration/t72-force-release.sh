# t72-force-release.sh - force-release judges the holder of the claim being
# taken, not other claims the caller contested; an exited agent cannot take
# locks or contest, a stale one that does is active again.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
printf 'a\n' > "$R/src/a.c"
printf 'b\n' > "$R/src/b.c"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"

stop_daemon() {
    api POST /v1/stop
    wait "$DPID" 2>/dev/null || true
}

start_daemon --tick-ms 50 --rescan-ms 600000
for a in alice bob carol; do
    api POST /v1/agents "{\"id\":\"$a\"}"
done
api POST /v1/agents/bob/exit
api POST /v1/locks '{"agent":"bob","pattern":"src/b.c","kind":"claim"}'
check "an exited agent cannot claim (409, got $CODE)" [ "$CODE" = 409 ]
check "the refusal says it exited" grep -q "exited" "$TMP/body"
api GET /v1/locks
check "no lock was taken" jqt "$TMP/body" '.locks | length == 0'
api POST /v1/locks '{"agent":"alice","pattern":"src/a.c","kind":"claim"}'
api POST /v1/locks/contest '{"agent":"bob","pattern":"src/a.c"}'
check "an exited agent cannot contest (409, got $CODE)" [ "$CODE" = 409 ]
api POST /v1/locks/release "{\"agent\":\"alice\",\"pattern\":\"src/a.c\",\"token\":$(lock_token alice src/a.c)}"
stop_daemon

# A claim of an agent that is not active (as a store written by an older
# daemon may hold): bob, exited, holds src/b.c.
now=$(($(date +%s) * 1000))
sqlite3 "$R/.git/airspace/airspace.db" \
    "INSERT INTO locks VALUES (1000, 'src/b.c', 'bob', 'exclusive', 'claim',
     $now, $((now + 600000)), 600000, NULL, NULL, -1, 1);"

start_daemon --tick-ms 50 --rescan-ms 600000
api GET /v1/locks
check "bob's claim restored" jqt "$TMP/body" '.locks | map(select(.holder == "bob")) | length == 1'
api POST /v1/locks '{"agent":"alice","pattern":"src/a.c","kind":"claim"}'
check "alice claims src/a.c" [ "$CODE" = 200 ]
api POST /v1/locks/contest '{"agent":"carol","pattern":"src/a.c"}'
check "carol contests src/a.c" [ "$CODE" = 200 ]
api POST /v1/locks/force-release '{"agent":"carol","pattern":"src/a.c"}'
check "force-release of a live holder's fresh claim: 409 (got $CODE)" [ "$CODE" = 409 ]
check "the refusal names the timeout" grep -q "allowed after" "$TMP/body"
api POST /v1/locks/contest '{"agent":"carol","pattern":"src/b.c"}'
check "carol contests bob's src/b.c" [ "$CODE" = 200 ]
api POST /v1/locks/force-release '{"agent":"carol","pattern":"src/a.c"}'
check "contesting a stale holder's claim does not free alice's (409, got $CODE)" [ "$CODE" = 409 ]
api GET /v1/locks
check "alice still holds src/a.c" jqt "$TMP/body" \
    '.locks | map(select(.holder == "alice" and .pattern == "src/a.c")) | length == 1'
api POST /v1/locks/force-release '{"agent":"carol","pattern":"src/b.c"}'
check "the exited holder's contested claim can be taken (got $CODE)" [ "$CODE" = 200 ]
stop_daemon

# A stale agent that takes a lock is active again.
start_daemon --tick-ms 50 --rescan-ms 600000 --stale-ms 300
api POST /v1/agents '{"id":"dave"}'
n=0
until api GET /v1/agents/dave && jqt "$TMP/body" '.status == "stale"'; do
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 100 ] || break
done
check "dave went stale" jqt "$TMP/body" '.status == "stale"'
api POST /v1/locks '{"agent":"dave","pattern":"src/d.c"}'
check "a stale agent may lock (got $CODE)" [ "$CODE" = 200 ]
api GET /v1/agents/dave
check "and is active again" jqt "$TMP/body" '.status == "active"'
stop_daemon

finish

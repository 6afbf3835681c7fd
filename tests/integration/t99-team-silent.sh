# t99-team-silent.sh - a daemon on a shared PostgreSQL store whose network
# goes silent (docs/team.md, failure modes): the store is reached through
# a loopback proxy (tests/pg/stallproxy.py) that stops answering without
# closing anything, as dropped packets do. A lock request then fails
# 503 store_unreachable within the statement timeout (8 s, not the
# kernel's minutes), status says unreachable, and once the network answers
# again the daemon reconnects and grants leases. SKIP when the PostgreSQL
# server programs are not installed.
. "$(dirname "$0")/lib.sh"

. "${AIRSPACE_SOURCE_DIR:?}/tests/pg/team.sh"
team_server
SOCKURL=$URL
python3 "$AIRSPACE_SOURCE_DIR/tests/pg/stallproxy.py" "$PGD/.s.PGSQL.5432" "$TMP/port" &
PROXY=$!
PIDS="$PIDS $PROXY"
n=0
until [ -s "$TMP/port" ]; do
    sleep 0.05
    n=$((n + 1))
    [ $n -lt 100 ] || { echo "the proxy did not start" >&2; exit 1; }
done
user=$(echo "$SOCKURL" | sed 's|^postgresql://\([^@]*\)@.*|\1|')
URL="postgresql://$user@127.0.0.1:$(cat "$TMP/port")/airspace"

git -c init.defaultBranch=main init -q --bare "$TMP/remote.git"
base_repo "$TMP/seed"
mkdir -p src
echo a > src/a.c
echo b > src/b.c
git add -A
git commit -qm files
git push -q "$TMP/remote.git" main
cd "$TMP"
git clone -q "$TMP/remote.git" "$TMP/c1"

start 1
req 1 POST /v1/agents '{"id":"alice"}'
req 1 POST /v1/locks '{"agent":"alice","pattern":"src/a.c","ttlMs":600000}'
check "through the proxy, alice locks src/a.c (got $CODE)" [ "$CODE" = 200 ]

kill -USR1 "$PROXY" # silent from now on
sleep 0.2
t0=$(ms)
# (at most 30 s: a daemon that waits on the kernel would answer much later)
CODE=$(curl -s -m 30 -o "$TMP/body" -w '%{http_code}' --unix-socket "$TMP/c1/.git/airspace/sock" \
    -X POST -H 'Content-Type: application/json' \
    --data '{"agent":"alice","pattern":"src/b.c"}' http://a/v1/locks || true)
t1=$(ms)
echo "a lock request with the network silent: $CODE after $((t1 - t0)) ms" >&2
check "network silent: the lease is refused 503 (got $CODE)" [ "$CODE" = 503 ]
check "within the statement timeout, not the kernel's ($((t1 - t0)) ms < 12000)" [ $((t1 - t0)) -lt 12000 ]
check "with code store_unreachable" jqt "$TMP/body" '.error.code == "store_unreachable"'
req 1 GET /v1/status
check "status says unreachable" jqt "$TMP/body" '.store.state == "unreachable"'

kill -USR2 "$PROXY" # answering again
n=0
while :; do
    req 1 POST /v1/locks '{"agent":"alice","pattern":"src/b.c"}'
    [ "$CODE" != 200 ] || break
    sleep 0.2
    n=$((n + 1))
    [ $n -lt 75 ] || break
done
check "the network back: the lease is granted (got $CODE)" [ "$CODE" = 200 ]
req 1 GET /v1/status
check "status ok" jqt "$TMP/body" '.store.state == "ok"'
finish

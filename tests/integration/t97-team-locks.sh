# t97-team-locks.sh - daemons of one airspace sharing a PostgreSQL store
# (docs/team.md): separate daemon processes on separate clones of one bare
# remote, each with its own runtime directory, on a throwaway server
# (tests/pg/pgtemp.sh). A lock taken through one daemon is refused through
# another; a 50-way race for one path across 2, then 5 daemons gives
# exactly one holder, round after round; a killed daemon's lease expires
# on the database's clock and is granted again with a higher fencing
# token, its expiry on every other daemon's event stream once; a grant
# through one daemon reaches another's event stream within
# 1 s; each daemon sees the others' agents; the store stopped: new leases
# are refused 503 store_unreachable, hooks' checks are still answered,
# status says so, and with the store back leases are granted again.
# SKIP when the PostgreSQL server programs are not installed.
. "$(dirname "$0")/lib.sh"

. "${AIRSPACE_SOURCE_DIR:?}/tests/pg/team.sh"
TEAM_KILL=-9
team_server

git -c init.defaultBranch=main init -q --bare "$TMP/remote.git"
base_repo "$TMP/seed"
mkdir -p src race
for f in a b k x; do echo "$f" > "src/$f.c"; done
git add -A
git commit -qm files
git push -q "$TMP/remote.git" main
cd "$TMP"
for k in 1 2 3 4 5; do git clone -q "$TMP/remote.git" "$TMP/c$k"; done

start 1
start 2
req 1 GET /v1/status
cp "$TMP/body" "$TMP/s1"
req 2 GET /v1/status
check "daemon 1 is on the shared store" jqt "$TMP/s1" '.store.backend == "postgresql" and .store.state == "ok"'
check "both clones are one airspace, two nodes" \
    all "[ '$(jq -r .store.airspace "$TMP/s1")' = '$(jq -r .store.airspace "$TMP/body")' ] && [ '$(jq -r .store.node "$TMP/s1")' != '$(jq -r .store.node "$TMP/body")' ]"
check "the airspace is the remote's path" jqt "$TMP/s1" ".store.airspace == \"$TMP/remote\""
# a clone given daemon 1's node (store.node set alike in two clones): its
# daemon does not start (the two would be one agent table to the others;
# one that did served on: the timeout)
git clone -q "$TMP/remote.git" "$TMP/c6"
mkdir -p "$TMP/c6/.git/airspace"
printf '[store]\n\tnode = %s\n' "$(jq -r .store.node "$TMP/s1")" > "$TMP/c6/.git/airspace/config"
(cd "$TMP/c6" && timeout 30 "$AIRSPACE_BIN" serve --store "$URL" --idle-exit-ms 0 --log-stderr > "$TMP/d6.out" 2>&1) && rc=0 || rc=$?
check "a daemon with daemon 1's node is refused at its start ($rc: $(tail -n 1 "$TMP/d6.out"))" \
    all "[ $rc -ne 0 ] && grep -q 'another daemon serves node' '$TMP/d6.out'"
req 1 GET /v1/status
check "... and daemon 1 goes on" jqt "$TMP/body" '.store.state == "ok"'

req 1 POST /v1/agents '{"id":"alice"}'
req 2 POST /v1/agents '{"id":"bob"}'
req 1 GET /v1/team
check "daemon 1 sees bob, daemon 2's agent" jqt "$TMP/body" '[.peers[].agents[].id] == ["bob"]'

# a grant through daemon 1 reaches daemon 2's event stream
curl -sN --unix-socket "$TMP/c2/.git/airspace/sock" http://a/v1/events > "$TMP/sse2" 2> /dev/null &
SSE=$!
PIDS="$PIDS $SSE"
sleep 0.3
t0=$(ms)
req 1 POST /v1/locks '{"agent":"alice","pattern":"src/a.c","ttlMs":600000}'
check "alice locks src/a.c through daemon 1" [ "$CODE" = 200 ]
T1=$(jq .token "$TMP/body")
n=0
until grep -q '"origin"' "$TMP/sse2" 2> /dev/null; do
    sleep 0.02
    n=$((n + 1))
    [ $n -lt 250 ] || break
done
t1=$(ms)
# (how long it took is printed, not asserted: a loaded machine is slow)
check "daemon 2's stream has the grant, relayed ($((t1 - t0)) ms)" \
    grep -q '^event: lock.granted' "$TMP/sse2"
echo "event propagation: $((t1 - t0)) ms" >&2
kill "$SSE" 2> /dev/null || true

req 2 POST /v1/locks '{"agent":"bob","pattern":"src/a.c"}'
check "bob is refused src/a.c through daemon 2 (409, got $CODE)" [ "$CODE" = 409 ]
check "the refusal names alice, as daemon 2 names her (alice@daemon)" jqt "$TMP/body" '.error.holder.holder | startswith("alice@")'
req 2 POST /v1/locks/check '{"agent":"bob","path":"src/a.c"}'
check "daemon 2's hook check knows alice holds it" jqt "$TMP/body" '.free == false and (.holder.holder | startswith("alice@"))'

# an agent of the same id on another daemon is another agent: daemon 2's
# alice neither takes, renews nor releases daemon 1's alice's lease, and
# her exit releases nothing of it
req 2 POST /v1/agents '{"id":"alice"}'
req 2 POST /v1/locks '{"agent":"alice","pattern":"src/a.c"}'
check "daemon 2's own alice is refused src/a.c (409, got $CODE)" [ "$CODE" = 409 ]
req 1 GET /v1/locks
TOK=$(jq -r '.locks[] | select(.pattern == "src/a.c") | .token' "$TMP/body")
req 2 POST /v1/locks/release "{\"agent\":\"alice\",\"pattern\":\"src/a.c\",\"token\":$TOK}"
check "nor may she release it with its token (409, got $CODE)" [ "$CODE" = 409 ]
req 2 POST /v1/agents/alice/exit
req 1 GET /v1/locks
check "her exit leaves daemon 1's alice's lease held" \
    jqt "$TMP/body" '[.locks[] | select(.pattern == "src/a.c") | .holder] == ["alice"]'
req 2 POST /v1/locks/check '{"agent":"bob","path":"src/a.c"}'
check "and daemon 2 still knows it held" jqt "$TMP/body" '.free == false'
# nor may an agent of daemon 2 take the name daemon 2 gives alice's copy
# (alice@daemon), or any name of that shape: it was the copy to the lock
# table (it renewed, shortened and released the lease) and hid her work
AS2=$(jq -r '.error.holder.holder // empty' "$TMP/body")
[ -n "$AS2" ] || AS2=$(jq -r '.holder.holder' "$TMP/body")
req 2 POST /v1/agents "{\"id\":\"$AS2\"}"
check "daemon 2 refuses to register '$AS2' (409, got $CODE: $(jq -r .error.message "$TMP/body"))" \
    all "[ $CODE = 409 ] && jq -e '.error.code == \"refused\"' '$TMP/body' > /dev/null"
req 2 POST /v1/agents '{"id":"dave@c0ffee"}'
check "... or 'dave@c0ffee' (409, got $CODE)" [ "$CODE" = 409 ]
req 2 POST /v1/agents '{"id":"dave@home"}'
check "... but takes 'dave@home' (got $CODE)" [ "$CODE" = 200 ]
req 2 POST /v1/locks/check '{"agent":"bob","path":"src/a.c"}'
check "alice's lease is still held on daemon 2" jqt "$TMP/body" '.free == false'
# a claim contested from another daemon: the contester is stored under
# its name in the airspace, so its own daemon reads it back as its agent
# and the claim's daemon as the copy (bob@daemon)
req 1 POST /v1/locks '{"agent":"alice","pattern":"src/c.c","kind":"claim"}'
check "alice claims src/c.c on daemon 1" [ "$CODE" = 200 ]
req 2 POST /v1/locks/contest '{"agent":"bob","pattern":"src/c.c"}'
check "bob contests it through daemon 2 ($CODE)" [ "$CODE" = 200 ]
contester() { # contester K: daemon K's contestedBy of src/c.c
    req "$1" GET /v1/locks && jq -r '.locks[] | select(.pattern == "src/c.c") | .contestedBy // "-"' "$TMP/body"
}
n=0
until contester 1 | grep -q '^bob@' && [ "$(contester 2)" = bob ] || [ $n -ge 50 ]; do
    sleep 0.1
    n=$((n + 1))
done
check "daemon 1 names the contester bob@daemon ($(contester 1))" sh -c 'printf "%s" "$1" | grep -qE "^bob@[0-9a-f]{6}$"' _ "$(contester 1)"
check "daemon 2 names him bob ($(contester 2))" [ "$(contester 2)" = bob ]
# the contest, relayed into daemon 1's ledger, in daemon 1's names: about
# its own alice (daemon 2 named her alice@daemon, and the event kept that:
# nobody here), by bob's copy
req 1 GET '/v1/ledger?type=claim.contested'
jq -c '[.events[] | select(.data.pattern == "src/c.c") | {agent, holder: .data.holder, contestedBy: .data.contestedBy, actor: .data.actor}]' "$TMP/body" > "$TMP/contested"
check "daemon 1's ledger: alice's claim contested by bob@daemon ($(cat "$TMP/contested"))" \
    jqt "$TMP/contested" 'length == 1 and .[0].agent == "alice" and .[0].holder == "alice" and (.[0].contestedBy | test("^bob@[0-9a-f]{6}$")) and .[0].actor == .[0].contestedBy'
req 2 POST /v1/locks '{"agent":"bob","pattern":"src/b.c"}'
check "bob locks src/b.c" [ "$CODE" = 200 ]
check "with a higher token than alice's" [ "$(jq .token "$TMP/body")" -gt "$T1" ]

# race ROUND DAEMONS...: one agent per (daemon, slot) registered, then all
# 50 ask for race/ROUND.c at once; exactly one is granted
register() { # register D N PREFIX: agents PREFIX1..N on daemon D
    i=1
    while [ $i -le "$2" ]; do
        req "$1" POST /v1/agents "{\"id\":\"$3$i\"}"
        i=$((i + 1))
    done
}
race() {
    round=$1
    shift
    per=$((50 / $#))
    rm -f "$TMP"/race.*
    for d in "$@"; do
        i=1
        while [ $i -le $per ]; do
            curl -s -o /dev/null -w '%{http_code}\n' --unix-socket "$TMP/c$d/.git/airspace/sock" \
                -X POST -H 'Content-Type: application/json' \
                --data "{\"agent\":\"r$d-$i\",\"pattern\":\"race/$round.c\",\"ttlMs\":600000}" \
                http://a/v1/locks > "$TMP/race.$d.$i" &
            i=$((i + 1))
        done
    done
    wait_races
    granted=$(cat "$TMP"/race.* | grep -c '^200$' || true)
    refused=$(cat "$TMP"/race.* | grep -c '^409$' || true)
    check "race $round across $# daemons: one holder of 50 (granted $granted, refused $refused)" \
        [ "$granted" = 1 ] && [ "$refused" = 49 ]
    req 1 GET /v1/locks
    check "race $round: the store holds one lock on it" \
        jqt "$TMP/body" "[.locks[] | select(.pattern == \"race/$round.c\")] | length == 1"
}
wait_races() { # wait for the curl jobs (not the daemons)
    n=0
    while [ "$(ls "$TMP"/race.* 2> /dev/null | xargs -r cat | wc -l)" -lt 50 ]; do
        sleep 0.05
        n=$((n + 1))
        [ $n -lt 400 ] || break
    done
}
for d in 1 2; do register $d 25 "r$d-"; done
for r in 1 2 3; do race "two-$r" 1 2; done

start 3
start 4
start 5
for d in 1 2 3 4 5; do register $d 10 "r$d-"; done
for r in 1 2 3; do race "five-$r" 1 2 3 4 5; done

# a killed daemon's lease expires on the database's clock
req 3 POST /v1/agents '{"id":"carol"}'
req 3 POST /v1/locks '{"agent":"carol","pattern":"src/k.c","ttlMs":1000}'
check "carol locks src/k.c through daemon 3" [ "$CODE" = 200 ]
TK=$(jq .token "$TMP/body")
for d in 1 2 4 5; do # every live daemon's event stream
    curl -sN --unix-socket "$TMP/c$d/.git/airspace/sock" http://a/v1/events > "$TMP/exp$d" 2> /dev/null &
    PIDS="$PIDS $!"
    eval "X$d=$!"
done
kill -9 "$P3"
req 1 POST /v1/locks '{"agent":"alice","pattern":"src/k.c"}'
check "while the lease runs, daemon 1 refuses it (409, got $CODE)" [ "$CODE" = 409 ]
sleep 1.1
req 1 POST /v1/locks '{"agent":"alice","pattern":"src/k.c"}'
check "after it expired, alice gets it (got $CODE)" [ "$CODE" = 200 ]
check "with a higher fencing token ($(jq .token "$TMP/body") > $TK)" [ "$(jq .token "$TMP/body")" -gt "$TK" ]
# the expiry is announced once (by the daemon whose delete retired it) and
# relayed: one lock.expired for carol on every live daemon's stream
n=0
until [ "$(cat "$TMP"/exp[1245] | grep -c '^event: lock.expired')" -ge 4 ]; do
    sleep 0.05
    n=$((n + 1))
    [ $n -lt 40 ] || break
done
sleep 0.2 # a duplicate would come now
expired_once() { # expired_once FILE: one lock.expired, carol's on src/k.c
    [ "$(grep -c '^event: lock.expired' "$1")" = 1 ] &&
        grep -A1 '^event: lock.expired' "$1" | sed -n 's/^data: //p' |
        jq -e '(.agent | startswith("carol")) and .data.pattern == "src/k.c"' > /dev/null
}
for d in 1 2 4 5; do
    check "daemon $d's stream has carol's lock.expired once ($(grep -c '^event: lock.expired' "$TMP/exp$d") seen)" \
        expired_once "$TMP/exp$d"
    eval "kill \$X$d" 2> /dev/null || true
done
relayed=$(cat "$TMP"/exp[1245] | grep -A1 '^event: lock.expired' | sed -n 's/^data: //p' |
    jq -s '[.[] | select(.data.origin.node)] | length')
check "one daemon retired it, the three others relayed its event ($relayed relayed)" [ "$relayed" = 3 ]

# the store stopped: degraded, then back
sh "$PGT" stop "$PGD"
req 1 POST /v1/locks '{"agent":"alice","pattern":"src/x.c"}'
check "store down: a new lease is refused 503 (got $CODE)" [ "$CODE" = 503 ]
check "with code store_unreachable" jqt "$TMP/body" '.error.code == "store_unreachable"'
req 2 POST /v1/locks/check '{"agent":"bob","path":"src/a.c"}'
[ "$CODE" = 200 ] || fail "store down: the hook's check got $CODE"
check "store down: the hook's check is answered from what it knows" \
    jqt "$TMP/body" '.free == false and (.holder.holder | startswith("alice@"))'
sleep 0.3
req 1 GET /v1/status
check "store down: status says unreachable" jqt "$TMP/body" '.store.state == "unreachable"'
(cd "$TMP/c1" && "$AIRSPACE_BIN" status --no-start) > "$TMP/st.txt" 2>&1 || true
check "store down: airspace status says so" grep -q "^team store: airspace .*: unreachable" "$TMP/st.txt"
sh "$PGT" start "$PGD" > /dev/null
n=0
while :; do
    req 1 POST /v1/locks '{"agent":"alice","pattern":"src/x.c"}'
    [ "$CODE" != 200 ] || break
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 60 ] || break
done
check "store back: the lease is granted again (got $CODE after $n tries)" [ "$CODE" = 200 ]
req 1 GET /v1/status
check "store back: status ok" jqt "$TMP/body" '.store.state == "ok"'
# daemon 1 publishes its agents again once it reconnects; daemon 2 hears
# it through its own listener, which may reconnect a moment later
n=0
while :; do
    req 2 GET /v1/team
    jqt "$TMP/body" '[.peers[].agents[].id] | index("alice") != null' && break
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 100 ] || break
done
check "store back: daemon 1's agents are published again (after $n tries)" \
    jqt "$TMP/body" '[.peers[].agents[].id] | index("alice") != null'

# a repository without an origin is an airspace of this machine's: its
# path alone made one airspace of two machines' unrelated repositories
base_repo "$TMP/c9"
cd "$TMP"
start 9
req 9 GET /v1/status
check "no origin: the airspace is hostname:git-dir ($(jq -r .store.airspace "$TMP/body"))" \
    jqt "$TMP/body" "(.store.airspace | startswith(\"$(hostname):\")) and (.store.airspace | endswith(\"/c9/.git\"))"
finish

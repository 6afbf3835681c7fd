# t190-team-leases-kept.sh - a lease on a shared PostgreSQL store lasts
# until its own daemon releases it or its TTL runs out (docs/team.md,
# "Failure modes"): when a daemon stops (cleanly here; killed, frozen or
# cut off from the store alike, once its agents' copies elsewhere miss
# their heartbeats), the other daemons' copies of its agents leave, and a
# copy leaving released its agent's leases in the shared store: a
# ten-minute lock was gone a second after an upgrade's restart. The
# agent's own exit still releases them everywhere. SKIP when the
# PostgreSQL server programs are not installed.
. "$(dirname "$0")/lib.sh"

. "${AIRSPACE_SOURCE_DIR:?}/tests/pg/team.sh"
team_server
team_remote 2
start 1
start 2

req 1 POST /v1/agents '{"id":"alice"}'
sed -i '3s/.*/alice 3/' "$TMP/c1/src/a.c"
req 1 POST /v1/agents/alice/edits '{"path":"src/a.c","lines":[[3,3]]}'
req 1 POST /v1/locks '{"agent":"alice","pattern":"docs/","ttlMs":600000}'
check "alice locks docs/ for ten minutes (got $CODE)" [ "$CODE" = 200 ]
req 1 POST /v1/locks '{"agent":"alice","pattern":"src/a.c","kind":"claim","ttlMs":600000}'
check "... and claims src/a.c (got $CODE)" [ "$CODE" = 200 ]
req 2 POST /v1/agents '{"id":"bob"}'
copies() { # copies N: until daemon 2 has N active copies of alice (10 s)
    n=0
    until req 2 GET /v1/team && jq -e "[.peers[].agents[] | select(.id == \"alice\" and .status == \"active\")] | length == $1" "$TMP/body" > /dev/null ||
        [ $n -gt 200 ]; do
        sleep 0.05
        n=$((n + 1))
    done
}
copies 1
check "daemon 2 has a copy of alice" jqt "$TMP/body" '[.peers[].agents[] | select(.id == "alice")] | length == 1'

held() { # held K: the patterns of alice's leases daemon K knows, sorted
    req "$1" GET /v1/locks
    jq -c '[.locks[] | select(.holder | startswith("alice")) | .pattern] | sort' "$TMP/body"
}
check "daemon 2 knows both leases ($(held 2))" [ "$(held 2)" = '["docs","src/a.c"]' ]

# daemon 1 stops cleanly (an upgrade): alice's copy on daemon 2 leaves
req 1 POST /v1/stop
wait "$P1" 2> /dev/null || true
copies 0
sleep 0.5
check "with daemon 1 stopped, daemon 2 still knows both leases ($(held 2))" [ "$(held 2)" = '["docs","src/a.c"]' ]
req 2 POST /v1/locks/check '{"agent":"bob","path":"docs/x.md"}'
check "... its lock check (the hooks') says docs/x.md is not free ($(cat "$TMP/body"))" \
    jqt "$TMP/body" '.free == false'
req 2 POST /v1/locks '{"agent":"bob","pattern":"docs/x.md"}'
check "... and refuses bob a lock inside docs/ (got $CODE)" [ "$CODE" = 409 ]
req 2 GET '/v1/ledger?type=lock'
check "... no release of alice's lease in its ledger" \
    jqt "$TMP/body" '[.events[] | select(.type == "lock.released_all" or .type == "lock.released")] | length == 0'

start 1
check "daemon 1, started again, has alice's leases back ($(held 1))" [ "$(held 1)" = '["docs","src/a.c"]' ]

# alice's own exit releases them, on both daemons
req 1 POST /v1/agents/alice/exit
check "alice exits on daemon 1 (got $CODE)" [ "$CODE" = 200 ]
check "daemon 1 holds nothing of hers ($(held 1))" [ "$(held 1)" = '[]' ]
n=0
until [ "$(held 2)" = '[]' ] || [ $n -gt 200 ]; do
    sleep 0.05
    n=$((n + 1))
done
check "... nor does daemon 2 ($(held 2))" [ "$(held 2)" = '[]' ]
req 2 POST /v1/locks '{"agent":"bob","pattern":"docs/x.md"}'
check "bob locks docs/x.md now (got $CODE)" [ "$CODE" = 200 ]
finish

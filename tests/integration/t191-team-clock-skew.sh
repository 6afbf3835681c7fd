# t191-team-clock-skew.sh - on a shared PostgreSQL store every lock time
# is read on the database's clock (docs/team.md, "Leases"): a daemon
# whose machine's clock is an hour ahead (libfaketime) took another
# machine's ten-minute lock for expired, so its lock check (the hooks'
# and the pre-commit hook's) answered free and `airspace locks` listed
# nothing, while only a lock request, decided in the database, was
# refused. SKIP when the PostgreSQL server programs or libfaketime are not
# installed (scripts/setup.sh installs both).
. "$(dirname "$0")/lib.sh"

FT=$(ls /usr/lib/*/faketime/libfaketime.so.1 2> /dev/null | head -n 1)
if [ -z "$FT" ]; then
    echo "SKIP: no libfaketime (scripts/setup.sh installs faketime)"
    echo "0 passed, 0 failed"
    exit 0
fi
. "${AIRSPACE_SOURCE_DIR:?}/tests/pg/team.sh"
team_server
team_remote 2
mkdir -p "$TMP/c1/docs" "$TMP/c2/docs"
start 1
# daemon 2's machine: an hour ahead (the sanitizers' runtime first, then
# libfaketime)
ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" FAKETIME=+1h \
    FAKETIME_DONT_RESET=1 LD_PRELOAD="$FT" start 2
req 2 GET /v1/status
ahead=$(($(jq .startedAt "$TMP/body") - $(ms)))
check "daemon 2's clock is an hour ahead (${ahead} ms)" [ "$ahead" -gt 3500000 ]

req 1 POST /v1/agents '{"id":"alice"}'
req 1 POST /v1/locks '{"agent":"alice","pattern":"docs/","ttlMs":600000}'
check "alice locks docs/ for ten minutes on daemon 1 (got $CODE)" [ "$CODE" = 200 ]
req 2 POST /v1/agents '{"id":"bob"}'
n=0
until req 2 GET /v1/locks && jq -e '.locks | length == 1' "$TMP/body" > /dev/null || [ $n -gt 60 ]; do
    sleep 0.05
    n=$((n + 1))
done
check "daemon 2 lists alice's lock, ten minutes left ($(jq -c '[.locks[] | {pattern, holder, expiresInMs}]' "$TMP/body"))" \
    jqt "$TMP/body" '[.locks[] | select(.pattern == "docs" and (.holder | startswith("alice@")) and .expiresInMs > 500000 and .expiresInMs <= 600000)] | length == 1'
req 2 POST /v1/locks/check '{"agent":"bob","path":"docs/d.md"}'
check "daemon 2's lock check says docs/d.md is not free ($(jq -c . "$TMP/body"))" \
    jqt "$TMP/body" '.free == false and (.holder.holder | startswith("alice@"))'
req 2 POST /v1/locks '{"agent":"bob","pattern":"docs/d.md"}'
check "bob's lock request on daemon 2 is refused (got $CODE)" [ "$CODE" = 409 ]
finish

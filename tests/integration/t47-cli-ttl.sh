# t47-cli-ttl.sh - `lock`, `claim` and `intent` refuse a --ttl whose
# milliseconds do not fit (exit 2, a clear message) and change nothing; the
# largest accepted --ttl still makes a lock that does not expire at once.
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
new_repo "$R"
printf 'x\n' > "$R/a.c"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
as api POST /v1/agents '{"id":"alice"}' > /dev/null
trap 'as stop > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT

MAX=9223372036854775 # LONG_MAX / 1000 on the 64-bit targets built here
for cmd in lock claim intent; do
    set +e
    as "$cmd" --agent alice --ttl 9223372036854775807 a.c > /dev/null 2> "$TMP/err"
    rc=$?
    set -e
    check "$cmd --ttl too large: exit 2" [ "$rc" -eq 2 ]
    check "$cmd --ttl too large: says the limit" grep -q "at most $MAX" "$TMP/err"
done
check "nothing was locked" sh -c "'$AIRSPACE_BIN' locks --json | jq -e '.locks == []' > /dev/null"
check "nothing was declared" sh -c "'$AIRSPACE_BIN' api GET /v1/intents | jq -e '.intents == []' > /dev/null"

check "the largest --ttl is accepted" as lock --agent alice --ttl "$MAX" a.c
check "and that lock is live" sh -c "'$AIRSPACE_BIN' locks --json | jq -e '.locks | length == 1 and .[0].expiresAt > .[0].acquiredAt' > /dev/null"
finish

# t06-cli-contested.sh - a contested claim says so on the command line:
# `airspace contest` confirms it with the contester, and `airspace locks`
# lists the claim with who contested it (as top does), so the holder and
# the contester see it without --json.
. "$(dirname "$0")/lib.sh"
base_repo "$TMP/repo"
trap 'as stop > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
as api POST /v1/agents '{"id":"alice"}' > /dev/null
as api POST /v1/agents '{"id":"bob"}' > /dev/null
as claim --agent alice --reason "the docs" docs/guide.md > /dev/null
as contest --agent bob docs/guide.md > "$TMP/contest"
check "contest: the claim is shown contested by bob" grep -q "^docs/guide.md .*contested by bob" "$TMP/contest"
as locks > "$TMP/locks"
check "locks: the claim is listed contested by bob" grep -q "^docs/guide.md .*alice .*contested by bob" "$TMP/locks"
check "locks: its reason is still there" grep -q "the docs" "$TMP/locks"
as lock --agent alice x.c > /dev/null
as locks > "$TMP/locks"
check "locks: an uncontested lock says nothing of a contest" sh -c "! grep '^x.c ' '$TMP/locks' | grep -q contested"
finish

# t02-cli-collab.sh - the lock and collaboration commands as a user types
# them: `intent` prints each conflict it caused as the daemon words it
# (the other agent and the file, never a placeholder); `intent --ttl 0` is
# a usage error as for `lock` (exit 2, nothing declared); an option that
# does not belong to the command (`unlock --force`, `lock --token`,
# `contest --ttl`, `msg --ttl`, `conflicts --summary`, ...) is a usage
# error naming it, not silently ignored; every help text names the
# options the command takes.
. "$(dirname "$0")/lib.sh"
base_repo "$TMP/repo"
mkdir -p src
printf 'int a;\n' > src/a.c
commit 00:01 "a.c"
trap 'as stop > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
as api POST /v1/agents '{"id":"alice"}' > /dev/null
as api POST /v1/agents '{"id":"bob"}' > /dev/null

# intent: the conflict line names the other agent and the file
as intent --agent alice --summary "rework a" src/a.c > "$TMP/out1"
as intent --agent bob --summary "also a" src/a.c > "$TMP/out2"
check "intent: declared" grep -q '^intent [0-9]* declared$' "$TMP/out2"
check "intent: the conflict names alice and the file" \
    grep -q "forward.*'alice'.*src/a.c" "$TMP/out2"
check "intent: no placeholder in the conflict line" sh -c "! grep -q ' -\$' '$TMP/out2'"

# intent --ttl 0: exit 2 before anything is sent, as lock --ttl 0
n_before=$(as api GET /v1/intents | jq '.intents | length')
for cmd in lock claim intent; do
    set +e
    as "$cmd" --agent alice --ttl 0 x.c > /dev/null 2> "$TMP/err"
    rc=$?
    set -e
    check "$cmd --ttl 0: exit 2" [ "$rc" -eq 2 ]
    check "$cmd --ttl 0: says why" grep -q -- "--ttl takes seconds > 0" "$TMP/err"
done
check "intent --ttl 0: nothing declared" \
    [ "$(as api GET /v1/intents | jq '.intents | length')" = "$n_before" ]

# options that do not belong to the command
as lock --agent alice src/a.c > /dev/null
bad() { # bad OPTION COMMAND ARGS...: exit 2 naming OPTION, nothing done
    bo=$1
    shift
    set +e
    as "$@" > "$TMP/out" 2> "$TMP/err"
    rc=$?
    set -e
    check "'$*': exit 2" [ "$rc" -eq 2 ]
    check "'$*': names $bo" grep -q -- "'$bo'" "$TMP/err"
}
bad --force unlock --agent alice --force src/a.c
bad --token lock --agent alice --token 5 src/b.c
bad --shared claim --agent alice --shared src/b.c
bad --ttl contest --agent bob --ttl 5 src/a.c
bad --reason release --agent alice --reason why src/a.c
bad --ttl msg --agent alice --ttl 5 bob hello
bad --summary conflicts --summary x
bad --type inbox --agent bob --type info
bad --summary log --summary x
check "alice's lock is still held" \
    sh -c "'$AIRSPACE_BIN' locks --json | jq -e '[.locks[] | select(.pattern == \"src/a.c\" and .holder == \"alice\")] | length == 1' > /dev/null"
check "nothing locked on src/b.c" \
    sh -c "'$AIRSPACE_BIN' locks --json | jq -e '[.locks[] | select(.pattern == \"src/b.c\")] | length == 0' > /dev/null"
# what belongs still works
check "unlock --token of the grant held" \
    as unlock --agent alice --token "$(as locks --json | jq '.locks[] | select(.pattern == "src/a.c") | .token')" src/a.c
check "log -n 1 --type" sh -c "'$AIRSPACE_BIN' log -n 1 --type lock. | grep -q lock.released"

# a bad -n names it
set +e
as log -n abc > /dev/null 2> "$TMP/err"
rc=$?
set -e
check "log -n abc: exit 2" [ "$rc" -eq 2 ]
check "log -n abc: names -n" grep -q -- "-n takes" "$TMP/err"

# help texts name the options the command takes
as alerts --help > "$TMP/help"
check "alerts --help names --fail" grep -q -- "--fail" "$TMP/help"
for cmd in lock unlock locks claim contest release intent conflicts msg inbox log; do
    as "$cmd" --help > "$TMP/help"
    check "$cmd --help names --repo, --json, --no-start" \
        sh -c "grep -q -- --repo '$TMP/help' && grep -q -- --json '$TMP/help' && grep -q -- --no-start '$TMP/help'"
done
finish

# t109-cli-input.sh - bad input is exit 2 naming what is wrong, before
# anything is done: a configuration file the daemon would not start on,
# for a command that would start it on demand (not exit 3 "the daemon did
# not start", and nothing started; a daemon already serving is used, and 3
# stays for a start that fails for another reason); a bad letter in a
# group of short options names that letter, not the word before; a blank
# commit message beats a lock another agent holds; a malformed percent-
# escape in a query string is 400 bad_request naming it (an unknown query
# parameter stays ignored).
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
printf 'x\n' > "$R/a.c"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
trap '"$AIRSPACE_BIN" stop --repo "$R" > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
mkdir -p -m 700 .git/airspace
CFG=.git/airspace/config
LOG=.git/airspace/daemon.log
head0=$(git rev-parse HEAD)

# run CMD...: exit code to RC, stderr to $TMP/err, stdout to $TMP/out
run() {
    RC=0
    as "$@" > "$TMP/out" 2> "$TMP/err" || RC=$?
}
# lacks PATTERN FILE: FILE has no line matching PATTERN
lacks() {
    ! grep -q "$1" "$2"
}
not_started() {
    [ ! -S .git/airspace/sock ] && ! grep -qs "not serving" "$LOG"
}

# --- a bad configuration, no daemon: exit 2 with the file's message ---
printf '[risk "weight"]\n  ovrlap = 0.5\n' > "$CFG"
run status
check "bad key: status exits 2 (got $RC)" [ "$RC" -eq 2 ]
check "bad key: names the file, key and value" grep -q \
    "^airspace status: config file '.*/\.git/airspace/config': risk.weight.ovrlap = 0.5: unknown model key 'weight.ovrlap'$" \
    "$TMP/err"
check "bad key: not 'the daemon did not start'" lacks "did not start" "$TMP/err"
check "bad key: no daemon was started" not_started
for cmd in "lock --agent alice a.c" "intent --agent alice a.c" "locks" \
    "agents" "api GET /v1/status"; do
    # shellcheck disable=SC2086
    run $cmd
    check "bad key: '$cmd' exits 2 (got $RC)" [ "$RC" -eq 2 ]
    check "bad key: '$cmd' names the key" grep -q "risk.weight.ovrlap" "$TMP/err"
done
echo y >> a.c
run commit -m "change a" a.c
check "bad key: commit exits 2 (got $RC)" [ "$RC" -eq 2 ]
check "bad key: commit names the key" grep -q "risk.weight.ovrlap" "$TMP/err"
check "bad key: nothing committed" [ "$(git rev-parse HEAD)" = "$head0" ]
git checkout -q -- a.c
check "bad key: still no daemon" not_started

printf '[daemon]\n  stale-ms = 5m\n' > "$CFG"
run status
check "bad timer: status exits 2 (got $RC)" [ "$RC" -eq 2 ]
check "bad timer: names key and value" grep -q \
    "^airspace status: config file '.*': daemon.stale-ms = 5m: want whole milliseconds >= 1$" \
    "$TMP/err"
check "bad timer: no daemon was started" not_started

# the [risk] settings together, as the daemon checks them
printf '[risk "tau"]\n  traffic = 0.9\n  resolution = 0.95\n[risk "leave"]\n  resolution = 0.99\n' > "$CFG"
run status
check "inconsistent model: status exits 2 (got $RC)" [ "$RC" -eq 2 ]
check "inconsistent model: says why, naming the file" grep -q \
    "'leave.resolution' (0.99, from config file '.*/\.git/airspace/config') is above 'tau.resolution' (0.95, from config file '.*/\.git/airspace/config')" \
    "$TMP/err"
check "inconsistent model: no daemon was started" not_started

# --no-start: nothing would be started, so no daemon is exit 3 as before
run status --no-start
check "--no-start, no daemon: exit 3 (got $RC)" [ "$RC" -eq 3 ]

# a start that fails for another reason is still exit 3 (a directory
# others can write to: one they can only read is made private, t142)
rm -f "$CFG"
chmod 775 .git/airspace
run status
check "airspace directory open to others: exit 3 (got $RC)" [ "$RC" -eq 3 ]
chmod 700 .git/airspace

# a daemon already serving is used, whatever the file says now
run status
check "good file: status starts the daemon (exit $RC)" [ "$RC" -eq 0 ]
printf '[risk "weight"]\n  ovrlap = 0.5\n' > "$CFG"
run status
check "a daemon serving: status still works (got $RC)" [ "$RC" -eq 0 ]
as stop > /dev/null
rm -f "$CFG"

# --- grouped short options: the bad letter is named ---
run agent new -bad
check "agent new -bad: exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "agent new -bad: names '-b'" grep -q "^airspace agent new: unknown or incomplete option '-b'$" "$TMP/err"
run lock -ab a.c
check "lock -ab: exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "lock -ab: names '-a'" grep -q "^airspace lock: unknown or incomplete option '-a'$" "$TMP/err"
run lock --json -ab a.c
check "lock --json -ab: names '-a', not '--json'" grep -q "option '-a'$" "$TMP/err"
run lock a.c -zq
check "lock a.c -zq: names '-z'" grep -q "option '-z'$" "$TMP/err"
run commit -m
check "commit -m (no value): exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "commit -m: names '-m'" grep -q "option '-m'$" "$TMP/err"
run commit --message
check "commit --message (no value): names '--message'" grep -q "option '--message'$" "$TMP/err"
run lock --bogus a.c
check "lock --bogus: names '--bogus'" grep -q "option '--bogus'$" "$TMP/err"
check "no option error started a daemon" not_started

# --- a blank commit message is exit 2 before the lock check ---
start_daemon --tick-ms 50 --rescan-ms 60000
as api POST /v1/agents '{"id":"alice"}' > /dev/null
as api POST /v1/agents '{"id":"bob"}' > /dev/null
as lock --agent bob a.c > /dev/null
echo y >> a.c
run commit --agent alice -m "   " a.c
check "blank message, a.c held by bob: exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "blank message: says so" grep -q "empty commit message" "$TMP/err"
check "blank message: no lock refusal" lacks "held by bob" "$TMP/err"
run commit --agent alice -m "" -m " " a.c
check "blank paragraphs: exit 2 (got $RC)" [ "$RC" -eq 2 ]
run commit --agent alice -m "change a" a.c
check "a real message, a.c held by bob: refused, exit 1 (got $RC)" [ "$RC" -eq 1 ]
check "nothing committed" [ "$(git rev-parse HEAD)" = "$head0" ]

# --- malformed query strings: 400 bad_request naming the problem ---
# bad QUERY NEEDLE: GET /v1/status?QUERY is 400 bad_request, the message
# holding NEEDLE
bad() {
    api GET "/v1/status?$1"
    check "?$1: 400 (got $CODE)" [ "$CODE" = 400 ]
    check "?$1: bad_request naming '$2'" jqt "$TMP/body" \
        '.error.code == "bad_request" and (.error.message | contains("'"$2"'"))'
}
bad 'x=%zz' "'%zz' is not a percent-escape"
bad 'x=%2' "'%2' is not a percent-escape"
bad 'x=%' "'%' is not a percent-escape"
bad 'x=1&y=a%2g' "'%2g'"
bad 'x' "'x' is not NAME=VALUE"
bad '=1' "no parameter name"
bad 'x=1&&y=2' "empty parameter"
api GET '/v1/agents?all=%zz'
check "a route's parameter: ?all=%zz is 400 (got $CODE)" [ "$CODE" = 400 ]
api GET '/v1/status?x=%41%e2%82%ac+b'
check "well-formed escapes: 200 (got $CODE)" [ "$CODE" = 200 ]
api GET '/v1/status?whatever=1&x=1&'
check "an unknown parameter (and a trailing '&') is ignored: 200 (got $CODE)" [ "$CODE" = 200 ]
api GET '/v1/locks?agent=b%6fb'
check "an escaped value is decoded: bob's lock listed" jqt "$TMP/body" \
    '[.locks[].holder] == ["bob"]'

finish

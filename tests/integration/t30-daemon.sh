# t30-daemon.sh - the daemon through the CLI and raw HTTP on its Unix
# socket: agents, locks (a race of 50 clients, globs, normalisation, TTL
# expiry, renew on activity, contest and force-release), bad input.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/auth" "$R/docs"
printf 'int login(void) { return 0; }\n' > "$R/src/auth/login.c"
printf '# guide\n' > "$R/docs/guide.md"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
"$AIRSPACE_BIN" serve --log-stderr --tick-ms 50 --rescan-ms 60000 \
    2> "$TMP/daemon.log" &
DPID=$!
trap 'kill $DPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
SOCK="$R/.git/airspace/sock"
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
check "socket appears" [ -S "$SOCK" ]
check "socket is 0600" [ "$(stat -c %a "$SOCK")" = 600 ]
check "airspace dir is 0700" [ "$(stat -c %a "$R/.git/airspace")" = 700 ]

api GET /v1/status
check "status 200" [ "$CODE" = 200 ]
check "status names the repository" jqt "$TMP/body" ".repository == \"$R/.git\""
check "a second daemon is refused" sh -c "! '$AIRSPACE_BIN' serve --log-stderr 2>/dev/null"

# agents
for a in alice bob carol; do
    api POST /v1/agents "{\"id\":\"$a\",\"client\":\"claude-code\"}"
    check "register $a" [ "$CODE" = 200 ]
done
api GET /v1/agents
check "main worktree discovered + 3 registered" jqt "$TMP/body" '.agents | length == 4'
check "CLI agents --json" sh -c "'$AIRSPACE_BIN' agents --json | jq -e '.agents | map(.id) | index(\"bob\")' >/dev/null"

# 50 concurrent clients race for one path: one holder, 49 refusals naming it
n=0
while [ $n -lt 50 ]; do
    api POST /v1/agents "{\"id\":\"r$n\"}" >/dev/null
    n=$((n + 1))
done
n=0
while [ $n -lt 50 ]; do
    curl -s -o "$TMP/race.$n" -w '%{http_code}\n' --unix-socket "$SOCK" \
        -X POST -H 'Content-Type: application/json' \
        --data "{\"agent\":\"r$n\",\"pattern\":\"src/auth/login.c\"}" \
        http://a/v1/locks > "$TMP/race.$n.code" &
    n=$((n + 1))
done
wait_all=0
while [ "$(cat "$TMP"/race.*.code 2>/dev/null | wc -l)" -lt 50 ] && [ $wait_all -lt 200 ]; do
    sleep 0.05; wait_all=$((wait_all + 1))
done
sleep 0.2
ok200=$(cat "$TMP"/race.*.code | grep -c '^200$' || true)
ko409=$(cat "$TMP"/race.*.code | grep -c '^409$' || true)
check "race: exactly one holder ($ok200)" [ "$ok200" = 1 ]
check "race: 49 refusals ($ko409)" [ "$ko409" = 49 ]
winner=$(for f in "$TMP"/race.[0-9]*; do case $f in *.code) ;; *) jq -r 'select(.outcome) | .holder' "$f";; esac; done)
named=0
for f in "$TMP"/race.[0-9]*; do
    case $f in *.code) continue ;; esac
    if jq -e '.error' "$f" >/dev/null 2>&1; then
        [ "$(jq -r .error.holder.holder "$f")" = "$winner" ] && named=$((named + 1))
    fi
done
check "race: every refusal names the holder $winner ($named)" [ "$named" = 49 ]

# normalisation: ./src//auth/login.c is the same lock; escapes refused
api POST /v1/locks "{\"agent\":\"alice\",\"pattern\":\"./src//auth/login.c\"}"
check "normalised spelling is refused too" [ "$CODE" = 409 ]
api POST /v1/locks "{\"agent\":\"alice\",\"pattern\":\"$R/src/auth/login.c\"}"
check "absolute path inside the repo is the same lock" [ "$CODE" = 409 ]
api POST /v1/locks '{"agent":"alice","pattern":"../etc/passwd"}'
check "escape refused 400" [ "$CODE" = 400 ]
check "escape message" grep -q "escapes" "$TMP/body"
# globs: src/auth/* held by bob blocks deeper paths for others
api POST /v1/locks/release "{\"agent\":\"$winner\",\"pattern\":\"src/auth/login.c\"}"
check "a release without the token is refused 400 ($CODE)" jqt "$TMP/body" '.error.code == "token_required"'
api POST /v1/locks/release "{\"agent\":\"$winner\",\"pattern\":\"src/auth/login.c\",\"token\":$(lock_token "$winner" src/auth/login.c)}"
check "holder releases" [ "$CODE" = 200 ]
api POST /v1/locks '{"agent":"bob","pattern":"src/auth/**"}'
check "bob locks src/auth/**" [ "$CODE" = 200 ]
api POST /v1/locks '{"agent":"carol","pattern":"src/auth/deep/x.ts"}'
check "deeper path refused" [ "$CODE" = 409 ]
api POST /v1/locks '{"agent":"carol","pattern":"docs/guide.md"}'
check "unrelated path granted" [ "$CODE" = 200 ]
api POST /v1/locks/release '{"agent":"carol","pattern":"src/auth/**"}'
check "release by a non-holder refused" [ "$CODE" = 409 ]
api GET '/v1/locks?agent=bob'
check "bob's lock kept" jqt "$TMP/body" '.locks | length == 1'
# check (for hooks): who holds a path
api POST /v1/locks/check '{"agent":"carol","path":"src/auth/login.c"}'
check "check names bob" jqt "$TMP/body" '.free == false and .holder.holder == "bob"'

# fencing tokens strictly increase
api POST /v1/locks '{"agent":"alice","pattern":"a.txt"}'
t1=$(jq .token "$TMP/body")
api POST /v1/locks '{"agent":"alice","pattern":"b.txt"}'
t2=$(jq .token "$TMP/body")
check "tokens increase ($t1 < $t2)" [ "$t1" -lt "$t2" ]

# TTL expiry with an event; renew on activity
api POST /v1/locks '{"agent":"alice","pattern":"short.txt","ttlMs":300}'
check "short lock granted" [ "$CODE" = 200 ]
sleep 0.6
api GET '/v1/locks?agent=alice'
check "short lock expired" jqt "$TMP/body" '[.locks[] | select(.pattern == "short.txt")] | length == 0'
# (the event comes at a tick, the list hides the lock at once: a loaded
# machine may list it gone first)
expired_told() {
    "$AIRSPACE_BIN" watch --json --after 0 --count 400 > "$TMP/ev.json" 2>/dev/null &
    WPID=$!
    sleep 0.5
    kill $WPID 2>/dev/null || true
    wait $WPID 2>/dev/null || true
    jq -s -e '[.[] | select(.type == "lock.expired" and .data.pattern == "short.txt")] | length == 1' "$TMP/ev.json" > /dev/null
}
n=0
until expired_told || [ $n -ge 10 ]; do n=$((n + 1)); done
check "lock.expired event names path and agent" \
    sh -c "jq -s -e '[.[] | select(.type == \"lock.expired\" and .data.pattern == \"short.txt\" and .agent == \"alice\")] | length == 1' '$TMP/ev.json' >/dev/null"
api POST /v1/locks '{"agent":"alice","pattern":"docs/notes.md","ttlMs":800}'
sleep 0.5
api POST /v1/agents/alice/edits '{"path":"docs/notes.md","lines":[[1,2]]}'
check "edit accepted" [ "$CODE" = 200 ]
sleep 0.5
api GET '/v1/locks?agent=alice'
check "activity renewed the lock" jqt "$TMP/body" '[.locks[] | select(.pattern == "docs/notes.md")] | length == 1'

# claims: contest, then force-release refused before the timeout
api POST /v1/locks '{"agent":"alice","pattern":"docs/plan.md","kind":"claim"}'
check "claim granted" [ "$CODE" = 200 ]
api POST /v1/locks/contest '{"agent":"bob","pattern":"docs/plan.md"}'
check "contest accepted" jqt "$TMP/body" '.contestedBy == "bob"'
api POST /v1/locks/force-release '{"agent":"bob","pattern":"docs/plan.md"}'
check "force-release refused before the timeout" [ "$CODE" = 409 ]
# the holder exits: its locks go, each with an event
api POST /v1/agents/alice/exit
check "exit 200" [ "$CODE" = 200 ]
api GET '/v1/locks?agent=alice'
check "exit released alice's locks" jqt "$TMP/body" '.locks | length == 0'

# bad input: a clear 4xx naming the problem, and nothing changed
api GET /v1/locks
before=$(jq -c '[.locks[] | .token]' "$TMP/body")
api POST /v1/locks '{"agent":"bob",'
check "malformed JSON 400" [ "$CODE" = 400 ]
check "malformed JSON message" grep -q "malformed JSON" "$TMP/body"
api POST /v1/locks '{"agent":"bob","pattern":7}'
check "wrong type 400 names the field" sh -c "[ $CODE = 400 ] && grep -q pattern '$TMP/body'"
api POST /v1/locks '{"agent":"nobody","pattern":"x"}'
check "unknown agent 404" [ "$CODE" = 404 ]
api POST /v1/locks '{"agent":"bob","pattern":"x","ttlMs":0}'
check "ttl 0 refused" sh -c "[ $CODE = 400 ] && grep -q ttlMs '$TMP/body'"
api POST /v1/locks '{"agent":"bob","pattern":"x","colour":"red"}'
check "unknown field refused" sh -c "[ $CODE = 400 ] && grep -q colour '$TMP/body'"
api GET /v1/nope
check "unknown route 404" [ "$CODE" = 404 ]
api DELETE /v1/status
check "wrong method 405" [ "$CODE" = 405 ]
head -c 2000000 /dev/zero | tr '\0' 'a' > "$TMP/big"
CODE=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" -X POST \
    --data-binary @"$TMP/big" http://a/v1/locks)
check "oversized body 413" [ "$CODE" = 413 ]
api GET /v1/locks
check "state unchanged by bad input" [ "$(jq -c '[.locks[] | .token]' "$TMP/body")" = "$before" ]

# CLI: lock refused exits 1 naming the holder; stop ends the daemon
set +e
AIRSPACE_AGENT=carol "$AIRSPACE_BIN" lock src/auth/x.c > /dev/null 2> "$TMP/lock.err"
rc=$?
set -e
check "CLI lock refused: exit 1 ($rc)" [ "$rc" = 1 ]
check "CLI lock names the holder" grep -q "bob" "$TMP/lock.err"
"$AIRSPACE_BIN" stop
i=0
while kill -0 $DPID 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
check "stop ends the daemon" sh -c "! kill -0 $DPID 2>/dev/null"
check "socket removed" [ ! -e "$SOCK" ]

# TCP on loopback: a bearer token for everything; SIGTERM shuts down cleanly
PORT=$((20000 + $$ % 20000))
"$AIRSPACE_BIN" serve --log-stderr --tcp $PORT 2> "$TMP/daemon2.log" &
DPID=$!
i=0
while [ ! -s "$R/.git/airspace/token" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
until curl -sf --unix-socket "$SOCK" http://a/v1/status > /dev/null 2>&1; do sleep 0.05; done
check "token file is 0600" [ "$(stat -c %a "$R/.git/airspace/token")" = 600 ]
CODE=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/v1/status)
check "TCP without a token: 401" [ "$CODE" = 401 ]
CODE=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer wrong" http://127.0.0.1:$PORT/v1/status)
check "TCP with a wrong token: 401" [ "$CODE" = 401 ]
CODE=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$R/.git/airspace/token")" http://127.0.0.1:$PORT/v1/status)
check "TCP with the token: 200" [ "$CODE" = 200 ]
kill -TERM $DPID
i=0
while kill -0 $DPID 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
check "SIGTERM ends the daemon" sh -c "! kill -0 $DPID 2>/dev/null"
check "the log says it stopped" grep -q "stopped" "$TMP/daemon2.log"
finish

# t48-watch-log.sh - `airspace watch` follows from now on (--since ID and
# --after ID replay first) with what happened on each line; `airspace log`
# prints the last events, newest last (-n N, --after ID, filters).
. "$(dirname "$0")/lib.sh"
export TZ=UTC

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
echo 'int a;' > "$R/src/a.c"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --rescan-ms 60000
as api POST /v1/agents '{"id":"alice","client":"claude-code"}' > /dev/null
as api POST /v1/agents '{"id":"bob","client":"codex"}' > /dev/null
# history: 60 lock/unlock pairs
i=0
while [ $i -lt 60 ]; do
    as lock --agent alice "src/h$i.c" > /dev/null
    as unlock --agent alice "src/h$i.c" > /dev/null
    i=$((i + 1))
done
last() { as api GET /v1/status | jq .lastEventId; }
L=$(last)

# ---- watch: from now on ----
as watch > "$TMP/watch.out" 2> "$TMP/watch.err" &
WPID=$!
n=0
until [ -s "$TMP/watch.out" ] || [ $n -ge 100 ]; do
    as lock --agent bob src/ping.c > /dev/null
    as unlock --agent bob src/ping.c > /dev/null
    sleep 0.05
    n=$((n + 1))
done
as lock --agent bob --reason "check details" src/a.c > /dev/null
n=0
until grep -q 'src/a.c' "$TMP/watch.out" || [ $n -ge 100 ]; do sleep 0.05; n=$((n + 1)); done
kill $WPID 2> /dev/null || true
wait $WPID 2> /dev/null || true
check "watch follows live events" grep -q 'src/ping.c' "$TMP/watch.out"
check "watch starts at now: no replayed history" \
    sh -c "! grep -Eq 'agent\\.registered|src/h[0-9]' '$TMP/watch.out'"
first=$(awk 'NR == 1 { print $1 }' "$TMP/watch.out")
check "watch's first event is after the history ($first > $L)" [ "$first" -gt "$L" ]
check "watch prints the details of a lock" grep -Eq \
    '^ *[0-9]+ [0-9]{2}:[0-9]{2}:[0-9]{2} lock\.granted +bob +src/a\.c \(exclusive lock, token [0-9]+\): check details$' \
    "$TMP/watch.out"

# ---- watch --since ID and --after ID: replay, then follow ----
as watch --since 3 --count 3 --json > "$TMP/since.json"
check "--since 3 replays from event 3 on" \
    [ "$(jq -s -c 'map(.id)' "$TMP/since.json")" = "[3,4,5]" ]
as watch --after 3 --count 2 --json > "$TMP/after.json"
check "--after 3 replays the events after 3" \
    [ "$(jq -s -c 'map(.id)' "$TMP/after.json")" = "[4,5]" ]
as watch --since 4 --count 1 > "$TMP/since.txt"
check "--since in text: a line with the event's id and details" \
    grep -Eq '^ +4 [0-9:]{8} lock\.granted +alice +src/h0\.c \(exclusive lock' "$TMP/since.txt"
as watch --since 0 > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "--since 0 is a usage error" [ "$st" = 2 ]
as watch --since 5 --after 3 > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "--since with --after is a usage error" [ "$st" = 2 ]
check "... saying they exclude each other" grep -q -- "--since and --after exclude each other" "$TMP/err"
as watch bogus > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "watch refuses an argument" [ "$st" = 2 ]

# ---- log: the last N, newest last ----
L=$(last)
as log > "$TMP/log.txt"
check "log prints 20 events by default" [ "$(wc -l < "$TMP/log.txt")" = 20 ]
check "... the newest last" [ "$(awk 'END { print $1 }' "$TMP/log.txt")" = "$L" ]
check "... the oldest first" [ "$(awk 'NR == 1 { print $1 }' "$TMP/log.txt")" = "$((L - 19))" ]
check "... each with its date, time and details" grep -Eq \
    '^ *[0-9]+ [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} lock\.granted +bob +src/a\.c \(exclusive lock, token [0-9]+\): check details$' \
    "$TMP/log.txt"
as log -n 5 --json > "$TMP/log5.json"
check "-n 5: the last five, oldest first" \
    [ "$(jq -c '[.events[].id]' "$TMP/log5.json")" = "[$((L - 4)),$((L - 3)),$((L - 2)),$((L - 1)),$L]" ]
as log --type agent.registered -n 5 --json > "$TMP/reg.json"
check "a rare type far back: found past the first window" \
    [ "$(jq -c '[.events[].data.id]' "$TMP/reg.json")" = '["alice","bob"]' ]
as log --agent bob --type lock.granted -n 1 --json > "$TMP/bob.json"
check "--agent and --type: bob's last lock" \
    jqt "$TMP/bob.json" '.events | length == 1 and .[0].data.pattern == "src/a.c"'
as log --after 3 -n 2 --json > "$TMP/after.json"
check "--after 3 -n 2: the two after event 3" \
    [ "$(jq -c '[.events[].id]' "$TMP/after.json")" = "[4,5]" ]
as log --type no.such -n 3 > "$TMP/none.txt"
check "nothing matches: 'no events'" [ "$(cat "$TMP/none.txt")" = "no events" ]
as log -n 0 > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "-n 0 is a usage error" [ "$st" = 2 ]
finish

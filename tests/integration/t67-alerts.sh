# t67-alerts.sh - the daemon's alerts, each kind raised and cleared with
# an event: a silent agent and the lock it holds, a message to the
# supervisor left waiting, one file changed by two agents with no advisory,
# a fleet agent given up, the store failing. `airspace alerts` (text and
# --json), `status`, the advisories an agent's crew update reads; the
# notification command gets each alert as JSON on stdin, rate-limited per
# alert and in total; a committed config cannot name the command; bad
# values are refused.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
mkdir -p src
seq 1 200 > src/a.c
seq 1 200 > src/b.c
commit 00:01 files
AIR="$(git rev-parse --git-common-dir)/airspace"
mkdir -p "$AIR"
chmod 700 "$AIR"
# ---- config: bad values and a command in the committed file ----
mkdir -p .airspace
printf '[alerts]\n\tcommand = touch %s/pwned\n' "$TMP" > .airspace/config
as scan > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "a committed alerts.command is refused (exit $st)" [ "$st" -ne 0 ]
check "... saying why" grep -q "taken only from your own config files" "$TMP/err"
printf '[alerts]\n\tsilent = soon\n' > .airspace/config
as scan > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "a bad alerts.silent is refused" grep -q "alerts.silent = soon: want seconds > 0" "$TMP/err"
rm .airspace/config
# the local file (this clone's own) names the command; the notification
# writes what it got on stdin to a file
cat > "$AIR/config" << EOF
[alerts]
	silent = 2
	waiting = 1
	repeat = 3
	cap = 5
	command = cat >> '$TMP/notified'
EOF
# the pair of alice and bob would be an advisory: weights of zero keep
# one file shared by two agents below every level
start_daemon --tick-ms 50 --stale-ms 600000 --set weight.tree=0 \
    --set weight.overlap=0 --set weight.merge=0
[ ! -e "$TMP/pwned" ] || fail "the committed command ran"

# wait_alert FILTER: until GET /v1/alerts satisfies the jq filter (10 s)
wait_alert() {
    n=0
    until api GET /v1/alerts && jq -e "$1" "$TMP/body" > /dev/null; do
        n=$((n + 1))
        [ $n -lt 100 ] || { cat "$TMP/body" >&2; return 1; }
        sleep 0.1
    done
}
# the agents named in $TMP/keep are heard from every 0.2 s
: > "$TMP/keep"
(
    while [ -d "$TMP" ]; do
        for k in $(cat "$TMP/keep" 2> /dev/null); do
            curl -s -o /dev/null --unix-socket "$SOCK" -X POST \
                "http://a/v1/agents/$k/heartbeat" || :
        done
        sleep 0.2
    done
) &
KEEPER=$!
trap 'kill $KEEPER $DPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
keep() { # keep ID...: heard from from now on
    for k in "$@"; do
        api POST "/v1/agents/$k/heartbeat"
        echo "$k" >> "$TMP/keep"
    done
}
events() { # events TYPE: the ledger's events of TYPE as {kind, subject}
    curl -s --unix-socket "$SOCK" "http://a/v1/ledger?type=$1" |
        jq -c '[.events[].data | {kind, subject}]'
}

# ---- a silent agent, its lock; one file, two agents, no advisory ----
api POST /v1/agents '{"id":"alice"}'
api POST /v1/agents '{"id":"bob"}'
keep bob
api POST /v1/locks '{"agent":"alice","pattern":"src/a.c","ttlMs":600000}'
TOKEN=$(jq .token "$TMP/body")
api POST /v1/agents/alice/edits '{"path":"src/b.c","lines":[[1,2]]}'
api POST /v1/agents/bob/edits '{"path":"src/b.c","lines":[[150,160]]}'
api POST /v1/agents/bob/edits '{"path":"src/a.c","lines":[[100,101]]}'
check "unadvised edit raised" wait_alert \
    '[.alerts[] | select(.kind == "unadvised-edit") | del(.since)] == [{"kind":"unadvised-edit","subject":"src/b.c","text":"src/b.c is changed by '"'alice'"' and '"'bob'"' with no advisory between them","agents":["alice","bob"]}]'
check "alice silent: silent-agent and stale-lock" wait_alert \
    '([.alerts[] | select(.kind == "silent-agent") | .subject] == ["alice"]) and ([.alerts[] | select(.kind == "stale-lock")] | length == 1)'
check "the stale lock names its token, pattern and holder" jqt "$TMP/body" \
    "[.alerts[] | select(.kind == \"stale-lock\")][0] | .subject == \"$TOKEN\" and (.text | test(\"lock 'src/a.c' is held by 'alice', silent for [0-9]+s\"))"
check "... and concerns bob, who changes that file" jqt "$TMP/body" \
    '[.alerts[] | select(.kind == "stale-lock")][0].agents == ["alice","bob"]'
api GET '/v1/alerts?agent=bob'
check "bob's alerts: the lock and the shared file" jqt "$TMP/body" \
    '[.alerts[].kind] | sort == ["stale-lock","unadvised-edit"]'
api GET '/v1/advisories?agent=bob'
check "the advisories an agent's crew update reads carry its alerts" jqt "$TMP/body" \
    '[.alerts[].kind] | sort == ["stale-lock","unadvised-edit"]'
printf '{"session_id":"s-bob","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":"go on"}' "$R" |
    AIRSPACE_AGENT=bob as hook claude-code > "$TMP/hook" 2> "$TMP/err" || :
check "bob's crew update carries his alerts" sh -c \
    "jq -r .hookSpecificOutput.additionalContext '$TMP/hook' | grep -q \"^- alert: lock 'src/a.c' is held by 'alice', silent for\""
as alerts > "$TMP/out"
check "airspace alerts: one line each" grep -Eq "^silent-agent +[0-9]+s ago  agent 'alice' has been silent for [0-9]+s$" "$TMP/out"
as alerts --json > "$TMP/out"
check "airspace alerts --json" jqt "$TMP/out" '.alerts | length == 3'
as alerts --agent bob --fail > /dev/null && st=0 || st=$?
check "--fail: exit 1 with alerts" [ "$st" = 1 ]
as status > "$TMP/out"
check "status shows the alerts" grep -q "^3 alerts (airspace alerts):" "$TMP/out"
as status --json > "$TMP/out"
check "status --json too" jqt "$TMP/out" '(.alerts | length == 3) and .daemon.alerts.count == 3 and .daemon.alerts.command'
check "each raised alert is an event" [ "$(events alert.raised | jq -c 'map(.kind) | sort')" = \
    '["silent-agent","stale-lock","unadvised-edit"]' ]
# alice speaks: her two alerts clear, each with an event
keep alice
check "alice heard: cleared" wait_alert '[.alerts[].kind] == ["unadvised-edit"]'
check "... each with alert.cleared" [ "$(events alert.cleared | jq -c 'map(.kind) | sort')" = '["silent-agent","stale-lock"]' ]
api POST /v1/agents/bob/exit
check "bob exited: the shared file clears" wait_alert '[.alerts[] | select(.kind == "unadvised-edit")] == []'

# ---- the notifications so far ----
check "the command got each alert as JSON on stdin" sh -c \
    "jq -s -e 'map(.kind) | sort == [\"silent-agent\",\"stale-lock\",\"unadvised-edit\"]' '$TMP/notified' > /dev/null"
check "... with its text, agents, since and event" sh -c \
    "jq -s -e 'all(.text and .agents and .since and .event == \"alert.raised\" and .repository)' '$TMP/notified' > /dev/null"

# ---- a message to the supervisor waiting ----
api POST /v1/agents '{"id":"carol"}'
keep carol
api POST /v1/messages '{"from":"carol","to":"supervisor","type":"question","body":"may I touch the schema? $(touch '"$TMP"'/pwned) `touch '"$TMP"'/pwned`"}'
check "a question to the supervisor waits: alert" wait_alert \
    '[.alerts[] | select(.kind == "waiting")] | length == 1 and (.[0].text | test("may I touch the schema")) and .[0].agents == ["carol"]'
check "... its text reached the command on stdin, never a shell" sh -c \
    "sleep 0.3; grep -q 'may I touch the schema' '$TMP/notified' && [ ! -e '$TMP/pwned' ]"
as inbox --agent supervisor > /dev/null
check "read: cleared" wait_alert '[.alerts[] | select(.kind == "waiting")] == []'

# ---- a fleet agent given up (the supervisor's report) ----
api POST /v1/fleet/crashy '{"state":"given-up","restarts":2,"why":"exit 3"}'
check "report taken" [ "$CODE" = 200 ]
check "fleet agent given up: alert" wait_alert \
    '[.alerts[] | select(.kind == "fleet-given-up")] == [{"kind":"fleet-given-up","subject":"crashy","text":"fleet agent '"'crashy'"' was given up after 2 restarts: exit 3","agents":["crashy"],"since":([.alerts[] | select(.kind == "fleet-given-up")][0].since)}]'
api GET '/v1/ledger?type=fleet.given_up'
check "... and the fleet.given_up event" jqt "$TMP/body" '.events[-1].data == {"name":"crashy","restarts":2,"why":"exit 3"}'
api POST /v1/fleet/crashy '{"state":"bogus"}'
check "a bad state: 400" [ "$CODE" = 400 ]
api POST '/v1/fleet/bad%20name' '{"state":"running"}'
check "a bad name: 400" [ "$CODE" = 400 ]
api POST /v1/fleet/crashy '{"state":"running","restarts":0}'
check "running again: cleared" wait_alert '[.alerts[] | select(.kind == "fleet-given-up")] == []'
api GET /v1/fleet
check "GET /v1/fleet" jqt "$TMP/body" '.fleet == [{"name":"crashy","state":"running","restarts":0,"pid":0,"at":.fleet[0].at}]'

# ---- rate limit: repeat (3 s per alert) and cap (5 per minute) ----
# crashy given up again at once: the same alert within repeat is not
# notified again
before=$(jq -s length "$TMP/notified")
api POST /v1/fleet/crashy '{"state":"given-up","restarts":2}'
check "given up again: alert" wait_alert '[.alerts[] | select(.kind == "fleet-given-up")] | length == 1'
sleep 0.3
check "... within repeat: not notified again (had $before)" [ "$(jq -s length "$TMP/notified")" = "$before" ]
check "... the daemon says so" grep -q "alerts: fleet-given-up crashy not notified (repeat limit)" "$TMP/daemon.log"
# cap: five in the last minute (three above, the waiting one, crashy);
# more alerts raised now are not notified
for n in d1 d2 d3; do
    api POST "/v1/fleet/$n" '{"state":"given-up","restarts":1}'
done
check "three more alerts" wait_alert '[.alerts[] | select(.kind == "fleet-given-up")] | length == 4'
sleep 0.3
check "... none notified past the cap of 5" [ "$(jq -s length "$TMP/notified")" = 5 ]
check "... the daemon says so" grep -q "not notified (cap limit)" "$TMP/daemon.log"
check "status counts them" sh -c "'$AIRSPACE_BIN' status --json | jq -e '.daemon.alerts.notified == 5 and .daemon.alerts.suppressed == 4' > /dev/null"

# ---- the store failing ----
rm -f "$AIR/airspace.db"
api POST /v1/locks '{"agent":"alice","pattern":"src/z.c"}'
check "store deleted: writes refused ($CODE)" [ "$CODE" -ge 500 ]
check "store failing: alert" wait_alert '[.alerts[] | select(.kind == "store-failing")] | length == 1 and (.[0].text | test("the store refuses writes"))'
curl -s -m 1 --unix-socket "$SOCK" 'http://a/v1/events?after=0' > "$TMP/stream" || :
check "... evented on the stream (the ledger is the store)" grep -q '"type":"alert.raised".*"kind":"store-failing"' "$TMP/stream"
finish

# t16-team-collab.sh - intents and messages across the daemons of one
# airspace on a shared PostgreSQL store (docs/team.md): an intent declared
# on daemon 1 is on daemon 2's board (as alice@<daemon>) within a second
# and makes a forward conflict with an overlapping intent declared there,
# each agent told by its own daemon; a daemon started later reads both
# from the store; dropped on daemon 1, it leaves the others; a message
# from alice (daemon 1) to bob (daemon 2) reaches bob's inbox there, from
# alice@<daemon>, and bob's answer to that name reaches alice; messages
# to bob while daemon 2 is killed are kept in the store and reach his
# inbox, once, when it starts again; a recipient no daemon knows is
# refused. SKIP when the PostgreSQL
# server programs are not installed.
. "$(dirname "$0")/lib.sh"

. "${AIRSPACE_SOURCE_DIR:?}/tests/pg/team.sh"
team_server

team_remote 3

# wait_for K PATH JQ: until daemon K's answer to GET PATH satisfies JQ
# (at most ~2 s); the last answer in $TMP/body
wait_for() {
    n=0
    until req "$1" GET "$2" && jqt "$TMP/body" "$3"; do
        n=$((n + 1))
        [ $n -lt 40 ] || return 1
        sleep 0.05
    done
}

start 1
start 2
req 1 POST /v1/agents '{"id":"alice"}'
req 2 POST /v1/agents '{"id":"bob"}'

t0=$(ms)
req 1 POST /v1/intents '{"agent":"alice","files":["src/a.c"],"summary":"rework the parser"}'
check "alice declares an intent on src/a.c on daemon 1" [ "$CODE" = 200 ]
wait_for 2 /v1/intents '[.intents[] | select((.agent | startswith("alice@")) and .files == ["src/a.c"])] | length == 1'
t1=$(ms)
# (how long it took is printed, not asserted: a loaded machine is slow)
check "daemon 2's board has alice's intent ($((t1 - t0)) ms)" \
    jqt "$TMP/body" '[.intents[] | select(.agent | startswith("alice@"))] | length == 1'
echo "cross-daemon intent: $((t1 - t0)) ms" >&2
alice2=$(jq -r '.intents[] | select(.agent | startswith("alice@")) | .agent' "$TMP/body")
req 1 GET /v1/intents
check "daemon 1's board has alice's intent once, as hers" \
    jqt "$TMP/body" '[.intents[].agent] == ["alice"]'

req 2 POST /v1/intents '{"agent":"bob","files":["src/a.c"]}'
check "bob's overlapping intent on daemon 2 is a forward conflict with $alice2" \
    jqt "$TMP/body" "[.conflicts[] | select(.shape == \"forward\" and .with == \"$alice2\")] | length == 1"
wait_for 2 '/v1/agents/bob/inbox?peek=1' '[.messages[] | select(.body | startswith("[conflict]"))] | length >= 1'
check "bob is told by daemon 2" \
    jqt "$TMP/body" '[.messages[] | select(.body | startswith("[conflict]") and contains("alice@"))] | length >= 1'
wait_for 1 '/v1/agents/alice/inbox?peek=1' '[.messages[] | select(.body | startswith("[conflict]"))] | length >= 1'
check "alice is told by daemon 1 (bob's intent mirrored there)" \
    jqt "$TMP/body" '[.messages[] | select(.body | startswith("[conflict]") and contains("bob@"))] | length >= 1'
nconf=$(jq '[.messages[] | select(.body | startswith("[conflict]"))] | length' "$TMP/body")
check "alice is told once ($nconf), not again through daemon 2" [ "$nconf" = 1 ]
req 1 GET /v1/intents
check "daemon 1's board has both intents" \
    jqt "$TMP/body" '[.intents[].agent | sub("@.*"; "")] | sort == ["alice", "bob"]'
req 1 GET /v1/team
check "daemon 1 keeps no row of bob's copy" \
    jqt "$TMP/body" '[.peers[].agents[].id] == ["bob"]'

# a daemon that starts now reads the intents declared before it
start 3
wait_for 3 /v1/intents '[.intents[].agent | sub("@.*"; "")] | sort == ["alice", "bob"]'
check "daemon 3, started later, has alice's and bob's intents" \
    jqt "$TMP/body" '[.intents[].agent | select(contains("@")) | sub("@.*"; "")] | sort == ["alice", "bob"]'

id=$(req 1 GET '/v1/intents?agent=alice' && jq -r '.intents[0].id' "$TMP/body")
req 1 POST "/v1/intents/$id/drop" '{"agent":"alice"}'
check "alice drops her intent on daemon 1" [ "$CODE" = 200 ]
wait_for 2 /v1/intents '[.intents[] | select(.agent | startswith("alice@"))] | length == 0'
check "her intent leaves daemon 2's board" \
    jqt "$TMP/body" '[.intents[].agent] == ["bob"]'
wait_for 3 /v1/intents '[.intents[] | select(.agent | startswith("alice@"))] | length == 0'
check "and daemon 3's" jqt "$TMP/body" '[.intents[].agent | sub("@.*"; "")] == ["bob"]'

req 1 POST /v1/messages '{"from":"alice","to":"bob","type":"question","body":"are you on the parser?"}'
check "alice's message to bob (daemon 2) is accepted on daemon 1" \
    all "[ $CODE = 200 ] && jq -e '.delivered == 1' $TMP/body > /dev/null"
wait_for 2 /v1/agents/bob/inbox?peek=1 '[.messages[] | select(.body == "are you on the parser?")] | length == 1'
check "it reaches bob's inbox on daemon 2, from $alice2" \
    jqt "$TMP/body" "[.messages[] | select(.body == \"are you on the parser?\" and .from == \"$alice2\" and .type == \"question\")] | length == 1"
# a body over the notification's limit once written as JSON is refused,
# the message saying what it takes (1 200 control characters: 7 200)
long=$(python3 -c 'print("\\u0001" * 1200)')
req 1 POST /v1/messages "{\"from\":\"alice\",\"to\":\"bob\",\"body\":\"$long\"}"
check "a message of 1 200 control characters to bob is refused ($CODE: $(jq -r .error.message "$TMP/body"))" \
    all "[ $CODE = 400 ] && jq -r .error.message '$TMP/body' | grep -q 'at most 6800 bytes written as JSON.*takes 7200'"
req 2 POST /v1/messages "{\"from\":\"bob\",\"to\":\"$alice2\",\"body\":\"yes\"}"
check "bob answers $alice2 on daemon 2" [ "$CODE" = 200 ]
wait_for 1 /v1/agents/alice/inbox?peek=1 '[.messages[] | select(.body == "yes")] | length == 1'
check "the answer reaches alice's inbox on daemon 1, from bob@..." \
    jqt "$TMP/body" '[.messages[] | select(.body == "yes" and (.from | startswith("bob@")))] | length == 1'
# daemon 2 is killed: a message to bob is still accepted (bob is stored
# on daemon 2's node) and kept in the store; daemon 2, started again,
# takes it into bob's inbox, once
kill -9 "$P2"
wait "$P2" 2> /dev/null || true
req 1 POST /v1/messages '{"from":"alice","to":"bob","type":"info","body":"while you were out"}'
check "with daemon 2 down, alice's message to bob is accepted" \
    all "[ $CODE = 200 ] && jq -e '.delivered == 1' $TMP/body > /dev/null"
req 1 POST /v1/messages '{"from":"alice","to":"bob","type":"info","body":"and a second"}'
start 2
wait_for 2 /v1/agents/bob/inbox?peek=1 '[.messages[] | select(.body == "and a second")] | length == 1'
check "daemon 2 started again: both are in bob's inbox, once each, in order" \
    jqt "$TMP/body" "[.messages[] | select(.from == \"$alice2\") | .body] | .[-2:] == [\"while you were out\", \"and a second\"]"
check "and no other copy" \
    jqt "$TMP/body" '[.messages[] | select(.body == "while you were out")] | length == 1'
sleep 2.5 # a periodic take of the store finds nothing more
req 2 GET /v1/agents/bob/inbox?peek=1
check "2.5 s later still once" \
    jqt "$TMP/body" '[.messages[] | select(.body == "while you were out" or .body == "and a second")] | length == 2'
# what another daemon's agent does, it does through its own daemon: a
# lock or an exit in the name of its copy here is refused
req 2 POST /v1/locks "{\"agent\":\"$alice2\",\"pattern\":\"src/z.c\"}"
check "a lock in the name of alice's copy on daemon 2 is refused (409, got $CODE)" \
    all "[ $CODE = 409 ] && jq -e '.error.code == \"refused\"' $TMP/body > /dev/null"
req 2 POST "/v1/agents/$alice2/exit"
check "so is her copy's exit (409, got $CODE)" [ "$CODE" = 409 ]
# each agent's own daemon tells it of its conflicts: nothing sits in a
# copy's inbox
req 2 GET "/v1/agents/$alice2/inbox?peek=1"
check "no conflict notice in alice's copy's inbox on daemon 2" \
    jqt "$TMP/body" '[.messages[] | select(.body | startswith("[conflict]"))] | length == 0'
# 'all' is this daemon's own agents, not the copies of the others' (a
# message from alice makes hers active here)
req 1 POST /v1/messages '{"from":"alice","to":"bob","body":"one more"}'
wait_for 2 /v1/agents/bob/inbox?peek=1 '[.messages[] | select(.body == "one more")] | length == 1'
req 2 GET /v1/agents
check "alice's copy is an active agent on daemon 2" \
    jqt "$TMP/body" "[.agents[] | select(.id == \"$alice2\" and .status == \"active\")] | length == 1"
req 2 POST /v1/agents '{"id":"erin"}'
req 2 POST /v1/messages '{"from":"bob","to":"all","body":"to everyone here"}'
check "'all' on daemon 2 reaches its own agents only ($(cat "$TMP/body"))" jqt "$TMP/body" '.delivered == 1'
req 2 GET /v1/agents/erin/inbox?peek=1
check "erin has it" jqt "$TMP/body" '[.messages[] | select(.body == "to everyone here")] | length == 1'
# a copy added for a message, not heard of for 20 s, with nothing
# changed and no intent here, no longer flies here (exited); one whose
# intent lives stays
status_of() { # status_of K ID: the agent's status on daemon K
    req "$1" GET /v1/agents && jq -r --arg i "$2" '.agents[] | select(.id == $i) | .status' "$TMP/body"
}
n=0
until [ "$(status_of 2 "$alice2")" = exited ] || [ $n -ge 300 ]; do sleep 0.1; n=$((n + 1)); done
check "alice's copy on daemon 2, silent for 20 s, has exited ($(status_of 2 "$alice2"))" \
    [ "$(status_of 2 "$alice2")" = exited ]
req 1 GET /v1/agents
bob1=$(jq -r '.agents[] | select(.id | startswith("bob@")) | .id' "$TMP/body")
check "bob's copy on daemon 1, whose intent lives, is active ($bob1: $(status_of 1 "$bob1"))" \
    [ "$(status_of 1 "$bob1")" = active ]
# an id two daemons have: refused, naming each as this daemon names it
req 1 POST /v1/agents '{"id":"zed"}'
req 2 POST /v1/agents '{"id":"zed"}'
req 3 POST /v1/agents '{"id":"yan"}'
req 3 GET /v1/team
zeds=$(jq -r '[.peers[].agents[] | select(.id == "zed") | .as] | sort | join(", ")' "$TMP/body")
check "GET /v1/team names each peer agent as this daemon does ($zeds)" \
    sh -c 'printf "%s" "$1" | grep -qE "^zed@[0-9a-f]{6}, zed@[0-9a-f]{6}$"' _ "$zeds"
req 3 POST /v1/messages '{"from":"yan","to":"zed","body":"which one?"}'
names_both() {
    [ "$CODE" = 400 ] || return 1
    for z in $(printf '%s' "$zeds" | tr -d ,); do
        jq -r .error.message "$TMP/body" | grep -qF "$z" || return 1
    done
}
check "a message to zed, on two daemons, is refused naming both ($(jq -r .error.message "$TMP/body"))" names_both
# a worktree's agent its daemon found and did not store (main) is
# answered by its name all the same, even after a restart forgot its copy
req 1 POST /v1/messages '{"from":"main","to":"bob","body":"from main"}'
check "daemon 1's main writes to bob ($CODE)" [ "$CODE" = 200 ]
wait_for 2 /v1/agents/bob/inbox?peek=1 '[.messages[] | select(.body == "from main")] | length == 1'
main1=$(jq -r '.messages[] | select(.body == "from main") | .from' "$TMP/body")
kill -9 "$P2"
wait "$P2" 2> /dev/null || true
start 2
req 2 POST /v1/messages "{\"from\":\"bob\",\"to\":\"$main1\",\"body\":\"back to main\"}"
check "after daemon 2's restart bob answers $main1 ($CODE: $(head -c 200 "$TMP/body"))" [ "$CODE" = 200 ]
wait_for 1 /v1/agents/main/inbox?peek=1 '[.messages[] | select(.body == "back to main")] | length == 1'
check "it reaches daemon 1's main" \
    jqt "$TMP/body" '[.messages[] | select(.body == "back to main")] | length == 1'

req 1 POST /v1/messages '{"from":"alice","to":"nobody","body":"hi"}'
check "a recipient no daemon knows is refused (404 unknown_recipient)" \
    all "[ $CODE = 404 ] && jq -e '.error.code == \"unknown_recipient\"' $TMP/body > /dev/null"
finish

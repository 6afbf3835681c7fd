# t32-collab.sh - intents, forward conflicts, messages and inboxes through
# the daemon's API.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/api"
printf 'export function users() { return []; }\n' > "$R/src/api/users.js"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --rescan-ms 60000

for a in s1 s2 s3 s4; do
    api POST /v1/agents "{\"id\":\"$a\",\"label\":\"team-$a\"}"
done

# messages: to all from one of 4 sessions reach 3; to a label or id reach 1
api POST /v1/messages '{"from":"s1","to":"all","body":"rebasing main at noon"}'
check "to all: 3 delivered" jqt "$TMP/body" '.delivered == 3'
api POST /v1/messages '{"from":"s1","to":"team-s2","type":"question","body":"are you on auth?"}'
check "to a label: 1" jqt "$TMP/body" '.delivered == 1'
api POST /v1/messages '{"from":"s1","to":"s3","type":"handoff","body":"take the api tests"}'
check "to an id: 1" jqt "$TMP/body" '.delivered == 1'
api GET /v1/agents/s2/inbox
check "s2 reads 2 messages" jqt "$TMP/body" '.messages | length == 2'
check "in order, with type" jqt "$TMP/body" '[.messages[].type] == ["info","question"]'
api GET /v1/agents/s2/inbox
check "reading empties the inbox" jqt "$TMP/body" '.messages | length == 0'
api GET /v1/agents/s1/inbox
check "the sender does not get its own broadcast" jqt "$TMP/body" '.messages | length == 0'
api POST /v1/messages '{"from":"s1","to":"s2","type":"shout","body":"x"}'
check "unknown type refused" sh -c "[ $CODE = 400 ] && grep -q type '$TMP/body'"
api POST /v1/messages '{"from":"s1","to":"nobody","body":"x"}'
check "unknown recipient 404" [ "$CODE" = 404 ]

# intents: two sharing a file -> a forward conflict notice to both
api POST /v1/intents '{"agent":"s1","files":["src/api/users.js"],"summary":"add paging"}'
check "intent declared" sh -c "[ $CODE = 200 ] && jq -e '.conflicts | length == 0' '$TMP/body' >/dev/null"
api POST /v1/intents '{"agent":"s2","files":["src/api/**"],"summary":"rename api"}'
check "second intent reports the conflict with s1" jqt "$TMP/body" '.conflicts[0].with == "s1"'
id2=$(jq .id "$TMP/body")
api GET /v1/agents/s1/inbox
check "s1 told [conflict]" sh -c "jq -e '.messages[0].body | test(\"^\\\\[conflict\\\\] forward\")' '$TMP/body' >/dev/null"
api GET /v1/agents/s2/inbox
check "s2 told too" jqt "$TMP/body" '.messages | length == 1'
api GET /v1/conflicts
check "conflicts lists the forward pair" jqt "$TMP/body" '[.conflicts[] | select(.shape == "forward")] | length >= 1'
api GET /v1/intents
check "two live intents" jqt "$TMP/body" '.intents | length == 2'
api POST "/v1/intents/$id2/drop" '{"agent":"s1"}'
check "only the owner drops an intent" [ "$CODE" = 409 ]
api POST "/v1/intents/$id2/drop" '{"agent":"s2"}'
check "owner drops it" [ "$CODE" = 200 ]
api POST /v1/intents '{"agent":"s3","files":["x"],"ttlMs":100}'
sleep 0.4
api GET /v1/intents
check "expired intent gone" jqt "$TMP/body" '[.intents[] | select(.agent == "s3")] | length == 0'
api POST /v1/intents '{"agent":"s3","files":["../x"]}'
check "escaping intent refused" [ "$CODE" = 400 ]
api POST /v1/intents '{"agent":"s3","files":[]}'
check "empty files refused" [ "$CODE" = 400 ]

# a huge ttlMs saturates: the intent is live, expiring far ahead
api POST /v1/intents '{"agent":"s3","files":["docs/far.md"],"ttlMs":9223372036854775807}'
check "huge ttlMs accepted" [ "$CODE" = 200 ]
check "huge ttlMs: expiresAt after createdAt" jqt "$TMP/body" '.expiresAt > .createdAt'
api GET '/v1/intents?agent=s3'
check "huge ttlMs: the intent is live" jqt "$TMP/body" \
    '[.intents[] | select(.files == ["docs/far.md"])] | length == 1'

# the same through the CLI
AIRSPACE_AGENT=s3 "$AIRSPACE_BIN" msg s4 "lunch?" > "$TMP/out"
check "CLI msg delivers" grep -q "delivered to 1" "$TMP/out"
AIRSPACE_AGENT=s4 "$AIRSPACE_BIN" inbox > "$TMP/out"
check "CLI inbox shows it" grep -q "\[info\] s3: lunch?" "$TMP/out"
AIRSPACE_AGENT=s4 "$AIRSPACE_BIN" intent --summary "fix users" src/api/users.js > "$TMP/out"
check "CLI intent reports the forward conflict" grep -q "^\\[conflict\\] forward: 's1' and 's4' both intend to touch src/api/users.js" "$TMP/out"
"$AIRSPACE_BIN" conflicts > "$TMP/out"
check "CLI conflicts lists forward" grep -q "^forward" "$TMP/out"
"$AIRSPACE_BIN" log --type intent. --json > "$TMP/out"
check "CLI log filters by type" jqt "$TMP/out" '[.events[].type | startswith("intent.")] | all and length >= 3'
"$AIRSPACE_BIN" log --agent s4 --json > "$TMP/out"
check "CLI log filters by agent" jqt "$TMP/out" '[.events[].agent] | all(. == "s4") and length >= 1'
set +e
"$AIRSPACE_BIN" msg s1 hi > /dev/null 2>&1; rc=$?
set -e
check "CLI msg without a sender: exit 2" [ "$rc" = 2 ]
finish

# t134-activity-gap.sh - POST /v1/activity: a delta after a gap in its
# session's numbering is applied (the table is last-writer-wins) and said
# to be (`applied`), with `resync` asking for a snapshot; the agent's pairs
# are scored again at once, so a file it now holds in context that another
# agent changed raises their context channel.
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
base_repo "$R"
start_daemon --rescan-ms 60000
T=$(date +%s%3N) # ms now: the view decays heat by age
api POST /v1/agents '{"id":"C"}'
api POST /v1/agents '{"id":"D"}'
api POST /v1/agents/D/edits '{"path":"lib/y.c","lines":[[3,4]]}'
context() { # the context channel of the pair C, D
    api GET '/v1/advisories?all=1&agent=C' &&
        jq -r '[.advisories[] | select(.a == "D" or .b == "D") | .channels.context][0] // 0' "$TMP/body"
}
above() { awk "BEGIN { exit !($1 > $2) }"; }

api POST /v1/activity "{\"agent\":\"C\",\"session\":\"sc\",\"events\":[{\"seq\":1,\"file\":\"docs/a.md\",\"heat\":0.3,\"inContext\":false,\"action\":\"read\",\"at\":$T}]}"
check "seq 1: applied" jqt "$TMP/body" '.applied == 1 and .duplicates == 0 and .resync == false'
check "... no context channel yet ($(context))" [ "$(awk "BEGIN { print ($(context) < 0.1) }")" = 1 ]

api POST /v1/activity "{\"agent\":\"C\",\"session\":\"sc\",\"events\":[{\"seq\":5,\"file\":\"lib/y.c\",\"heat\":1.0,\"inContext\":true,\"action\":\"read\",\"at\":$((T + 10))}]}"
check "seq 5 after a gap: applied, and a snapshot asked for ($(cat "$TMP/body"))" \
    jqt "$TMP/body" '.applied == 1 and .duplicates == 0 and .resync == true'
api GET '/v1/activity?file=lib/y.c'
check "... it is in the view" jqt "$TMP/body" '.files[0].inContext == true and .files[0].by == "C"'
check "... and the pair is scored again: context channel up ($(context))" above "$(context)" 0.9

api POST /v1/activity "{\"agent\":\"C\",\"session\":\"sc\",\"events\":[{\"seq\":5,\"file\":\"lib/y.c\",\"heat\":1.0,\"inContext\":true,\"action\":\"read\",\"at\":$((T + 10))}]}"
check "the same delta again: a duplicate, not applied" jqt "$TMP/body" '.applied == 0 and .duplicates == 1 and .resync == false'
api POST /v1/activity "{\"agent\":\"C\",\"session\":\"sc\",\"events\":[{\"seq\":6,\"file\":\"lib/y.c\",\"heat\":1.0,\"inContext\":true,\"action\":\"read\",\"at\":$((T + 20))}]}"
check "numbering goes on from the highest seq" jqt "$TMP/body" '.applied == 1 and .resync == false'
finish

# t36-activity.sh - per-agent activity through the API: the worked timeline
# of conformance §3, duplicates, gaps that ask for a snapshot, disconnect.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
start_daemon --rescan-ms 60000
view() { # view FILTER: on the merged view of /src/api.ts
    curl -s --unix-socket "$SOCK" 'http://a/v1/activity?file=src/api.ts' |
        jq -r ".files[0] | $1"
}
api POST /v1/agents '{"id":"A"}'
api POST /v1/agents '{"id":"B"}'
T=$(date +%s%3N) # ms now: the view decays heat by age (10 min half-life)
ev() { # ev AGENT SESSION SEQ HEAT INCTX ACTION ACTION_AT AT
    api POST /v1/activity "{\"agent\":\"$1\",\"session\":\"$2\",\"events\":[{\"seq\":$3,\"file\":\"src/api.ts\",\"heat\":$4,\"inContext\":$5,\"action\":\"$6\",\"actionAt\":$(($T + $7)),\"at\":$(($T + $8))}]}"
}
near() { awk "BEGIN { exit !($1 - $2 < 0.01 && $2 - $1 < 0.01) }"; }

ev A sa 1 1.0 true read 1000 1000
check "1000 A reads: last read by A" [ "$(view '.action + " " + .by')" = "read A" ]
check "1000: in context" [ "$(view .inContext)" = true ]
ev B sb 1 1.0 true write 1005 1005
check "1005 B writes: last write by B" [ "$(view '.action + " " + .by')" = "write B" ]
ev A sa 2 0.9 true read 1000 1100
check "1100 A cools: heat still 1.0 (B)" near "$(view .heat)" 1.0
check "1100: last write by B" [ "$(view '.action + " " + .by')" = "write B" ]
ev A sa 3 0.9 false read 1000 1200
check "1200 A evicts: still in context (B)" [ "$(view .inContext)" = true ]
ev B sb 2 0.85 false write 1005 1300
check "1300 B evicts: heat 0.9 (A)" near "$(view .heat)" 0.9
check "1300: not in context" [ "$(view .inContext)" = false ]
check "1300: last write by B" [ "$(view '.action + " " + .by')" = "write B" ]
ev A sa 3 0.9 false read 1000 1200
check "a repeated delta is a duplicate" jqt "$TMP/body" '.duplicates == 1 and .resync == false'
ev A sa 9 0.9 false read 1000 1250
check "a gap asks for a snapshot" jqt "$TMP/body" '.resync == true'
api POST /v1/activity/snapshot "{\"agent\":\"A\",\"session\":\"sa\",\"seq\":9,\"files\":[{\"file\":\"src/api.ts\",\"heat\":0.7,\"inContext\":false,\"action\":\"read\",\"actionAt\":$(($T + 1000)),\"at\":$(($T + 1260))}]}"
check "the snapshot is taken" [ "$CODE" = 200 ]
ev A sa 10 0.7 false read 1000 1270
check "numbering continues after the snapshot" jqt "$TMP/body" '.applied == 1 and .resync == false'
api POST /v1/activity/disconnect '{"agent":"B","session":"sb"}'
check "2000 B disconnects: only A's state" [ "$(view '.action + " " + .by')" = "read A" ]
check "2000: one agent" [ "$(view .agents)" = 1 ]
api POST /v1/activity '{"agent":"A","session":"s","events":[{"seq":0,"file":"x"}]}'
check "seq 0 refused" [ "$CODE" = 400 ]
api POST /v1/activity '{"agent":"A","session":"s","events":[{"seq":1,"file":"x","action":"juggle"}]}'
check "unknown action refused" [ "$CODE" = 400 ]
# a refused batch changes nothing: a bad delta after a good one
api POST /v1/activity "{\"agent\":\"A\",\"session\":\"sp\",\"events\":[{\"seq\":1,\"file\":\"lib/partial.c\",\"heat\":1.0,\"inContext\":true,\"action\":\"read\",\"at\":$T},{\"seq\":2,\"file\":\"lib/partial.c\",\"heat\":-1,\"action\":\"read\",\"at\":$T}]}"
check "a negative heat refuses the batch" [ "$CODE" = 400 ]
api GET '/v1/activity?file=lib/partial.c'
check "the refused batch's good delta was not applied" jqt "$TMP/body" '.files | length == 0'
api POST /v1/activity "{\"agent\":\"A\",\"session\":\"sp\",\"events\":[{\"seq\":1,\"file\":\"lib/partial.c\",\"heat\":1.0,\"action\":\"read\",\"at\":$T},{\"seq\":2,\"file\":\"lib/partial.c\",\"heat\":1.0,\"action\":\"read\",\"at\":$T},{\"seq\":3,\"file\":\"\",\"action\":\"read\",\"at\":$T}]}"
check "an empty file refuses the batch" [ "$CODE" = 400 ]
api POST /v1/activity "{\"agent\":\"A\",\"session\":\"sp\",\"events\":[{\"seq\":1,\"file\":\"lib/partial.c\",\"heat\":0.5,\"action\":\"read\",\"at\":$T}]}"
check "the session's numbering was not moved by refused batches" jqt "$TMP/body" \
    '.applied == 1 and .duplicates == 0'

# stale context: C holds lib/x.c in its context, D changes it
api POST /v1/agents '{"id":"C"}'
api POST /v1/agents '{"id":"D"}'
api POST /v1/activity "{\"agent\":\"C\",\"session\":\"sc\",\"events\":[{\"seq\":1,\"file\":\"lib/x.c\",\"heat\":1.0,\"inContext\":true,\"action\":\"read\",\"at\":$T}]}"
api POST /v1/agents/D/edits '{"path":"lib/x.c","lines":[[3,4]]}'
api GET '/v1/advisories?all=1&agent=C'
check "a changed file in another's context raises the context channel" jqt "$TMP/body" \
    '[.advisories[] | select((.a == "D" or .b == "D") and .channels.context > 0.9)] | length == 1'
check "and the pair is in traffic" jqt "$TMP/body" \
    '[.advisories[] | select((.a == "D" or .b == "D") and .level == "traffic")] | length == 1'
finish

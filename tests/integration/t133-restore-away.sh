# t133-restore-away.sh - an agent that exited has left the conflict
# detector, and a daemon restart does not bring it back: its stored
# intents, restored, list none of its conflicts while it is away. When it
# comes back they hold again, and are not told again.
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
base_repo "$R"
echo a > a.txt
commit 00:01 a
start_daemon --tick-ms 50 --rescan-ms 60000

pairs() { # the forward conflicts on a.txt, as "a-b" lines, sorted
    api GET /v1/conflicts &&
        jq -r '.conflicts[] | select(.shape == "forward" and .file == "a.txt") | .agents | sort | join("-")' \
            "$TMP/body" | sort | tr '\n' ' '
}
told() { # told AGENT: the forward conflicts on a.txt AGENT was told
    curl -s --unix-socket "$SOCK" "http://a/v1/ledger?type=conflict&limit=100000" |
        jq --arg to "$1" '[.events[] | select(.type == "conflict" and .data.to == $to and .data.shape == "forward" and .data.file == "a.txt")] | length'
}
for a in p1 p2 zed; do
    api POST /v1/agents "{\"id\":\"$a\",\"client\":\"test\"}"
    api POST /v1/intents "{\"agent\":\"$a\",\"files\":[\"a.txt\"]}"
done
check "three agents, three forward conflicts ($(pairs))" [ "$(pairs)" = "p1-p2 p1-zed p2-zed " ]
check "p1 was told two" [ "$(told p1)" = 2 ]

api POST /v1/agents/p1/exit
check "p1 exited: its conflicts are not listed ($(pairs))" [ "$(pairs)" = "p2-zed " ]

api POST /v1/stop
wait "$DPID" 2> /dev/null || :
start_daemon --tick-ms 50 --rescan-ms 60000
api GET /v1/agents/p1
check "after a restart p1 is still exited" jqt "$TMP/body" '.status == "exited"'
api GET '/v1/intents?agent=p1'
check "... its intent is restored" jqt "$TMP/body" '.intents | length == 1'
check "... and brings none of its conflicts back ($(pairs))" [ "$(pairs)" = "p2-zed " ]
api GET /v1/escalations
check "... nor any escalation" jqt "$TMP/body" '[.escalations[] | select(.agents | index("p1"))] | length == 0'

# p1 comes back (registered again): its conflicts hold, told once
api POST /v1/agents '{"id":"p1","client":"test"}'
check "p1 back: its conflicts hold again ($(pairs))" [ "$(pairs)" = "p1-p2 p1-zed p2-zed " ]
check "... not told again ($(told p1))" [ "$(told p1)" = 2 ]

api POST /v1/stop
wait "$DPID" 2> /dev/null || :
finish

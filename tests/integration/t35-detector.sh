# t35-detector.sh - the conflict detector end to end through the API
# (conformance §4): in-flight notices to both and one escalation after the
# window, additive overlaps in disjoint regions, region names, ownership by
# lane, task dedup.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
# the window is long enough that a loaded machine cannot pass it between
# the edits and the first check; the escalation is then waited for
start_daemon --tick-ms 50 --window-ms 1500 --rescan-ms 60000
inbox() { # inbox WHO FILTER -> jq result over its unread messages (peek)
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1/inbox?peek=1" |
        jq -r "$2"
}
api POST /v1/agents '{"id":"a"}'
api POST /v1/agents '{"id":"b"}'
api POST /v1/agents '{"id":"c","lanes":["src/auth/**"]}'

# in-flight: a and b both change src/api.c -> a notice to both, then ONE
# escalation to the supervisor after the window
api POST /v1/agents/a/edits '{"path":"src/api.c","lines":[[10,12]]}'
api POST /v1/agents/b/edits '{"path":"src/api.c","lines":[[40,41]]}'
check "in-flight notice to a" [ "$(inbox a '[.messages[] | select(.body | startswith("[conflict] in-flight"))] | length')" = 1 ]
check "in-flight notice to b" [ "$(inbox b '[.messages[] | select(.body | startswith("[conflict] in-flight"))] | length')" = 1 ]
check "not escalated before the window" [ "$(inbox supervisor '[.messages[] | select(.body | test("escalation"))] | length')" = 0 ]
escalations() {
    inbox supervisor '[.messages[] | select(.body | test("escalation: in-flight"))] | length'
}
n=0
while [ "$(escalations)" = 0 ] && [ $n -lt 100 ]; do
    sleep 0.1
    n=$((n + 1))
done
check "one escalation after the window" [ "$(inbox supervisor '[.messages[] | select(.body | test("escalation: in-flight"))] | length')" = 1 ]
sleep 0.3
check "still one escalation" [ "$(inbox supervisor '[.messages[] | select(.body | test("escalation: in-flight"))] | length')" = 1 ]
api GET /v1/conflicts
check "conflicts lists the in-flight pair, escalated" jqt "$TMP/body" \
    '[.conflicts[] | select(.shape == "in-flight" and .file == "src/api.c" and .escalated)] | length == 1'
# the same notice is not repeated while the conflict lasts
api POST /v1/agents/a/edits '{"path":"src/api.c","lines":[[13,13]]}'
check "no second notice for the same conflict" [ "$(inbox a '[.messages[] | select(.body | startswith("[conflict] in-flight"))] | length')" = 1 ]

# additive: disjoint declared regions in one file -> an additive notice, no escalation
api POST /v1/intents '{"agent":"a","files":["src/util.c"],"regions":{"src/util.c":[{"name":"parse_user"}]}}'
api POST /v1/intents '{"agent":"b","files":["src/util.c"],"regions":{"src/util.c":[{"name":"format_date"}]}}'
check "disjoint regions: no forward conflict" jqt "$TMP/body" '.conflicts | length == 0'
api POST /v1/agents/a/edits '{"path":"src/util.c","lines":[[5,6]]}'
api POST /v1/agents/b/edits '{"path":"src/util.c","lines":[[80,81]]}'
check "additive notice" [ "$(inbox a '[.messages[] | select(.body | test("additive"))] | length')" -ge 1 ]
sleep 1.8
check "additive overlaps are not escalated" [ "$(inbox supervisor '[.messages[] | select(.body | test("escalation") and test("src/util.c"))] | length')" = 0 ]

# region names normalise: "fn parseUser()" vs "parseuser" is the same region
api POST /v1/intents '{"agent":"a","files":["src/names.rs"],"regions":{"src/names.rs":[{"name":"fn Parse_User()"}]}}'
api POST /v1/intents '{"agent":"b","files":["src/names.rs"],"regions":{"src/names.rs":[{"name":"parse-user"}]}}'
check "same normalised name: forward conflict" jqt "$TMP/body" '[.conflicts[] | select(.shape == "forward")] | length == 1'

# ownership: c owns src/auth/** by its lane; a edits in it
api POST /v1/agents/a/edits '{"path":"src/auth/token.c","lines":[[1,1]]}'
check "ownership notice to the violator" [ "$(inbox a '[.messages[] | select(.body | startswith("[conflict] ownership"))] | length')" = 1 ]
check "no ownership notice to the owner" [ "$(inbox c '[.messages[] | select(.body | startswith("[conflict] ownership"))] | length')" = 0 ]

# task dedup: a close summary is reported to the declaring agent
api POST /v1/intents '{"agent":"a","files":["docs/a.md"],"summary":"migrate the billing tables to postgres"}'
api POST /v1/intents '{"agent":"b","files":["docs/b.md"],"summary":"postgres migration of billing tables"}'
check "similar summary reported" jqt "$TMP/body" '.similar.agent == "a"'
check "dedup note to b" [ "$(inbox b '[.messages[] | select(.body | startswith("[duplicate?]"))] | length')" = 1 ]
finish

# t124-conflict-told-once.sh - a conflict is told once while it lasts, to
# each side, and escalated once, however often an agent's session ends and
# starts again under the same id (resumed, or a new session taking the
# name): the conflicts it was told wait for its return and are not told
# again while it still has them. One it no longer has when it is back has
# ended, and told again when it starts again; a new path is told.
. "$(dirname "$0")/lib.sh"
new_repo "$TMP/repo"
cd "$TMP/repo"
seq -f 'line %g' 1 40 > t.txt
seq -f 'line %g' 1 40 > u.txt
commit 00:00 C0
git worktree add -q -b alice "$TMP/alice" main
git worktree add -q -b bob "$TMP/bob" main
start_daemon --debounce-ms 50 --tick-ms 50 --rescan-ms 60000 --window-ms 1000
export AIRSPACE_HOOK_TIMEOUT_MS=10000

session() { # session ID SESSION DIR EVENT [EXTRA JSON]: a hook call as ID
    printf '{"session_id":"%s","cwd":"%s","hook_event_name":"%s"%s}' \
        "$2" "$3" "$4" "${5:+,$5}" |
        AIRSPACE_AGENT=$1 "$AIRSPACE_BIN" hook claude-code > /dev/null
}
wait_for() { # wait_for CMD... (at most 10 s)
    n=0
    until "$@" || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
    "$@"
}
ledger() { # ledger TYPE TO SHAPE FILE: how many such events were published
    curl -s --unix-socket "$SOCK" "http://a/v1/ledger?type=conflict&limit=100000" |
        jq --arg t "$1" --arg to "$2" --arg s "$3" --arg f "$4" \
            '[.events[] | select(.type == $t and .data.to == $to and .data.shape == $s and .data.file == $f)] | length'
}
told() { [ "$(ledger conflict "$1" "$2" "$3")" = "$4" ]; }
escalated() { [ "$(ledger conflict.escalated supervisor "$1" "$2")" = "$3" ]; }
status_is() { api GET "/v1/agents/$1" && jqt "$TMP/body" ".status == \"$2\""; }
listed() { # listed SHAPE FILE: the conflict holds
    api GET /v1/conflicts &&
        jqt "$TMP/body" "[.conflicts[] | select(.shape == \"$1\" and .file == \"$2\")] | length == 1"
}
unlisted() { ! listed "$@"; }
# cycle ID SESSION-ENDED SESSION-STARTED DIR: the session ends, one starts
cycle() {
    session "$1" "$2" "$4" SessionEnd '"reason":"exit"'
    check "$1 exited ($2)" wait_for status_is "$1" exited
    src=startup
    [ "$2" != "$3" ] || src=resume
    session "$1" "$3" "$4" SessionStart "\"source\":\"$src\""
    check "$1 active again ($3)" wait_for status_is "$1" active
}

session alice s-a1 "$TMP/alice" SessionStart '"source":"startup"'
session bob s-b1 "$TMP/bob" SessionStart '"source":"startup"'
check "alice and bob fly" wait_for status_is bob active

# both change line 10 of t.txt: in flight, and their merge conflicts
sed -i 's/^line 10$/alice 10/' "$TMP/alice/t.txt"
sed -i 's/^line 10$/bob 10/' "$TMP/bob/t.txt"
check "in-flight conflict told to alice" wait_for told alice in-flight t.txt 1
check "... and to bob" wait_for told bob in-flight t.txt 1
check "escalated once after the window" wait_for escalated in-flight t.txt 1
check "the committed conflict is found" wait_for listed committed t.txt
check "... escalated once after the window" wait_for escalated committed t.txt 1
c0=$(ledger conflict alice committed t.txt)

# sessions end and start again under the same ids: resumed, and new ones
cycle alice s-a1 s-a1 "$TMP/alice"
cycle alice s-a1 s-a2 "$TMP/alice"
cycle bob s-b1 s-b2 "$TMP/bob"
cycle alice s-a2 s-a3 "$TMP/alice"
check "the conflict holds again" wait_for listed in-flight t.txt
check "... committed too" wait_for listed committed t.txt
sleep 1.5 # past the window: an escalation anew would be due
check "alice was not told the in-flight conflict again ($(ledger conflict alice in-flight t.txt))" \
    told alice in-flight t.txt 1
check "bob neither ($(ledger conflict bob in-flight t.txt))" told bob in-flight t.txt 1
check "nor the committed one ($(ledger conflict alice committed t.txt), was $c0)" \
    told alice committed t.txt "$c0"
check "not escalated again ($(ledger conflict.escalated supervisor in-flight t.txt))" \
    escalated in-flight t.txt 1
check "... committed neither ($(ledger conflict.escalated supervisor committed t.txt))" \
    escalated committed t.txt 1
api GET /v1/conflicts
check "it holds, escalated, since it began" jqt "$TMP/body" \
    '[.conflicts[] | select(.shape == "in-flight" and .file == "t.txt")] | length == 1 and .[0].escalated'
api GET /v1/escalations
check "one escalation each waits for a human" jqt "$TMP/body" \
    '[.escalations[] | select(.file == "t.txt")] | length == 2'
api GET '/v1/agents/supervisor/inbox?peek=1'
check "the supervisor's inbox holds one escalation of it" jqt "$TMP/body" \
    '[.messages[] | select(.body | test("escalation: in-flight conflict between .alice. and .bob. on t.txt"))] | length == 1'

# a new path is a new conflict
sed -i 's/^line 20$/alice 20/' "$TMP/alice/u.txt"
sed -i 's/^line 30$/bob 30/' "$TMP/bob/u.txt"
check "a new path: told to alice" wait_for told alice in-flight u.txt 1
check "... and to bob" wait_for told bob in-flight u.txt 1
# it ends while alice is away (bob drops his change): she comes back
# without it; when it starts again it is told again
session alice s-a3 "$TMP/alice" SessionEnd '"reason":"exit"'
check "alice exited" wait_for status_is alice exited
check "alice away: her conflicts are not listed" wait_for unlisted in-flight u.txt
git -C "$TMP/bob" checkout -q -- u.txt
files_of() { api GET "/v1/agents/$1" && jqt "$TMP/body" ".fileCount == $2"; }
check "bob's working set drops u.txt" wait_for files_of bob 1
session alice s-a4 "$TMP/alice" SessionStart '"source":"startup"'
check "alice back" wait_for status_is alice active
check "the ended conflict is not listed" unlisted in-flight u.txt
check "... the lasting one is" listed in-flight t.txt
sed -i 's/^line 30$/bob 30/' "$TMP/bob/u.txt"
check "it starts again: told to alice again" wait_for told alice in-flight u.txt 2
check "... and to bob" wait_for told bob in-flight u.txt 2
check "t.txt still told once" told alice in-flight t.txt 1

api POST /v1/stop
wait "$DPID" 2> /dev/null || true
finish

# t55-reports-restart.sh - the edits agents report in a shared working tree
# survive a crash of the daemon: two agents and the person at the keyboard
# in one tree, kill -9, restart; every working set, `reported` list and the
# human's share are exactly as before, no conflict appears that was not
# there, an agent that goes on editing is not taken for the human, and
# `airspace commit` by one agent commits exactly its files. A report made
# by a discovered worktree's agent survives once a registration takes it
# over; an agent that exits leaves its reports (its changes are the
# human's while the tree stays shared), before and after a restart.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
for f in a b c h x; do seq 1 10 | sed 's/^/line /' > "$R/$f.txt"; done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
SOCK="$R/.git/airspace/sock"
DPID=
trap 'kill -9 $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
start() {
    "$AIRSPACE_BIN" serve --log-stderr --tick-ms 50 --debounce-ms 50 \
        --rescan-ms 60000 2>> "$TMP/daemon.log" &
    DPID=$!
    n=0
    until curl -sf --unix-socket "$SOCK" http://a/v1/status > /dev/null 2>&1; do
        sleep 0.05
        n=$((n + 1))
        [ $n -lt 400 ] || return 1
    done
}
crash() { # kill -9 and start again
    kill -9 $DPID
    wait $DPID 2> /dev/null || true
    start
}
files_of() { # files_of AGENT: its working set's paths, space separated
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1?files=1" |
        jq -r '[.files[].path] | join(" ")'
}
is_files() { [ "$(files_of "$1")" = "$2" ]; }
wait_for() { # wait_for COMMAND...: up to 5 s
    n=0
    while ! "$@" && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
    "$@"
}
# snap OUT AGENT...: those agents, sorted, with what must survive (a human's
# weights follow the clock: left out; an agent's are its reports')
snap() {
    out=$1
    shift
    curl -s --unix-socket "$SOCK" 'http://a/v1/agents?files=1' |
        jq -S --args '[.agents[] | select(.id as $i | $ARGS.positional | index($i)) |
            (.kind == "human") as $hu |
            {id, kind, status, shared, fileCount, reported,
             files: [.files[] | if $hu then del(.weight) else . end]}] | sort_by(.id)' \
            "$@" > "$out"
}
conflicts() { # conflicts OUT: who conflicts over which file, how
    curl -s --unix-socket "$SOCK" http://a/v1/conflicts |
        jq -S '[.conflicts[] | {shape, agents: (.agents | sort), file}] | sort' > "$1"
}
same() { cmp -s "$1" "$2" || { diff "$1" "$2" >&2; false; }; }
report() { # report AGENT JSON: POST .../edits, which must be acknowledged
    api POST "/v1/agents/$1/edits" "$2"
    [ "$CODE" = 200 ] || fail "report by $1 ($CODE): $2"
}

start
api POST /v1/agents "{\"id\":\"alice\",\"client\":\"test\",\"worktree\":\"$R\"}"
api POST /v1/agents "{\"id\":\"bob\",\"client\":\"test\",\"worktree\":\"$R\"}"
api GET /v1/agents
HUMAN=$(jq -r '.agents[] | select(.kind == "human") | .id' "$TMP/body")
check "a human agent for the shared tree ($HUMAN)" [ -n "$HUMAN" ]

# alice inserts a line after line 3 of a.txt (line 4 as she sees it: base
# coordinates differ) and adds n.txt; bob changes b.txt and line 8 of
# c.txt; the person changes h.txt and line 2 of c.txt
sed -i '3a inserted by alice' a.txt
report alice '{"path":"a.txt","lines":[[4,4]]}'
echo new > n.txt
report alice '{"path":"n.txt","status":"added"}'
sed -i '5s/.*/bob was here/' b.txt
report bob '{"path":"b.txt","lines":[[5,5]]}'
sed -i '8s/.*/bob in c/' c.txt
report bob '{"path":"c.txt","lines":[[8,8]]}'
sed -i '2s/.*/typed by the person/' c.txt
sed -i '6s/.*/typed by the person/' h.txt
check "the human's share: c.txt and h.txt ($(files_of "$HUMAN"))" \
    wait_for is_files "$HUMAN" "c.txt h.txt"
check "alice's: a.txt n.txt ($(files_of alice))" is_files alice "a.txt n.txt"
check "bob's: b.txt c.txt ($(files_of bob))" is_files bob "b.txt c.txt"
sleep 0.3 # every read done: the shares are settled
snap "$TMP/before" alice bob "$HUMAN"
conflicts "$TMP/conf.before"
check "alice's lines are base lines: an insertion after line 3" jqt "$TMP/before" \
    '.[] | select(.id == "alice") | [.files[] | select(.path == "a.txt") | .lines] == [[[3, 3]]]'
check "the human keeps only line 2 of c.txt" jqt "$TMP/before" \
    ".[] | select(.id == \"$HUMAN\") | [.files[] | select(.path == \"c.txt\") | .lines] == [[[2, 2]]]"

# ---- kill -9, restart: exactly as before ----
check "restarts after kill -9" crash
snap "$TMP/after" alice bob "$HUMAN"
check "working sets, reported lists and the human's share as before" \
    same "$TMP/before" "$TMP/after"
conflicts "$TMP/conf.after"
check "the same conflicts as before, no bogus one" same "$TMP/conf.before" "$TMP/conf.after"
check "... none of the human over a reported file" jqt "$TMP/conf.after" \
    "[.[] | select(.agents | index(\"$HUMAN\")) | select(.file != \"c.txt\" and .file != \"h.txt\")] | length == 0"
# a second crash, with nothing new: still the same
check "restarts again" crash
snap "$TMP/after2" alice bob "$HUMAN"
check "... and again as before" same "$TMP/before" "$TMP/after2"

# bob goes on editing: his, never the human's
sed -i '9s/.*/bob again/' b.txt
report bob '{"path":"b.txt","lines":[[9,9]]}'
sleep 0.2
check "bob's new edit is his ($(files_of bob))" is_files bob "b.txt c.txt"
check "... and not the human's ($(files_of "$HUMAN"))" wait_for is_files "$HUMAN" "c.txt h.txt"
api GET /v1/conflicts
check "no conflict of the human over b.txt" jqt "$TMP/body" \
    "[.conflicts[] | select(.file == \"b.txt\")] | length == 0"

# ---- alice commits after the restart: exactly her files ----
AIRSPACE_AGENT=alice as commit --json -m alice > "$TMP/alice.json" 2> "$TMP/err" && rc=0 || rc=$?
check "alice commits after the restart ($rc: $(cat "$TMP/err"))" [ "$rc" -eq 0 ]
check "... exactly a.txt and n.txt" jqt "$TMP/alice.json" '[.files[].path] | sort == ["a.txt", "n.txt"]'
check "... the others' changes stay" [ "$(git status --porcelain | tr '\n' ' ')" = " M b.txt  M c.txt  M h.txt " ]
check "alice's working set is empty ($(files_of alice))" wait_for is_files alice ""
check "bob's is b.txt c.txt ($(files_of bob))" is_files bob "b.txt c.txt"
check "the human's c.txt h.txt ($(files_of "$HUMAN"))" is_files "$HUMAN" "c.txt h.txt"
sleep 0.3
snap "$TMP/before" alice bob "$HUMAN"
check "restarts after the commit" crash
snap "$TMP/after" alice bob "$HUMAN"
check "after the commit and a restart: as before" same "$TMP/before" "$TMP/after"

# ---- a discovered worktree's report, then a takeover: it survives ----
git worktree add -q -b side "$TMP/side"
api POST /v1/refresh
api GET /v1/agents
SIDE=$(jq -r ".agents[] | select(.worktree == \"$(realpath "$TMP/side")\") | .id" "$TMP/body")
echo more >> "$TMP/side/x.txt"
report "$SIDE" '{"path":"x.txt","lines":[[11,11]]}'
api POST /v1/agents "{\"id\":\"carol\",\"client\":\"test\",\"worktree\":\"$TMP/side\"}"
check "carol took over $SIDE" jqt "$TMP/body" '.created == false and .id == "carol"'
api POST /v1/agents "{\"id\":\"dave\",\"client\":\"test\",\"worktree\":\"$TMP/side\"}"
check "carol keeps x.txt, reported before the takeover ($(files_of carol))" \
    wait_for is_files carol x.txt
api GET /v1/agents
SIDE_HUMAN=$(jq -r ".agents[] | select(.kind == \"human\" and .worktree == \"$(realpath "$TMP/side")\") | .id" "$TMP/body")
sleep 0.3
snap "$TMP/before" carol dave "$SIDE_HUMAN"
check "restarts after the takeover" crash
snap "$TMP/after" carol dave "$SIDE_HUMAN"
check "the taken-over report survives: as before" same "$TMP/before" "$TMP/after"
check "... carol's reported: x.txt" jqt "$TMP/after" \
    '.[] | select(.id == "carol") | .reported == ["x.txt"]'

# ---- bob exits: his changes are the human's, before and after a restart ----
# (a third agent there: two are left, the tree stays shared; with one left
# it would be that agent's again, t181)
api POST /v1/agents "{\"id\":\"erin\",\"client\":\"test\",\"worktree\":\"$R\"}"
api POST /v1/agents/bob/exit
check "bob exits ($CODE)" [ "$CODE" = 200 ]
check "the human has b.txt now ($(files_of "$HUMAN"))" wait_for is_files "$HUMAN" "b.txt c.txt h.txt"
api GET '/v1/agents/bob?files=1'
check "bob's reports are gone" jqt "$TMP/body" '.reported == [] and .files == []'
sleep 0.3
snap "$TMP/before" alice bob "$HUMAN"
check "restarts after the exit" crash
snap "$TMP/after" alice bob "$HUMAN"
check "after the exit and a restart: as before" same "$TMP/before" "$TMP/after"
kill $DPID
wait $DPID 2> /dev/null || true
finish

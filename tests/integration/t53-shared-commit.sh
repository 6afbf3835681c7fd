# t53-shared-commit.sh - scoped commits in a working tree shared by agents
# and the person at the keyboard: each agent's working set follows git
# (a reported file that is committed leaves it at once; its lines follow
# the real diff), what an agent reported is never the human's, whatever
# the order of reports, writes and registrations, and a file nobody
# reported is; agents say whether they share their working tree
# (`shared`); the daemon records each commit (`git.commit`) and refuses a
# bad record, storing nothing.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
for f in a x c w; do printf '1\n2\n3\n' > "$R/$f.txt"; done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000

files_of() { # files_of AGENT: its working set's paths, space separated
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1?files=1" |
        jq -r '[.files[].path] | join(" ")'
}
lines_of() { # lines_of AGENT PATH: that file's ranges, compact JSON
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1?files=1" |
        jq -c --arg p "$2" '[.files[] | select(.path == $p) | .lines][0]'
}
shared_of() { # shared_of AGENT: its `shared` field
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1" | jq -c .shared
}
wait_for() { # wait_for COMMAND...: up to 5 s
    n=0
    while ! "$@" && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
    "$@"
}
is_files() { [ "$(files_of "$1")" = "$2" ]; }
commits_recorded() { # how many git.commit events the ledger holds
    curl -s --unix-socket "$SOCK" 'http://a/v1/ledger?type=git.commit' |
        jq '.events | length'
}

# ---- shared: false alone, true once another agent flies there ----
api POST /v1/agents "{\"id\":\"alice\",\"client\":\"test\",\"worktree\":\"$R\"}"
check "alone in the main tree: shared false ($(shared_of alice))" [ "$(shared_of alice)" = false ]
api POST /v1/agents "{\"id\":\"bob\",\"client\":\"test\",\"worktree\":\"$R\"}"
api GET /v1/agents
HUMAN=$(jq -r '.agents[] | select(.kind == "human") | .id' "$TMP/body")
check "a human agent for the shared tree ($HUMAN)" [ -n "$HUMAN" ]
check "alice, bob and the human: shared true" jqt "$TMP/body" \
    "[.agents[] | select(.id == \"alice\" or .id == \"bob\" or .id == \"$HUMAN\") | .shared] == [true, true, true]"
check "every agent object has a boolean shared" jqt "$TMP/body" \
    '[.agents[] | .shared | type == "boolean"] | all'

# ---- the reproduction: appended lines, reported ----
echo 4 >> a.txt
api POST /v1/agents/alice/edits '{"path":"a.txt","lines":[[4,4]]}'
echo 4 >> x.txt
api POST /v1/agents/bob/edits '{"path":"x.txt","lines":[[4,4]]}'
check "alice's work: a.txt ($(files_of alice))" is_files alice a.txt
check "bob's work: x.txt ($(files_of bob))" is_files bob x.txt
check "the human has nothing: both appends were reported ($(files_of "$HUMAN"))" \
    wait_for is_files "$HUMAN" ""
check "bob's lines follow the real diff: after base line 3 ($(lines_of bob x.txt))" \
    [ "$(lines_of bob x.txt)" = "[[3,3]]" ]
# the person types in c.txt: nobody reported it, it is the human's
sed -i '2s/.*/typed/' c.txt
check "a file nobody reported is the human's ($(files_of "$HUMAN"))" wait_for is_files "$HUMAN" c.txt
# bob reports w.txt before he writes it: still never the human's
api POST /v1/agents/bob/edits '{"path":"w.txt","lines":[[2,2]]}'
check "a report before the write: not in bob's work yet ($(files_of bob))" is_files bob x.txt
sed -i '2s/.*/bob/' w.txt
has_w() { [ "$(files_of bob)" = "w.txt x.txt" ] && [ "$(files_of "$HUMAN")" = c.txt ]; }
check "... after the write, bob's, not the human's (bob: $(files_of bob); human: $(files_of "$HUMAN"))" wait_for has_w
as conflicts --json > "$TMP/conf.json"
check "no conflict of the human over a reported file" jqt "$TMP/conf.json" \
    "[.conflicts[] | select(.agents | index(\"$HUMAN\")) | select(.file != \"c.txt\")] | length == 0"

# ---- alice commits: her file leaves her working set at once ----
AIRSPACE_AGENT=alice as commit --json -m alice > "$TMP/alice.json" 2> "$TMP/err" && rc=0 || rc=$?
check "alice commits in the shared tree ($rc: $(cat "$TMP/err"))" [ "$rc" -eq 0 ]
check "... only a.txt" jqt "$TMP/alice.json" '[.files[].path] == ["a.txt"]'
check "... x.txt, w.txt and c.txt stay" [ "$(git status --porcelain | tr '\n' ' ')" = " M c.txt  M w.txt  M x.txt " ]
check "right after: alice's working set is empty ($(files_of alice))" is_files alice ""
check "... bob's is w.txt x.txt ($(files_of bob))" is_files bob "w.txt x.txt"
check "... the human's is c.txt ($(files_of "$HUMAN"))" is_files "$HUMAN" c.txt
as conflicts --json > "$TMP/conf.json"
check "no in-flight conflict of bob and the human over x.txt" jqt "$TMP/conf.json" \
    '[.conflicts[] | select(.file == "x.txt")] | length == 0'

# ---- the ledger records it ----
HEAD=$(git rev-parse HEAD)
PARENT=$(git rev-parse HEAD~1)
api GET '/v1/ledger?type=git.commit'
check "one git.commit event, by alice, with the commit" jqt "$TMP/body" \
    "(.events | length) == 1 and .events[0].agent == \"alice\" and .events[0].data.commit == \"$HEAD\""
check "... branch, parent and files" jqt "$TMP/body" \
    ".events[0].data.branch == \"main\" and .events[0].data.parent == \"$PARENT\" and .events[0].data.files == [{\"path\": \"a.txt\", \"status\": \"modified\"}]"
as log --json --type git.commit > "$TMP/log.json"
check "airspace log shows it" jqt "$TMP/log.json" \
    "[.events[] | select(.type == \"git.commit\") | .data.commit] == [\"$HEAD\"]"

# alice changes a.txt again without a report: still hers (she reported it)
echo 5 >> a.txt
check "a file alice reported, changed again: hers ($(files_of alice))" wait_for is_files alice a.txt
check "... not the human's ($(files_of "$HUMAN"))" is_files "$HUMAN" c.txt
git checkout -q -- a.txt
check "... and reverted: it leaves her working set ($(files_of alice))" wait_for is_files alice ""

# ---- bad records: 400 (404 for an unknown agent), nothing stored ----
N=$(commits_recorded)
C40=$(printf '%040d' 1)
bad_record() { # bad_record NAME WANT-CODE BODY [AGENT]
    api POST "/v1/agents/${4:-alice}/commits" "$3"
    check "$1: $2 ($CODE)" [ "$CODE" = "$2" ]
    check "$1: nothing recorded" [ "$(commits_recorded)" = "$N" ]
}
bad_record "not JSON" 400 '{"commit":'
bad_record "no commit" 400 '{"files":[{"path":"a.txt","status":"modified"}]}'
bad_record "a commit that is not an id" 400 '{"commit":"xyz","files":[{"path":"a.txt","status":"modified"}]}'
bad_record "a parent that is not an id" 400 "{\"commit\":\"$C40\",\"parent\":\"HEAD\",\"files\":[{\"path\":\"a.txt\",\"status\":\"modified\"}]}"
bad_record "a branch that is not a string" 400 "{\"commit\":\"$C40\",\"branch\":7,\"files\":[{\"path\":\"a.txt\",\"status\":\"modified\"}]}"
bad_record "no files" 400 "{\"commit\":\"$C40\"}"
bad_record "empty files" 400 "{\"commit\":\"$C40\",\"files\":[]}"
bad_record "a file without a path" 400 "{\"commit\":\"$C40\",\"files\":[{\"status\":\"modified\"}]}"
bad_record "an unknown status" 400 "{\"commit\":\"$C40\",\"files\":[{\"path\":\"a.txt\",\"status\":\"mangled\"}]}"
bad_record "a path escaping the repository" 400 "{\"commit\":\"$C40\",\"files\":[{\"path\":\"../a.txt\",\"status\":\"modified\"}]}"
bad_record "an unknown field" 400 "{\"commit\":\"$C40\",\"files\":[{\"path\":\"a.txt\",\"status\":\"modified\"}],\"extra\":1}"
bad_record "an unknown field of a file" 400 "{\"commit\":\"$C40\",\"files\":[{\"path\":\"a.txt\",\"status\":\"modified\",\"x\":1}]}"
bad_record "an unknown agent" 404 "{\"commit\":\"$C40\",\"files\":[{\"path\":\"a.txt\",\"status\":\"modified\"}]}" nobody
api POST /v1/agents/bob/commits "{\"commit\":\"$C40\",\"branch\":null,\"parent\":null,\"files\":[{\"path\":\"$R/x.txt\",\"status\":\"modified\"}]}"
check "a good record by hand: 200 ($CODE)" [ "$CODE" = 200 ]
api GET '/v1/ledger?type=git.commit'
check "... stored, the absolute path made relative" jqt "$TMP/body" \
    "(.events | length) == $((N + 1)) and .events[-1].agent == \"bob\" and .events[-1].data.files == [{\"path\": \"x.txt\", \"status\": \"modified\"}] and .events[-1].data.branch == null"

# ---- a linked worktree: shared false; the tree turns shared after a report ----
git worktree add -q -b side "$TMP/side"
api POST /v1/refresh
api POST /v1/agents "{\"id\":\"carol\",\"client\":\"test\",\"worktree\":\"$TMP/side\"}"
check "alone in a linked worktree: shared false ($(shared_of carol))" [ "$(shared_of carol)" = false ]
check "... alice still shared ($(shared_of alice))" [ "$(shared_of alice)" = true ]
echo 4 >> "$TMP/side/x.txt"
api POST /v1/agents/carol/edits '{"path":"x.txt","lines":[[4,4]]}'
check "carol's work is git's ($(files_of carol))" wait_for is_files carol x.txt
api POST /v1/agents "{\"id\":\"dave\",\"client\":\"test\",\"worktree\":\"$TMP/side\"}"
check "dave joins: carol shared ($(shared_of carol))" [ "$(shared_of carol)" = true ]
api GET /v1/agents
SIDE_HUMAN=$(jq -r ".agents[] | select(.kind == \"human\" and .worktree == \"$(realpath "$TMP/side")\") | .id" "$TMP/body")
check "carol keeps x.txt, reported before the tree was shared ($(files_of carol))" is_files carol x.txt
check "... and $SIDE_HUMAN does not have it ($(files_of "$SIDE_HUMAN"))" wait_for is_files "$SIDE_HUMAN" ""
(cd "$TMP/side" && as commit --agent carol --json -m carol > "$TMP/carol.json" 2> "$TMP/err") && rc=0 || rc=$?
check "carol commits ($rc: $(cat "$TMP/err"))" [ "$rc" -eq 0 ]
# on branch side its base is still main's commit: committed, x.txt stays
check "... x.txt stays hers, committed on side, not on main ($(files_of carol))" is_files carol x.txt
check "... and is not the human's ($(files_of "$SIDE_HUMAN"))" is_files "$SIDE_HUMAN" ""
check "... recorded for carol" [ "$(curl -s --unix-socket "$SOCK" 'http://a/v1/ledger?type=git.commit&agent=carol' | jq -r '.events[0].data.branch')" = side ]

# a worktree only one agent flies in: every change is committed
git worktree add -q -b solo "$TMP/solo"
api POST /v1/refresh
api POST /v1/agents "{\"id\":\"erin\",\"client\":\"test\",\"worktree\":\"$TMP/solo\"}"
echo 4 >> "$TMP/solo/a.txt"
echo 4 >> "$TMP/solo/c.txt"
check "erin's work ($(files_of erin))" wait_for is_files erin "a.txt c.txt"
(cd "$TMP/solo" && as commit --agent erin --json -m erin > "$TMP/erin.json" 2> "$TMP/err") && rc=0 || rc=$?
check "erin, alone (shared false), commits every change ($rc)" jqt "$TMP/erin.json" \
    '[.files[].path] == ["a.txt", "c.txt"]'
check "... recorded" [ "$(curl -s --unix-socket "$SOCK" 'http://a/v1/ledger?type=git.commit&agent=erin' | jq '.events | length')" = 1 ]
finish

# t182-person-lock.sh - a person's command is not a session's: in the main
# checkout where a client session works (it took the checkout's agent
# over), a person's `airspace lock` without --agent is taken in the name
# of the person at the keyboard there (human@<dir>, which the daemon
# makes), not in the session's: the lock keeps the session off the file
# and outlives the session. A person's `airspace commit` there commits as
# that person too, never as the session. The session's own shell still
# acts as the session; where no session runs the person acts as the
# worktree's agent, as before, and a killed session's agent is no running
# session's.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/lib"
for f in lib/p.txt lib/q.txt a.txt; do echo "$f" > "$R/$f"; done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
R=$(pwd -P)
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000

hook() { # hook SESSION EVENT [EXTRA-JSON]: the command a client runs
    printf "printf '%%s' '{\"session_id\":\"%s\",\"cwd\":\"%s\",\"hook_event_name\":\"%s\"%s}' | '%s' hook gemini" \
        "$1" "$R" "$2" "${3:-}" "$AIRSPACE_BIN"
}
files_of() { # files_of AGENT: its working set's paths
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1?files=1" | jq -r '[.files[]?.path] | join(" ")'
}
holder() { # holder PATTERN: who holds it ("" when nobody)
    curl -s --unix-socket "$SOCK" http://a/v1/locks |
        jq -r --arg p "$1" '[.locks[] | select(.pattern == $p) | .holder][0] // ""'
}

# before any session: the person acts as the checkout's agent
as lock lib/q.txt > /dev/null 2>&1 && rc=0 || rc=$?
check "no session: the person locks as the checkout's agent ($rc, $(holder lib/q.txt))" \
    sh -c "[ $rc -eq 0 ] && [ '$(holder lib/q.txt)' = main ]"
as unlock lib/q.txt > /dev/null 2>&1 || true

# a Gemini session in the main checkout
client_start G
G=$(hook_agent gemini g-main)
client_run G "$(hook g-main SessionStart ',"source":"startup"') > /dev/null"
check "the session took the checkout's agent over" sh -c \
    "curl -s --unix-socket '$SOCK' http://a/v1/agents | jq -e --arg r '$R' '[.agents[] | select(.worktree == \$r and .status != \"exited\") | .id] == [\"$G\"]' > /dev/null"

# the person, in a terminal of their own, locks a file: as the person
as lock lib/p.txt --reason 'the person keeps it' > "$TMP/out" 2> "$TMP/err" && rc=0 || rc=$?
check "the person's lock is granted ($rc: $(cat "$TMP/err"))" [ "$rc" -eq 0 ]
check "... to the person at the checkout, not the session ($(holder lib/p.txt))" \
    [ "$(holder lib/p.txt)" = human@repo ]
check "... a human agent of that worktree" sh -c \
    "curl -s --unix-socket '$SOCK' http://a/v1/agents/human@repo | jq -e --arg r '$R' '.kind == \"human\" and .worktree == \$r' > /dev/null"
check "... the session still has the checkout to itself (shared false)" sh -c \
    "curl -s --unix-socket '$SOCK' http://a/v1/agents/$G | jq -e '.shared == false' > /dev/null"
EDIT=",\"tool_name\":\"replace\",\"tool_input\":{\"file_path\":\"$R/lib/p.txt\",\"old_string\":\"lib/p.txt\",\"new_string\":\"changed\"}"
client_run G "$(hook g-main BeforeTool "$EDIT") > '$TMP/pre.json'; '$AIRSPACE_BIN' lock lib/q.txt > '$TMP/g-lock.out' 2>&1"
check "the session's edit is denied ($(cat "$TMP/pre.json"))" \
    jqt "$TMP/pre.json" '.decision == "deny" and (.reason | test("locked by .human@repo."))'
check "the session's own shell still locks as the session ($(cat "$TMP/g-lock.out"))" \
    [ "$(holder lib/q.txt)" = "$G" ]
# the session's work stays the session's: the person there takes none
client_run G "echo more >> '$R/lib/q.txt'"
n=0
until files_of "$G" | grep -q lib/q.txt || [ $n -gt 200 ]; do sleep 0.05; n=$((n + 1)); done
as api POST /v1/refresh > /dev/null
check "the session's change is its own ($(files_of "$G"))" [ "$(files_of "$G")" = lib/q.txt ]
check "... not the person's ($(files_of human@repo))" [ -z "$(files_of human@repo)" ]
git checkout -q -- lib/q.txt
# the person commits a file of theirs: as the person, not the session
echo change >> a.txt
as commit -m mine > /dev/null 2> "$TMP/cerr" && rc=0 || rc=$?
check "without PATHs the person has nothing of their own to commit ($rc: $(cat "$TMP/cerr"))" \
    sh -c "[ $rc -ne 0 ] && grep -q human@repo '$TMP/cerr' && grep -q 'name the PATHs' '$TMP/cerr' && [ \"\$(git log --format=%s -1)\" = base ]"
as commit -m mine --json a.txt > "$TMP/commit.json" 2> "$TMP/cerr" && rc=0 || rc=$?
check "the person's commit ($rc: $(cat "$TMP/cerr"))" [ "$rc" -eq 0 ]
check "... is the person's" jqt "$TMP/commit.json" '.agent == "human@repo" and ([.files[].path] == ["a.txt"])'
client_run G "$(hook g-main SessionEnd ',"reason":"exit"')"
client_stop G
check "the session's end leaves the person's lock ($(holder lib/p.txt))" [ "$(holder lib/p.txt)" = human@repo ]
check "... and releases its own ($(holder lib/q.txt))" [ -z "$(holder lib/q.txt)" ]
as unlock lib/p.txt > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "the person unlocks it ($rc: $(cat "$TMP/err"))" sh -c "[ $rc -eq 0 ] && [ -z '$(holder lib/p.txt)' ]"

# a session whose client is gone (killed) is no running session: the
# person may act for its agent (to release what it held, say)
client_start K
K=$(hook_agent gemini g-killed)
client_run K "$(hook g-killed SessionStart ',"source":"startup"') > /dev/null; '$AIRSPACE_BIN' lock a.txt > /dev/null 2>&1"
client_kill K
as unlock a.txt > "$TMP/out" 2> "$TMP/err" && rc=0 || rc=$?
check "a killed session's lock: the person releases it ($rc: $(cat "$TMP/err"))" \
    sh -c "[ $rc -eq 0 ] && [ -z '$(holder a.txt)' ]"
finish

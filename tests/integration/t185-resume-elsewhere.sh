# t185-resume-elsewhere.sh - a session begun in alice's worktree, killed,
# and resumed in bob's worktree (`codex exec resume ID` run there) is
# bob's worktree's agent, not alice: its edits there are not filed under
# alice (before, they were, with in-flight conflicts between alice and bob
# on files alice never touched). Resumed in alice's worktree again, it is
# alice, as a crash and resume in place keeps its name (t43).
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
for f in a b; do echo "$f" > "$R/$f.txt"; done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
as agent new alice > /dev/null 2>&1
as agent new bob > /dev/null 2>&1
WA="$TMP/repo.airspace/alice"
WB="$TMP/repo.airspace/bob"
start() { # start SESSION CWD SOURCE
    printf "printf '%%s' '{\"session_id\":\"%s\",\"cwd\":\"%s\",\"hook_event_name\":\"SessionStart\",\"source\":\"%s\"}' | '%s' hook claude-code" \
        "$1" "$2" "$3" "$AIRSPACE_BIN"
}
ctx() { jq -r '.hookSpecificOutput.additionalContext // empty' "$1" | head -n 1; }

client_start A
client_run A "$(start s-x "$WA" startup) > '$TMP/a.json'"
check "begun in alice's worktree, it is alice ($(ctx "$TMP/a.json"))" sh -c 'ctx() { jq -r ".hookSpecificOutput.additionalContext" "$1" | head -n 1; }; ctx "$1" | grep -q "crew update for alice:"' x "$TMP/a.json"
client_kill A
client_start B
client_run B "$(start s-x "$WB" resume) > '$TMP/b.json'"
check "resumed in bob's worktree, it is bob ($(ctx "$TMP/b.json"))" sh -c 'jq -r ".hookSpecificOutput.additionalContext" "$1" | head -n 1 | grep -q "crew update for bob:"' x "$TMP/b.json"
client_kill B
client_start C
client_run C "$(start s-x "$WA" resume) > '$TMP/c.json'"
check "resumed in alice's again, it is alice ($(ctx "$TMP/c.json"))" sh -c 'jq -r ".hookSpecificOutput.additionalContext" "$1" | head -n 1 | grep -q "crew update for alice:"' x "$TMP/c.json"
client_stop C
finish

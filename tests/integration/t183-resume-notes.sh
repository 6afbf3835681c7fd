# t183-resume-notes.sh - a resumed session is told what it holds: its
# SessionStart (source "resume") names the locks its agent holds now, or
# says it holds none (a lock its conversation took expired while the
# client was down); and a session resumed after a new session took its
# worktree's name (the name's claimant was dead) is told that it is not
# that agent any more, and by what name it goes on. The name's new session
# has what the name held, the crashed conversation's lock included, and
# its end releases that lock (docs/hooks.md, "One agent per session").
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
for f in c d m; do echo "$f" > "$R/$f.txt"; done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
as agent new carol > /dev/null 2>&1
as agent new dave > /dev/null 2>&1
WC="$TMP/repo.airspace/carol"
WD="$TMP/repo.airspace/dave"

start() { # start SESSION CWD SOURCE: the command a client runs at its start
    printf "printf '%%s' '{\"session_id\":\"%s\",\"cwd\":\"%s\",\"hook_event_name\":\"SessionStart\",\"source\":\"%s\"}' | '%s' hook claude-code" \
        "$1" "$2" "$3" "$AIRSPACE_BIN"
}
end() { # end SESSION CWD
    printf "printf '%%s' '{\"session_id\":\"%s\",\"cwd\":\"%s\",\"hook_event_name\":\"SessionEnd\"}' | '%s' hook claude-code" \
        "$1" "$2" "$AIRSPACE_BIN"
}
ctx() { jq -r '.hookSpecificOutput.additionalContext // empty' "$1"; }
has() { # has FILE TEXT: the answer's context holds TEXT
    ctx "$1" | grep -qF -- "$2"
}
holder() {
    curl -s --unix-socket "$SOCK" http://a/v1/locks |
        jq -r --arg p "$1" '[.locks[] | select(.pattern == $p) | .holder][0] // ""'
}

# dave's session locks d.txt, is killed, is resumed: it holds d.txt still
client_start A
client_run A "$(start s-dave "$WD" startup) > /dev/null; cd '$WD' && '$AIRSPACE_BIN' lock d.txt > /dev/null 2>&1"
client_kill A
client_start B
client_run B "$(start s-dave "$WD" resume) > '$TMP/b.json'"
check "resumed, it is dave ($(ctx "$TMP/b.json" | head -n 1))" has "$TMP/b.json" "crew update for dave:"
check "... and is told the locks it holds ($(ctx "$TMP/b.json" | tail -n 2))" has "$TMP/b.json" "- you hold now: d.txt"
client_run B "$(start s-dave "$WD" startup) > '$TMP/b2.json'"
check "a start that is no resume says nothing of them" sh -c "! jq -r '.hookSpecificOutput.additionalContext' '$TMP/b2.json' | grep -q 'you hold'"
client_run B "$(end s-dave "$WD")"
client_stop B

# main checkout: a lock taken for a second lapses while the client is down
client_start M
client_run M "$(start s-main "$R" startup) > /dev/null; '$AIRSPACE_BIN' lock --ttl 1 m.txt > /dev/null 2>&1"
client_kill M
sleep 1.5
client_start N
client_run N "$(start s-main "$R" resume) > '$TMP/n.json'"
check "a lock that lapsed meanwhile: told it holds none ($(ctx "$TMP/n.json" | tail -n 1))" \
    has "$TMP/n.json" "- you hold no lock now: a lock taken before this session was resumed is gone"
client_run N "$(end s-main "$R")"
client_stop N

# carol's session locks c.txt and is killed; a new session in her
# worktree takes the name (and the lock); then the first is resumed
client_start C1
client_run C1 "$(start s-carol "$WC" startup) > /dev/null; cd '$WC' && '$AIRSPACE_BIN' lock c.txt > /dev/null 2>&1"
client_kill C1
client_start C2
client_run C2 "$(start s-carol-2 "$WC" startup) > '$TMP/c2.json'"
check "the new session takes the name ($(ctx "$TMP/c2.json" | head -n 1))" has "$TMP/c2.json" "crew update for carol:"
check "... and the crashed session's lock with it ($(holder c.txt))" [ "$(holder c.txt)" = carol ]
client_start C3
client_run C3 "$(start s-carol "$WC" resume) > '$TMP/c3.json'"
RESUMED=$(hook_agent cc s-carol)
check "the resumed session goes on as $RESUMED ($(ctx "$TMP/c3.json" | head -n 1))" has "$TMP/c3.json" "crew update for $RESUMED:"
check "... and is told that carol is another session's now ($(ctx "$TMP/c3.json" | grep 'this session' || true))" \
    has "$TMP/c3.json" "- this session was 'carol' before its client stopped; another session has that name now, with what 'carol' held (locks, changes): this session is '$RESUMED' and holds none of it"
check "... and that it holds no lock" has "$TMP/c3.json" "- you hold no lock now"
client_run C2 "$(end s-carol-2 "$WC")"
client_stop C2
check "the name's session ends: the lock it had goes ($(holder c.txt))" [ -z "$(holder c.txt)" ]
check "... the resumed session goes on" [ "$(curl -s --unix-socket "$SOCK" "http://a/v1/agents/$RESUMED" | jq -r .status)" = active ]
client_run C3 "$(end s-carol "$WC")"
client_stop C3
finish

# t180-session-processes.sh - a session's agent follows its client
# processes: a second live client of one session id (Gemini CLI lets
# `--resume` pick a session that is still running) is an agent of its own,
# and its end leaves the first one's agent, locks and records, while a
# helper process of the client is the same agent; a client killed while
# its parent has not reaped it (a zombie) is gone, so its resumed session
# takes its name back and a new session after it does not share it; and a
# session that ends late in a client process that runs another session
# now (Codex's TUI ends a thread a minute after `/new`) removes none of
# the other's records, nor exits the agent the other runs as.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
for f in a b c d; do echo "$f" > "$R/$f.txt"; done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
for n in alice carol dora; do as agent new $n > /dev/null 2>&1; done
WA="$TMP/repo.airspace/alice"
WC="$TMP/repo.airspace/carol"
WD="$TMP/repo.airspace/dora"
SD="$R/.git/airspace/sessions"

hook() { # hook CLIENT SESSION CWD EVENT [EXTRA-JSON]: the command a client runs
    printf "printf '%%s' '{\"session_id\":\"%s\",\"cwd\":\"%s\",\"hook_event_name\":\"%s\"%s}' | '%s' hook %s" \
        "$2" "$3" "$4" "${5:-}" "$AIRSPACE_BIN" "$1"
}
ctx() { # ctx FILE: the context of a hook's answer
    jq -r '.hookSpecificOutput.additionalContext // empty' "$1" 2> /dev/null
}
crew_of() { # crew_of FILE: the agent a crew update is for
    ctx "$1" | sed -n 's/^airspace crew update for \(.*\):$/\1/p' | head -n 1
}
holder() { # holder PATTERN: who holds it ("" when nobody)
    curl -s --unix-socket "$SOCK" http://a/v1/locks |
        jq -r --arg p "$1" '[.locks[] | select(.pattern == $p) | .holder][0] // ""'
}
status_of() {
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1" | jq -r '.status // "none"'
}

# ---- two live clients of one session id are two agents ----
client_start A
client_run A "$(hook gemini g-1 "$WA" SessionStart ',"source":"startup"') > '$TMP/a.json'; cd '$WA' && '$AIRSPACE_BIN' lock a.txt > '$TMP/a-lock.out' 2>&1"
check "the first client is alice ($(crew_of "$TMP/a.json"))" [ "$(crew_of "$TMP/a.json")" = alice ]
check "its shell locks as alice ($(cat "$TMP/a-lock.out"))" [ "$(holder a.txt)" = alice ]
# a helper process of the client (one it runs) is the same agent
echo "$(hook gemini g-1 "$WA" SessionStart ',"source":"startup"') > '$TMP/helper.json'" > "$TMP/helper.sh"
client_run A "python3 -c 'import subprocess, sys
subprocess.call([\"sh\", sys.argv[1]])' '$TMP/helper.sh'"
check "a helper process of the client is alice too ($(crew_of "$TMP/helper.json"))" [ "$(crew_of "$TMP/helper.json")" = alice ]
# a second client resumes the session while the first runs it
client_start B
client_run B "$(hook gemini g-1 "$WA" SessionStart ',"source":"resume"') > '$TMP/b.json'; cd '$WA' && '$AIRSPACE_BIN' lock b.txt > '$TMP/b-lock.out' 2>&1"
TWIN=$(crew_of "$TMP/b.json")
check "the second client is an agent of its own ($TWIN)" sh -c "[ -n '$TWIN' ] && [ '$TWIN' != alice ]"
check "... and is told so ($(ctx "$TMP/b.json" | tail -n 3))" sh -c \
    "jq -r '.hookSpecificOutput.additionalContext' '$TMP/b.json' | grep -q \"this session runs in another client process too, as 'alice'\""
check "its shell locks as itself ($(cat "$TMP/b-lock.out"))" [ "$(holder b.txt)" = "$TWIN" ]
check "alice still holds a.txt" [ "$(holder a.txt)" = alice ]
client_run B "$(hook gemini g-1 "$WA" SessionEnd ',"reason":"exit"')"
client_stop B
check "the second client's end exits its agent ($(status_of "$TWIN"))" [ "$(status_of "$TWIN")" = exited ]
check "... and leaves alice active ($(status_of alice))" [ "$(status_of alice)" = active ]
check "... holding a.txt ($(holder a.txt))" [ "$(holder a.txt)" = alice ]
check "... with her records (a-alice, s-, p-)" sh -c \
    "[ -e '$SD/a-alice' ] && grep -q '^alice ' '$SD/p-$(cat "$TMP/A.pid")' && grep -lq '^alice ' '$SD'/s-gemini-*"
client_run A "cd '$WA' && '$AIRSPACE_BIN' lock c.txt > '$TMP/a-lock2.out' 2>&1"
check "the first client's shell still locks as alice ($(cat "$TMP/a-lock2.out"))" [ "$(holder c.txt)" = alice ]
client_run A "$(hook gemini g-1 "$WA" SessionEnd ',"reason":"exit"')"
client_stop A
check "the first client's end exits alice" [ "$(status_of alice)" = exited ]

# ---- a zombie client is gone ----
# P runs the client Z and does not reap it until told (a parent, or an
# init, that reaps late); Z starts session z-1 in carol's worktree and
# locks z.txt, then is killed
mkfifo "$TMP/reap" "$TMP/reaped"
python3 -c 'import signal, subprocess, sys
signal.alarm(600)
z = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time\nsubprocess.call([\"sh\", \"-c\", sys.argv[1]])\ntime.sleep(600)", sys.argv[1]])
open(sys.argv[2], "w").write(str(z.pid))
open(sys.argv[3]).read()
z.wait()
open(sys.argv[4], "w").close()' \
    "$(hook claude-code z-1 "$WC" SessionStart ',"source":"startup"') > '$TMP/z.json'; cd '$WC' && '$AIRSPACE_BIN' lock z.txt > /dev/null 2>&1; touch '$TMP/z.up'" \
    "$TMP/z.pid" "$TMP/reap" "$TMP/reaped" &
PARENT=$!
n=0
while [ ! -e "$TMP/z.up" ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
ZPID=$(cat "$TMP/z.pid")
check "the first client is carol ($(crew_of "$TMP/z.json"))" [ "$(crew_of "$TMP/z.json")" = carol ]
kill -9 "$ZPID"
n=0
while [ "$(cut -d' ' -f3 "/proc/$ZPID/stat" 2> /dev/null)" != Z ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
check "the killed client is a zombie" [ "$(cut -d' ' -f3 "/proc/$ZPID/stat" 2> /dev/null)" = Z ]
# the session resumed in a new client: carol again, its records its own
client_start Y
client_run Y "$(hook claude-code z-1 "$WC" SessionStart ',"source":"resume"') > '$TMP/y.json'; cd '$WC' && '$AIRSPACE_BIN' lock y.txt > /dev/null 2>&1"
check "the resumed session is carol ($(crew_of "$TMP/y.json"))" [ "$(crew_of "$TMP/y.json")" = carol ]
check "... its name claimed for the new process ($(cat "$SD/a-carol"))" \
    [ "$(cut -d' ' -f1 "$SD/a-carol")" = "$(cat "$TMP/Y.pid")" ]
check "... its locks carol's" sh -c "[ '$(holder y.txt)' = carol ] && [ '$(holder z.txt)' = carol ]"
# the zombie is reaped; a new session in carol's worktree is not carol
printf x > "$TMP/reap"
cat "$TMP/reaped"
wait $PARENT 2> /dev/null || true
client_start E
client_run E "$(hook claude-code z-2 "$WC" SessionStart ',"source":"startup"') > '$TMP/e.json'"
E=$(crew_of "$TMP/e.json")
check "a new session after the zombie went is not carol ($E)" sh -c "[ -n '$E' ] && [ '$E' != carol ]"
client_run E "$(hook claude-code z-2 "$WC" SessionEnd ',"reason":"exit"')"
client_stop E
check "its end leaves the resumed session's locks ($(holder y.txt), $(holder z.txt))" \
    sh -c "[ '$(holder y.txt)' = carol ] && [ '$(holder z.txt)' = carol ]"
check "... and carol active" [ "$(status_of carol)" = active ]
client_run Y "$(hook claude-code z-1 "$WC" SessionEnd ',"reason":"exit"')"
client_stop Y

# ---- a session that ends late in a process that runs another now ----
# main checkout: thread t-1, then t-2 in the same process; t-1 ends late
client_start T
T1=$(hook_agent codex t-1)
T2=$(hook_agent codex t-2)
client_run T "$(hook codex t-1 "$R" SessionStart ',"source":"startup"') > /dev/null; $(hook codex t-2 "$R" SessionStart ',"source":"startup"') > /dev/null"
client_run T "$(hook codex t-1 "$R" SessionEnd ',"reason":"other"') > /dev/null; '$AIRSPACE_BIN' msg alice 'from t-2' > '$TMP/t-msg.out' 2>&1"
check "the process's record still names the session it runs ($(cat "$SD/p-$(cat "$TMP/T.pid")" 2> /dev/null))" \
    grep -q "^$T2 " "$SD/p-$(cat "$TMP/T.pid")"
check "its shell acts as it ($(cat "$TMP/t-msg.out"))" sh -c \
    "curl -s --unix-socket '$SOCK' 'http://a/v1/agents/alice/inbox?peek=1' | jq -e '[.messages[] | select(.body == \"from t-2\") | .from] == [\"$T2\"]' > /dev/null"
check "the late end exited the session that ended ($(status_of "$T1"))" [ "$(status_of "$T1")" = exited ]
client_run T "$(hook codex t-2 "$R" SessionEnd ',"reason":"other"') > /dev/null"
client_stop T
# in dora's worktree both threads are dora (one process claims the name):
# the late end of the first exits nothing, removes nothing, even told twice
client_start U
client_run U "$(hook codex d-1 "$WD" SessionStart ',"source":"startup"') > '$TMP/d1.json'; $(hook codex d-2 "$WD" SessionStart ',"source":"startup"') > '$TMP/d2.json'; cd '$WD' && '$AIRSPACE_BIN' lock d.txt > /dev/null 2>&1"
check "both threads are dora" sh -c "[ '$(crew_of "$TMP/d1.json")' = dora ] && [ '$(crew_of "$TMP/d2.json")' = dora ]"
client_run U "$(hook codex d-1 "$WD" SessionEnd ',"reason":"other"') > /dev/null"
check "the first thread's late end leaves dora active ($(status_of dora))" [ "$(status_of dora)" = active ]
check "... holding d.txt ($(holder d.txt))" [ "$(holder d.txt)" = dora ]
check "... and her name claimed" [ -e "$SD/a-dora" ]
# the same end again (its records are gone): it records nothing, ends nothing
client_run U "$(hook codex d-1 "$WD" SessionEnd ',"reason":"other"') > /dev/null"
check "an end told twice leaves dora active ($(status_of dora))" [ "$(status_of dora)" = active ]
check "... holding d.txt ($(holder d.txt))" [ "$(holder d.txt)" = dora ]
check "... her name claimed, her process's record kept" sh -c \
    "[ -e '$SD/a-dora' ] && grep -q '^dora ' '$SD/p-$(cat "$TMP/U.pid")'"
client_run U "$(hook codex d-2 "$WD" SessionEnd ',"reason":"other"') > /dev/null"
client_stop U
check "the second thread's end exits dora" [ "$(status_of dora)" = exited ]
finish

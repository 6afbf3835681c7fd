# t40-hooks.sh - `airspace hook` fed hook JSON as the clients send it: two
# Claude Code sessions in two worktrees see each other, the one that steers
# a resolution is denied on the contested file while the holder is
# allowed, a lock held by another denies with the holder named, the end of
# a session releases its locks, Codex apply_patch paths are checked, paths
# are resolved from the hook's cwd and through symlinks, long crew updates
# and their messages are delivered whole, Gemini's BeforeAgent is answered,
# bad arguments exit 0, and a hook with no daemon (or a dead one's socket)
# allows within its deadline and starts one.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/net" "$R/src/app" "$R/docs"
cat > "$R/src/net/conn.h" <<'C'
int conn_open(int port);
C
cat > "$R/src/net/conn.c" <<'C'
#include "conn.h"

int
conn_open(int port)
{
    int fd = port;
    return fd;
}
C
cat > "$R/src/app/page.c" <<'C'
#include "../net/conn.h"

int
page_fetch(void)
{
    return conn_open(80);
}
C
echo "# notes" > "$R/docs/notes.md"
git -C "$R" add -A
git -C "$R" commit -qm base
git -C "$R" worktree add -q -b alice "$TMP/alice" main
git -C "$R" worktree add -q -b bob "$TMP/bob" main
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000

hook() { # hook CLIENT JSON -> the hook's stdout
    printf '%s' "$2" | "$AIRSPACE_BIN" hook "$1"
}
out=$(hook claude-code "{\"session_id\":\"aaaa1111-xx\",\"cwd\":\"$TMP/alice\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}")
check "SessionStart answers with context" sh -c "printf '%s' '$out' | jq -e '.hookSpecificOutput.hookEventName == \"SessionStart\" and (.hookSpecificOutput.additionalContext | test(\"crew update\"))' > /dev/null"
hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" > /dev/null
api GET /v1/agents
check "both sessions registered on their worktrees" jqt "$TMP/body" \
    "[.agents[] | select(.id == \"cc-303e3a03\" and .worktree == \"$TMP/alice\" and .client == \"claude-code\")] | length == 1"

# alice edits conn_open's body and says so
sed -i 's/    int fd = port;/    int fd = port + 1;/' "$TMP/alice/src/net/conn.c"
hook claude-code "{\"session_id\":\"aaaa1111-xx\",\"cwd\":\"$TMP/alice\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$TMP/alice/src/net/conn.c\",\"old_string\":\"    int fd = port;\",\"new_string\":\"    int fd = port + 1;\"},\"tool_response\":{}}" > /dev/null
out=$(hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"tune the connection\"}")
check "bob's crew update names alice's work" sh -c "printf '%s' '$out' | jq -e '.hookSpecificOutput.additionalContext | test(\"cc-303e3a03\")' > /dev/null"
# bob first changes the caller, two directories away: traffic, told as
# context before his next edit there
sed -i 's/    return conn_open(80);/    return conn_open(8080);/' "$TMP/bob/src/app/page.c"
n=0
until curl -s --unix-socket "$SOCK" 'http://a/v1/advisories?agent=cc-367f96c7' | jq -e '[.advisories[] | select(.level == "traffic")] | length == 1' > /dev/null || [ $n -gt 100 ]; do sleep 0.05; n=$((n + 1)); done
ctx=$(hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$TMP/bob/src/app/page.c\"}}")
traffic_ctx() { printf '%s' "$ctx" | jq -e '(.hookSpecificOutput | has("permissionDecision") | not) and (.hookSpecificOutput.additionalContext | test("traffic advisory with .cc-303e3a03. \\(risk [0-9.]+: dependency, symbol\\)"))' > /dev/null; }
check "the approaching session gets traffic context, and why ($ctx)" traffic_ctx
check "the advisory says why: the channels that make up its risk, most first" sh -c \
    "curl -s --unix-socket '$SOCK' 'http://a/v1/advisories?agent=cc-367f96c7' | jq -e '.advisories[0].why == [\"dependency\", \"symbol\"]' > /dev/null"
git -C "$TMP/bob" checkout -q -- src/app/page.c
# bob edits the same lines: resolution, alice holds
sed -i 's/    int fd = port;/    int fd = port * 2;/' "$TMP/bob/src/net/conn.c"
n=0
until curl -s --unix-socket "$SOCK" http://a/v1/advisories | jq -e '[.advisories[] | select(.level == "resolution")] | length == 1' > /dev/null || [ $n -gt 100 ]; do sleep 0.05; n=$((n + 1)); done
pre() { # pre SESSION CWD FILE -> the decision
    hook claude-code "{\"session_id\":\"$1\",\"cwd\":\"$2\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$3\",\"old_string\":\"a\",\"new_string\":\"b\"}}" |
        jq -rs '(.[0].hookSpecificOutput.permissionDecision // "none") + "|" + (.[0].hookSpecificOutput.permissionDecisionReason // "")'
}
d=$(pre bbbb2222-y "$TMP/bob" "$TMP/bob/src/net/conn.c")
check "the steering agent is denied on the contested file ($d)" sh -c "case '$d' in deny*) true;; *) false;; esac"
check "the denial names the holder and the options" sh -c "printf '%s' '$d' | grep -q 'cc-303e3a03' && printf '%s' '$d' | grep -q 'options'"
d=$(pre aaaa1111-xx "$TMP/alice" "$TMP/alice/src/net/conn.c")
check "the holder is allowed ($d)" sh -c "case '$d' in none*) true;; *) false;; esac"
ctx=$(hook claude-code "{\"session_id\":\"aaaa1111-xx\",\"cwd\":\"$TMP/alice\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$TMP/alice/src/net/conn.c\"}}" | jq -rs '.[0].hookSpecificOutput.additionalContext // ""')
# (overlap is just under 1 once the edit has aged a millisecond: either first)
has_ctx() { printf '%s' "$ctx" | grep -Eq "resolution advisory with 'cc-367f96c7' \(risk 1.00: (merge, overlap|overlap, merge)"; }
check "the holder's allow carries the advisory as context, and why" has_ctx

# the crew update on a prompt is sent only when it changed
p1=$(hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"again\"}" | jq -rs '.[0].hookSpecificOutput.additionalContext // ""')
sleep 2.1
hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"and again\"}" > /dev/null
sleep 2.1
p2=$(hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"once more\"}" | jq -rs '.[0].hookSpecificOutput.additionalContext // ""')
check "an unchanged crew update is not repeated ($p2)" [ -z "$p2" ]
p3=$(hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"PreCompact\",\"trigger\":\"auto\"}")
check "PreCompact is answered with nothing (it takes no context) ($p3)" [ -z "$p3" ]
p3=$(hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"SessionStart\",\"source\":\"compact\"}" | jq -rs '.[0].hookSpecificOutput.additionalContext // ""')
check "after compaction the crew update is sent again" sh -c "printf '%s' '$p3' | grep -q 'crew update'"

# a message longer than the old 4 KiB update, in multi-byte characters, is
# delivered whole and only then marked read
long=$(printf 'é%.0s' $(seq 3000))
api POST /v1/messages "{\"from\":\"cc-303e3a03\",\"to\":\"cc-367f96c7\",\"body\":\"start $long end\"}"
p4=$(hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"what now\"}" | jq -rs '.[0].hookSpecificOutput.additionalContext // ""')
check "a long message is delivered whole (${#p4} characters)" sh -c "printf '%s' \"\$1\" | grep -q 'message from cc-303e3a03: start $long end'" x "$p4"
api GET '/v1/agents/cc-367f96c7/inbox?peek=1'
check "a delivered message is marked read" jqt "$TMP/body" '.messages | length == 0'
# a message that arrives within 2 s of the last update is still delivered
hook claude-code "{\"session_id\":\"ffff6666\",\"cwd\":\"$R\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"hello\"}" > /dev/null
api POST /v1/messages '{"from":"cc-303e3a03","to":"cc-124270c5","body":"ping quickly"}'
p5=$(hook claude-code "{\"session_id\":\"ffff6666\",\"cwd\":\"$R\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"hello again\"}" | jq -rs '.[0].hookSpecificOutput.additionalContext // ""')
check "a message within the debounce is delivered ($p5)" sh -c "printf '%s' \"\$1\" | grep -q 'message from cc-303e3a03: ping quickly'" x "$p5"
# more lines than AIRSPACE_CREW_LINES: messages are never cut off
for k in 1 2 3; do api POST /v1/messages "{\"from\":\"cc-303e3a03\",\"to\":\"cc-124270c5\",\"body\":\"note $k\"}"; done
p6=$(printf '%s' "{\"session_id\":\"ffff6666\",\"cwd\":\"$R\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"and\"}" |
    AIRSPACE_CREW_LINES=2 "$AIRSPACE_BIN" hook claude-code | jq -rs '.[0].hookSpecificOutput.additionalContext // ""')
check "messages beyond the line cap are delivered ($p6)" sh -c "printf '%s' \"\$1\" | grep -q 'note 3'" x "$p6"

# Gemini: BeforeAgent is its UserPromptSubmit (heartbeat, topics, crew)
g=$(hook gemini "{\"session_id\":\"eeee5555\",\"cwd\":\"$R\",\"hook_event_name\":\"BeforeAgent\",\"prompt\":\"hello gemini\"}")
check "gemini BeforeAgent answers with the crew update ($g)" sh -c "printf '%s' \"\$1\" | jq -e '.hookSpecificOutput.hookEventName == \"BeforeAgent\" and (.hookSpecificOutput.additionalContext | test(\"crew update for gemini-69f701cf\"))' > /dev/null" x "$g"
api GET /v1/agents
check "gemini BeforeAgent registers an unknown session" jqt "$TMP/body" \
    '[.agents[] | select(.id == "gemini-69f701cf" and .client == "gemini")] | length == 1'

# the lean airspace-hook binary gives the same answers
HOOKBIN="$(dirname "$AIRSPACE_BIN")/airspace-hook"
d=$(printf '%s' "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$TMP/bob/src/net/conn.c\"}}" |
    "$HOOKBIN" claude-code | jq -r .hookSpecificOutput.permissionDecision)
check "airspace-hook denies the steering agent too ($d)" [ "$d" = deny ]

# a lock held by alice denies bob, naming her and the expiry
api POST /v1/locks '{"agent":"cc-303e3a03","pattern":"docs/notes.md","reason":"rewriting"}'
d=$(pre bbbb2222-y "$TMP/bob" "$TMP/bob/docs/notes.md")
check "a lock held by another denies ($d)" sh -c "case '$d' in deny*cc-303e3a03*expires*) true;; *) false;; esac"
# a daemon busy for 1.2 s (stopped, as while it reads a large worktree):
# the lock check waits for it (AIRSPACE_HOOK_LOCK_TIMEOUT_MS, 3 s) and denies
kill -STOP "$DPID"
(sleep 1.2; kill -CONT "$DPID") &
d=$(pre bbbb2222-y "$TMP/bob" "$TMP/bob/docs/notes.md")
wait $! 2> /dev/null || true
check "a daemon busy for 1.2 s: the lock still denies ($d)" sh -c "case '$d' in deny*cc-303e3a03*) true;; *) false;; esac"
# a Write of a large generated file (6 MiB of content) is checked too
big_write() {
    { printf '{"session_id":"bbbb2222-y","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"%s","content":"' "$TMP/bob" "$TMP/bob/docs/notes.md"
      head -c 6291456 /dev/zero | tr '\0' 'x'
      printf '"}}'
    } | "$AIRSPACE_BIN" hook claude-code | jq -rs '.[0].hookSpecificOutput.permissionDecision // "none"'
}
check "a 6 MiB Write of the locked file: deny" [ "$(big_write)" = deny ]
# a shell command that obviously writes the locked file is denied too
bash_pre() { # bash_pre COMMAND -> decision
    hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"$1\"}}" |
        jq -rs '.[0].hookSpecificOutput.permissionDecision // "none"'
}
check "Bash sed -i on the locked file: deny" [ "$(bash_pre "sed -i 's/a/b/' docs/notes.md")" = deny ]
check "Bash redirect into it: deny" [ "$(bash_pre "echo hi >> docs/notes.md")" = deny ]
check "Bash reading it: not denied" [ "$(bash_pre "cat docs/notes.md | wc -l")" = none ]
check "Bash writing elsewhere: not denied" [ "$(bash_pre "echo hi > /tmp/elsewhere.txt; ls")" = none ]
# relative paths are the hook's cwd's, not the worktree root's
bash_in() { # bash_in CWD COMMAND -> decision
    hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$1\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"$2\"}}" |
        jq -rs '.[0].hookSpecificOutput.permissionDecision // "none"'
}
check "Bash rm in the locked file's directory: deny" [ "$(bash_in "$TMP/bob/docs" "rm notes.md")" = deny ]
check "Bash redirect in the locked file's directory: deny" [ "$(bash_in "$TMP/bob/docs" "echo hi > notes.md")" = deny ]
check "Bash rm ../docs/notes.md from a sibling: deny" [ "$(bash_in "$TMP/bob/src" "rm ../docs/notes.md")" = deny ]
check "Bash rm of a same-named file elsewhere: not denied" [ "$(bash_in "$TMP/bob/src" "rm notes.md")" = none ]
# a file path, or a cwd, through a symlinked directory is the file it names
ln -s "$TMP/bob" "$TMP/link"
d=$(pre bbbb2222-y "$TMP/bob" "$TMP/link/docs/notes.md")
check "an Edit through a symlinked directory: deny ($d)" sh -c "case '$d' in deny*cc-303e3a03*) true;; *) false;; esac"
d=$(pre bbbb2222-y "$TMP/link/docs" "notes.md")
check "a relative file path from a symlinked cwd: deny ($d)" sh -c "case '$d' in deny*) true;; *) false;; esac"
check "Bash from a symlinked cwd: deny" [ "$(bash_in "$TMP/link/docs" "rm -f notes.md")" = deny ]
# Codex: apply_patch touching the locked file is denied too
out=$(hook codex "{\"session_id\":\"cccc3333\",\"cwd\":\"$R\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"apply_patch\",\"tool_input\":{\"input\":\"*** Begin Patch\n*** Update File: docs/notes.md\n@@\n-# notes\n+# Notes\n*** End Patch\n\"}}")
check "codex apply_patch on a locked file is denied" sh -c "printf '%s' '$out' | jq -e '.hookSpecificOutput.permissionDecision == \"deny\"' > /dev/null"
out=$(hook codex "{\"session_id\":\"cccc3333\",\"cwd\":\"$R/docs\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"apply_patch\",\"tool_input\":{\"input\":\"*** Begin Patch\n*** Delete File: notes.md\n*** End Patch\n\"}}")
check "codex apply_patch from the file's directory is denied" sh -c "printf '%s' '$out' | jq -e '.hookSpecificOutput.permissionDecision == \"deny\"' > /dev/null"
# a cd inside the command moves the directory its relative paths are
# taken from: a locked sub/x.c is caught, a root x.c lock is not hit
mkdir -p "$TMP/bob/sub"
api POST /v1/locks '{"agent":"cc-303e3a03","pattern":"sub/x.c","reason":"cd"}'
check "Bash cd sub && rm x.c on a locked sub/x.c: deny" [ "$(bash_pre "cd sub && rm x.c")" = deny ]
check "Bash cd sub; newline, then rm x.c: deny" [ "$(bash_pre "cd sub\nrm -f x.c")" = deny ]
check "Bash (cd sub && rm x.c): deny" [ "$(bash_pre "(cd sub && rm x.c)")" = deny ]
check "Bash pushd sub; echo > x.c: deny" [ "$(bash_pre "pushd sub > /dev/null; echo > x.c; popd")" = deny ]
check "Bash cd docs; sed -i on notes.md: deny" [ "$(bash_pre "cd docs; sed -i 's/a/b/' notes.md")" = deny ]
check "Bash cd to the worktree's absolute sub: deny" [ "$(bash_pre "cd $TMP/bob/sub && rm x.c")" = deny ]
check "Bash rm x.c at the root, sub/x.c locked: not denied" [ "$(bash_pre "rm x.c")" = none ]
check "Bash a subshell's cd does not leak: not denied" [ "$(bash_pre "(cd sub) && rm x.c")" = none ]
api POST /v1/locks/release "{\"agent\":\"cc-303e3a03\",\"pattern\":\"sub/x.c\",\"token\":$(lock_token cc-303e3a03 sub/x.c)}"
api POST /v1/locks '{"agent":"cc-303e3a03","pattern":"x.c","reason":"cd"}'
check "Bash cd sub && rm x.c, only the root x.c locked: not denied" [ "$(bash_pre "cd sub && rm x.c")" = none ]
check "Bash rm x.c, the root x.c locked: deny" [ "$(bash_pre "rm x.c")" = deny ]
check "Bash cd sub && rm ../x.c: deny" [ "$(bash_pre "cd sub && rm ../x.c")" = deny ]
check "Bash cd sub && cd .. && rm x.c: deny" [ "$(bash_pre "cd sub && cd .. && rm x.c")" = deny ]
# a cd it cannot follow: relative paths after it are not checked, and the
# answer says so
unk=$(hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"cd \$D && rm x.c\"}}" |
    jq -rs '(.[0].hookSpecificOutput.permissionDecision // "none") + "|" + (.[0].hookSpecificOutput.additionalContext // "")')
check "Bash cd \$D && rm x.c: not denied, with a note ($unk)" sh -c "case \"\$1\" in none*'not checked'*) true;; *) false;; esac" x "$unk"
check "Bash cd \$D && rm of the absolute locked path: deny" [ "$(bash_pre "cd \$D && rm $TMP/bob/x.c")" = deny ]
# git overwrites files too: checkout's paths after "--", restore's; what
# only reads, or writes the index or a branch, is never denied
check "Bash git checkout -- x.c: deny" [ "$(bash_pre "git checkout -- x.c")" = deny ]
check "Bash git checkout main -- x.c: deny" [ "$(bash_pre "git checkout main -- x.c")" = deny ]
check "Bash cd sub && git -C .. restore x.c: deny" [ "$(bash_pre "cd sub && git -C .. restore x.c")" = deny ]
check "Bash git restore --source=HEAD x.c: deny" [ "$(bash_pre "git restore --source=HEAD x.c")" = deny ]
for c in "git restore --staged x.c" "git diff -- x.c" "git log -p -- x.c" \
    "git checkout x.c" "git checkout -b topic" "git status" "git show HEAD:x.c" \
    "git restore sub/x.c"; do
    check "Bash $c: not denied" [ "$(bash_pre "$c")" = none ]
done
api POST /v1/locks/release "{\"agent\":\"cc-303e3a03\",\"pattern\":\"x.c\",\"token\":$(lock_token cc-303e3a03 x.c)}"
# alice's session ends: her locks go
hook claude-code "{\"session_id\":\"aaaa1111-xx\",\"cwd\":\"$TMP/alice\",\"hook_event_name\":\"SessionEnd\",\"reason\":\"exit\"}" > /dev/null
d=$(pre bbbb2222-y "$TMP/bob" "$TMP/bob/docs/notes.md")
check "after SessionEnd the lock is gone ($d)" sh -c "case '$d' in none*) true;; *) false;; esac"
# prompt topics: two sessions deepening the same subject are told
for q in "rework the billing invoices" "billing invoices rounding" "billing invoices currency"; do
    hook claude-code "{\"session_id\":\"dddd4444\",\"cwd\":\"$R\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"$q\"}" > /dev/null
done
for q in "billing exports" "billing reports" ; do
    hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"$q\"}" > /dev/null
done
ctx=$(hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"billing totals\"}" | jq -rs '.[0].hookSpecificOutput.additionalContext // ""')
conv() { printf '%s' "$ctx" | grep -q "converging with 'cc-8b0eabee' on 'billing'"; }
check "converging prompts are told ($ctx)" conv
api GET '/v1/advisories?all=1&agent=cc-367f96c7'
check "the topic channel feeds the pair's risk" jqt "$TMP/body" '[.advisories[] | select(.channels.topic == 1)] | length >= 1'
# Claude Code's background-task notification comes as a prompt: its ids
# and boilerplate are not the user's topics (every session with subagents
# would converge on "notification", "tool", "output")
note='<tools-used-before-summary>Edit</tools-used-before-summary>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\nThis is an automated background-task event, NOT a message from the user.\n\n<task-notification>\n<task-id>a862d5c8ec3de4226</task-id>\n<tool-use-id>toolu_0_udz9dnjn</tool-use-id>\n<output-file>/tmp/tasks/a862d5c8ec3de4226.output</output-file>\n<status>completed</status>\n<summary>Agent \"edit files\" finished</summary>\n<result>sub done</result>\n</task-notification>'
topics() { as api GET "/v1/ledger?type=prompt.topics&limit=100000" | jq -c "[.events[] | select(.agent == \"$1\") | .data.topics]"; }
before=$(topics cc-367f96c7)
hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"$note\"}" > /dev/null
check "a task notification gives no prompt topics ($(topics cc-367f96c7))" [ "$(topics cc-367f96c7)" = "$before" ]
hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"billing ledger\"}" > /dev/null
check "the user's next prompt does ($(topics cc-367f96c7))" sh -c "[ '$(topics cc-367f96c7)' != '$before' ]"

# the crew update shows 8 of the others' locks and says how many more,
# however many of its own come first
ME=$(hook_agent cc gggg7777)
hook claude-code "{\"session_id\":\"gggg7777\",\"cwd\":\"$R\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" > /dev/null
api POST /v1/agents '{"id":"zed","client":"codex"}'
for p in a1 a2 a3; do api POST /v1/locks "{\"agent\":\"$ME\",\"pattern\":\"mine/$p\"}"; done
for p in b1 b2 b3 b4 b5 b6 b7 b8 b9 b10; do api POST /v1/locks "{\"agent\":\"zed\",\"pattern\":\"zed/$p\"}"; done
ctx=$(printf '%s' "{\"session_id\":\"gggg7777\",\"cwd\":\"$R\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" |
    AIRSPACE_CREW_LINES=100 "$AIRSPACE_BIN" hook claude-code | jq -r '.hookSpecificOutput.additionalContext')
n=$(printf '%s\n' "$ctx" | grep -c '^- zed holds zed/' || true)
check "8 of the others' locks shown ($n)" [ "$n" = 8 ]
check "and how many more ($ctx)" sh -c "printf '%s' \"\$1\" | grep -q '^- and 2 more locks held by others'" x "$ctx"
for p in a1 a2 a3; do api POST /v1/locks/release "{\"agent\":\"$ME\",\"pattern\":\"mine/$p\",\"token\":$(lock_token "$ME" "mine/$p")}"; done
for p in b1 b2 b3 b4 b5 b6 b7 b8 b9 b10; do api POST /v1/locks/release "{\"agent\":\"zed\",\"pattern\":\"zed/$p\",\"token\":$(lock_token zed "zed/$p")}"; done

# malformed input: exit 0, nothing the client would act on, a log line
rc=0
out=$(printf 'not json' | "$AIRSPACE_BIN" hook claude-code) || rc=$?
check "malformed input: exit 0 ($rc)" [ "$rc" = 0 ]
check "malformed input: nothing on stdout ($out)" [ -z "$out" ]
check "malformed input: one line in the hook log" grep -q 'could not read the hook input' "$R/.git/airspace/hook.log"

# bad arguments: usage on stderr, nothing on stdout, exit 0 (2 would block)
for args in claude "" "claude-code extra"; do
    rc=0
    # shellcheck disable=SC2086 # split: "" is no argument, the last two
    out=$(printf '{}' | "$HOOKBIN" $args 2> "$TMP/err") || rc=$?
    check "airspace-hook '$args': exit 0 ($rc)" [ "$rc" = 0 ]
    check "airspace-hook '$args': usage on stderr, nothing on stdout" sh -c "[ -z '$out' ] && grep -q usage '$TMP/err'"
done
rc=0; printf '{}' | "$AIRSPACE_BIN" hook claude > /dev/null 2>&1 || rc=$?
check "airspace hook claude: exit 0 ($rc)" [ "$rc" = 0 ]

# no daemon: one is started, and the edit allowed within the lock check's
# deadline (nobody holds the file)
"$AIRSPACE_BIN" stop > /dev/null
wait $DPID 2> /dev/null || true
t0=$(date +%s%3N)
d=$(pre bbbb2222-y "$TMP/bob" "$TMP/bob/docs/notes.md")
t1=$(date +%s%3N)
check "daemon down: allowed ($d)" sh -c "case '$d' in none*) true;; *) false;; esac"
check "daemon down: answered within 4 s ($((t1 - t0)) ms)" [ $((t1 - t0)) -lt 4000 ]
n=0
until curl -sf --unix-socket "$SOCK" http://a/v1/status > /dev/null 2>&1 || [ $n -gt 200 ]; do sleep 0.05; n=$((n + 1)); done
check "the hook started the daemon" curl -sf --unix-socket "$SOCK" http://a/v1/status -o /dev/null
# a crashed daemon leaves its socket behind: the hook starts a new one
crash() {
    curl -s --unix-socket "$SOCK" http://a/v1/status -o "$TMP/body"
    kill -9 "$(jq -r .pid "$TMP/body")"
    n=0
    while curl -sf --unix-socket "$SOCK" http://a/v1/status > /dev/null 2>&1 && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
    check "the crashed daemon's socket is still there" [ -S "$SOCK" ]
}
crash
ctx=$(hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"go on\"}" | jq -rs '.[0].hookSpecificOutput.additionalContext // ""')
check "daemon crashed: the note says it is being started ($ctx)" sh -c "printf '%s' '$ctx' | grep -q 'not running; starting it'"
n=0
until curl -sf --unix-socket "$SOCK" http://a/v1/status > /dev/null 2>&1 || [ $n -gt 200 ]; do sleep 0.05; n=$((n + 1)); done
check "the hook restarted the crashed daemon" curl -sf --unix-socket "$SOCK" http://a/v1/status -o /dev/null
# a write's PreToolUse waits for the daemon it starts and is checked (t112)
crash
ctx=$(hook claude-code "{\"session_id\":\"bbbb2222-y\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$TMP/bob/docs/notes.md\"}}" | jq -rs '.[0].hookSpecificOutput.additionalContext // ""')
check "daemon crashed: an edit is checked by the daemon it starts ($ctx)" sh -c "! printf '%s' '$ctx' | grep -q 'not checked'"
check "which serves" curl -sf --unix-socket "$SOCK" http://a/v1/status -o /dev/null
"$AIRSPACE_BIN" stop > /dev/null || true
finish

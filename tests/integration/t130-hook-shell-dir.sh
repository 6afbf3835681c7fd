# t130-hook-shell-dir.sh - a shell tool call that names the directory its
# command runs in is read there: Gemini's run_shell_command takes
# tool_input.dir_path, relative to the hook's cwd (the project's root,
# as the real client sends it: t129). What it throws away (a discard), what
# it writes (the lock check) and what it wrote (the edit reported after)
# are that directory's files, not the root's. Hook JSON in the shape of
# tests/clients/fixtures/gemini; t129 runs the real client.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src" "$R/docs"
for f in a b c; do printf 'one\ntwo\nthree\n' > "$R/src/$f.txt"; done
printf 'doc\n' > "$R/docs/x.md"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
hook() { printf '%s' "$2" | "$AIRSPACE_BIN" hook "$1"; }
S1=11111111 S2=22222222
hook claude-code "{\"session_id\":\"$S1\",\"cwd\":\"$R\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" > /dev/null
hook gemini "{\"session_id\":\"$S2\",\"cwd\":\"$R\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" > /dev/null
A1=$(hook_agent cc "$S1")
# session one changes line 2 of src/a.txt through its Edit tool
hook claude-code "{\"session_id\":\"$S1\",\"cwd\":\"$R\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$R/src/a.txt\",\"old_string\":\"two\",\"new_string\":\"TWO\"}}" > /dev/null
sed -i '2s/.*/TWO/' src/a.txt
hook claude-code "{\"session_id\":\"$S1\",\"cwd\":\"$R\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$R/src/a.txt\",\"old_string\":\"two\",\"new_string\":\"TWO\"},\"tool_response\":{}}" > /dev/null
has_a() {
    curl -s --unix-socket "$SOCK" 'http://a/v1/agents?files=1' |
        jq -e --arg a "$A1" 'any(.agents[] | select(.id == $a) | .files[]?; .path == "src/a.txt")' > /dev/null
}
n=0
while ! has_a && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
check "session one has src/a.txt changed ($A1)" has_a

# gemini EVENT COMMAND DIR_PATH: session two's run_shell_command; prints
# the decision and its reason
gemini() {
    hook gemini "$(jq -nc --arg s $S2 --arg e "$1" --arg c "$2" --arg d "$3" --arg r "$R" \
        '{session_id: $s, cwd: $r, hook_event_name: $e, timestamp: "2026-01-01T10:00:00.000Z",
          tool_name: "run_shell_command", tool_input: {command: $c, description: "x", dir_path: $d}}
         + if $e == "AfterTool" then {tool_response: {llmContent: "", returnDisplay: ""}} else {} end')" |
        jq -rs '(.[0].decision // "none") + "|" + (.[0].reason // "")'
}
denies() { # denies DECISION WORD...: denied, naming each word
    d=$1
    shift
    case $d in deny*) ;; *) echo "  not denied: $d" >&2; return 1 ;; esac
    for w; do
        case $d in *"$w"*) ;; *) echo "  no '$w' in: $d" >&2; return 1 ;; esac
    done
}
allows() { case $1 in deny*) echo "  $1" >&2; return 1 ;; esac; }

check "git checkout -- a.txt in dir_path src: denied, naming session one and src/a.txt" \
    denies "$(gemini BeforeTool "git checkout -- a.txt" src)" "would throw away" "$A1" "src/a.txt"
check "git checkout . in dir_path src: denied" denies "$(gemini BeforeTool "git checkout ." src)" "would throw away" "$A1"
check "git checkout . in dir_path docs: nobody else's changes there" allows "$(gemini BeforeTool "git checkout ." docs)"
check "an absolute dir_path: git restore a.txt in $R/src denied" \
    denies "$(gemini BeforeTool "git restore a.txt" "$R/src")" "would throw away" "$A1"

# a write in dir_path src of a file another agent holds
as lock --agent "$A1" --reason "mine" src/b.txt > /dev/null
check "echo >> b.txt in dir_path src: denied, session one holds src/b.txt" \
    denies "$(gemini BeforeTool "echo x >> b.txt" src)" "$A1" "src/b.txt"
check "echo >> b.txt in dir_path docs: nobody holds docs/b.txt" allows "$(gemini BeforeTool "echo x >> b.txt" docs)"

# the edit reported afterwards is the directory's file
gemini BeforeTool "echo more >> c.txt" src > /dev/null
echo more >> src/c.txt
gemini AfterTool "echo more >> c.txt" src > /dev/null
as log --json --limit 1000 > "$TMP/events.json"
check "the shell write in dir_path src is reported as src/c.txt ($(jq -c '[.events[] | select(.type == "workset.edit") | .data.path]' "$TMP/events.json"))" \
    jqt "$TMP/events.json" '[.events[] | select(.type == "workset.edit") | .data.path] | index("src/c.txt") != null and index("c.txt") == null'
check "nothing was thrown away" sh -c 'grep -qx TWO src/a.txt'
finish

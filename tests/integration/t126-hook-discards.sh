# t126-hook-discards.sh - a git command that throws away uncommitted
# changes (`git stash`, `git checkout .`, `git reset --hard`, `git clean
# -f`, `git checkout -- PATH`, ...) is denied when the changes it would
# throw away are another session's, or the person's, in the working tree
# they share; it goes through when they are the session's own, when git
# shows none of that kind, when nobody else changed anything under its
# paths, and in a worktree of the session's own. Hook JSON in the shape
# t40 and t60 check against the real clients; t127 runs the real client.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src" "$R/docs"
for f in a b c h; do printf 'one\ntwo\nthree\n' > "$R/src/$f.txt"; done
printf 'doc\n' > "$R/docs/x.md"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
hook() { printf '%s' "$2" | "$AIRSPACE_BIN" hook "$1"; }
S1=11111111 S2=22222222
for s in $S1 $S2; do
    hook claude-code "{\"session_id\":\"$s\",\"cwd\":\"$R\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" > /dev/null
done
A1=$(hook_agent cc "$S1")
A2=$(hook_agent cc "$S2")
# edit SESSION FILE: the session changes line 2 through its Edit tool
edit() {
    hook claude-code "{\"session_id\":\"$1\",\"cwd\":\"$R\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$R/$2\",\"old_string\":\"two\",\"new_string\":\"TWO $1\"}}" > /dev/null
    sed -i "2s/.*/TWO $1/" "$2"
    hook claude-code "{\"session_id\":\"$1\",\"cwd\":\"$R\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$R/$2\",\"old_string\":\"two\",\"new_string\":\"TWO $1\"},\"tool_response\":{}}" > /dev/null
}
edit $S1 src/a.txt
edit $S2 src/c.txt
sed -i '3s/.*/typed by the person/' src/h.txt
# owners: who has each changed file, as the daemon sees it
owners() {
    curl -s --unix-socket "$SOCK" 'http://a/v1/agents?files=1' |
        jq -c '[.agents[] | select(.files | length > 0) | {(.kind): [.files[].path]}] | add'
}
n=0
while ! owners | grep -q human && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
HUMAN=$(curl -s --unix-socket "$SOCK" 'http://a/v1/agents' | jq -r '.agents[] | select(.kind == "human") | .id')
check "the person's change is theirs ($HUMAN: $(owners))" [ -n "$HUMAN" ]

# bash SESSION COMMAND [CWD]: the decision and its reason
bash_pre() {
    hook claude-code "$(jq -nc --arg s "$1" --arg c "$2" --arg d "${3:-$R}" \
        '{session_id: $s, cwd: $d, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {command: $c}}')" |
        jq -rs '(.[0].hookSpecificOutput.permissionDecision // "none") + "|" + (.[0].hookSpecificOutput.permissionDecisionReason // "")'
}
denies() { # denies DECISION WORD...: denied, naming each word
    d=$1
    shift
    case $d in deny*) ;; *) return 1 ;; esac
    for w; do
        case $d in *"$w"*) ;; *) echo "  no '$w' in: $d" >&2; return 1 ;; esac
    done
}
allows() { case $1 in deny*) echo "  $1" >&2; return 1 ;; esac; }

d=$(bash_pre $S2 "git stash")
check "git stash: denied, naming the session and its file, the person and theirs" \
    denies "$d" "$A1" src/a.txt "$HUMAN" src/h.txt "git stash"
check "... and not the session's own file" sh -c 'case "$1" in *src/c.txt*) false;; esac' x "$d"
check "git checkout . from src/: denied" denies "$(bash_pre $S2 "git checkout ." "$R/src")" "$A1" src/a.txt
check "git reset --hard: denied" denies "$(bash_pre $S2 "git add -A && git reset --hard HEAD")" "$A1"
check "git checkout -- src/a.txt: denied" denies "$(bash_pre $S2 "git checkout -- src/a.txt")" "$A1" src/a.txt
check "cd src && git restore h.txt: denied" denies "$(bash_pre $S2 "cd src && git restore h.txt")" "$HUMAN" src/h.txt
check "git checkout src/a.txt (no --): denied" denies "$(bash_pre $S2 "git checkout src/a.txt")" "$A1"
check "git stash -- src/h.txt: denied for the person alone" denies "$(bash_pre $S2 "git stash push -- src/h.txt")" "$HUMAN"
# what goes through
check "its own file: git checkout -- src/c.txt" allows "$(bash_pre $S2 "git checkout -- src/c.txt")"
check "its own file: git restore src/c.txt" allows "$(bash_pre $S2 "git restore src/c.txt")"
check "nobody else's changes under docs/: git checkout -- docs" allows "$(bash_pre $S2 "git checkout -- docs")"
check "git stash list, git stash show" allows "$(bash_pre $S2 "git stash list; git stash show")"
check "a branch name is no path: git checkout main" allows "$(bash_pre $S2 "git checkout main")"
check "a directory's name is: git checkout src" denies "$(bash_pre $S2 "git checkout src")" "$A1"
git branch src
check "unless a branch has it: git checkout src switches (loose ref)" allows "$(bash_pre $S2 "git checkout src")"
git pack-refs --all
check "... (packed ref)" allows "$(bash_pre $S2 "git checkout src")"
check "... but its paths after it are paths" denies "$(bash_pre $S2 "git checkout src src/a.txt")" "$A1"
git branch -q -D src
check "git clean -fd: nobody has an untracked file" allows "$(bash_pre $S2 "git clean -fd")"
check "git clean -n: a dry run" allows "$(bash_pre $S2 "git clean -nd")"
check "the words in a message are no command" allows "$(bash_pre $S2 "git commit -m 'git stash'")"

# a new file of session one: git clean would delete it
hook claude-code "{\"session_id\":\"$S1\",\"cwd\":\"$R\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$R/src/new.txt\",\"content\":\"new\\n\"}}" > /dev/null
printf 'new\n' > src/new.txt
hook claude-code "{\"session_id\":\"$S1\",\"cwd\":\"$R\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$R/src/new.txt\",\"content\":\"new\\n\"},\"tool_response\":{}}" > /dev/null
n=0
while ! owners | grep -q src/new.txt && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
d=$(bash_pre $S2 "git clean -fd")
check "git clean -fd: denied for session one's new file only" denies "$d" "$A1" src/new.txt
check "... not the tracked changes it leaves alone" sh -c 'case "$1" in *a.txt*|*h.txt*) false;; esac' x "$d"
check "git clean -f -- docs: nothing of theirs there" allows "$(bash_pre $S2 "git clean -f -- docs")"
check "git stash (tracked only) does not name the new file" sh -c 'case "$1" in *new.txt*) false;; *) true;; esac' x "$(bash_pre $S2 "git stash")"
check "git stash -u names it" denies "$(bash_pre $S2 "git stash -u")" src/new.txt

# a session alone in a worktree of its own may discard what it likes
as agent new solo > /dev/null 2>&1
W="$R.airspace/solo"
printf 'mine\n' >> "$W/src/a.txt"
S3=33333333
hook claude-code "{\"session_id\":\"$S3\",\"cwd\":\"$W\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" > /dev/null
check "git stash in a worktree of its own" allows "$(bash_pre $S3 "git stash" "$W")"
check "git -C into the shared tree: denied" denies "$(bash_pre $S3 "git -C $R stash" "$W")" "$A1"
# rm takes what is changed in what it removes, in any worktree it reaches
check "rm of session one's file: denied" denies "$(bash_pre $S2 "rm src/a.txt")" "would throw away" "$A1" src/a.txt
check "rm -rf src: denied, naming session one and the person" denies "$(bash_pre $S2 "rm -rf src")" "would throw away" "$A1" "$HUMAN"
check "rm of its own file goes through" allows "$(bash_pre $S2 "rm src/c.txt")"
check "rm of a file nobody changed goes through" allows "$(bash_pre $S2 "rm -f docs/x.md")"
n=0
until as agents --json | jq -e '.agents[] | select(.id == "solo") | .fileCount == 1' > /dev/null 2>&1 || [ $n -gt 100 ]; do
    sleep 0.05
    n=$((n + 1))
done
check "git worktree remove --force of solo's worktree: denied" \
    denies "$(bash_pre $S2 "git worktree remove --force ../repo.airspace/solo")" solo src/a.txt
check "rm -rf of solo's worktree from the main checkout: denied" \
    denies "$(bash_pre $S2 "rm -rf $W")" solo src/a.txt
check "rm -rf of the directory holding it: denied" \
    denies "$(bash_pre $S2 "cd .. && rm -rf repo.airspace")" solo
check "git worktree remove without --force: git refuses it itself" allows "$(bash_pre $S2 "git worktree remove ../repo.airspace/solo")"
check "nothing was thrown away" sh -c 'grep -q "TWO '$S1'" "$1/src/a.txt" && grep -q person "$1/src/h.txt" && [ -f "$1/src/new.txt" ]' x "$R"
finish

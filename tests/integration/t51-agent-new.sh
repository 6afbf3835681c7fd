# t51-agent-new.sh - `airspace agent new|rm`: a worktree on branch
# airspace/NAME, registered with the daemon; duplicates and bad input
# refused with nothing made; rm refuses uncommitted work unless --force,
# deletes a merged branch and keeps an unmerged one; the daemon is told.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
echo y > y
git add y
git commit -qm second
start_daemon --tick-ms 50 --rescan-ms 60000
agent_field() { # agent_field ID JQ: a field of the daemon's agent ID
    as agents --json | jq -r --arg id "$1" ".agents[] | select(.id == \$id) | $2"
}

# new: the default directory, the branch, the daemon knows it
as agent new alice --json > "$TMP/alice.json" 2> "$TMP/err" && rc=0 || rc=$?
check "agent new: exit 0 ($rc)" [ "$rc" -eq 0 ]
WA="$TMP/repo.airspace/alice"
check "the worktree is beside the repository" jqt "$TMP/alice.json" ".worktree == \"$WA\""
check "JSON: agent, branch, base" jqt "$TMP/alice.json" \
    ".agent == \"alice\" and .branch == \"airspace/alice\" and .base == \"$(git rev-parse HEAD)\" and .registered == true"
check "the directory is a worktree" test -f "$WA/.git" -a -f "$WA/y"
check "on branch airspace/alice" [ "$(git -C "$WA" symbolic-ref --short HEAD)" = airspace/alice ]
check "at HEAD" [ "$(git -C "$WA" rev-parse HEAD)" = "$(git rev-parse HEAD)" ]
check "its working tree is clean" [ -z "$(git -C "$WA" status --porcelain)" ]
check "git lists the worktree" sh -c "git worktree list --porcelain | grep -qx 'worktree $WA'"
check "the daemon lists alice with that worktree" [ "$(agent_field alice .worktree)" = "$WA" ]
check "... and branch" [ "$(agent_field alice .branch)" = airspace/alice ]
check "... active" [ "$(agent_field alice .status)" = active ]
as scan --json > "$TMP/scan.json"
check "scan names its worktree alice too, as the daemon does (not by its branch)" \
    jqt "$TMP/scan.json" "[.agents[] | select(.worktree == \"$WA\") | .id] == [\"alice\"]"

# plain output: the path on stdout
as agent new bob --base HEAD~1 > "$TMP/bob.out" 2> "$TMP/err" && rc=0 || rc=$?
WB="$TMP/repo.airspace/bob"
check "agent new bob --base HEAD~1 ($rc)" [ "$rc" -eq 0 ]
check "prints the path" [ "$(cat "$TMP/bob.out")" = "$WB" ]
check "bob starts at HEAD~1" [ "$(git -C "$WB" rev-parse HEAD)" = "$(git rev-parse HEAD~1)" ]
as agent new dave --dir "$TMP/elsewhere/dave" > /dev/null 2>&1 && rc=0 || rc=$?
check "--dir puts it there ($rc)" test "$rc" -eq 0 -a -f "$TMP/elsewhere/dave/.git"

mkdir -p "$TMP/empty/hank"
as agent new hank --dir "$TMP/empty/hank" > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "--dir an empty directory takes it, as git worktree add does ($rc: $(cat "$TMP/err"))" \
    test "$rc" -eq 0 -a -f "$TMP/empty/hank/.git"
check "... on its branch" [ "$(git -C "$TMP/empty/hank" symbolic-ref --short HEAD)" = airspace/hank ]

# refusals change nothing
refused() { # refused NAME WANT-RC WANT-IN-MESSAGE ARGS...
    rname=$1 rwant=$2 rmsg=$3
    shift 3
    before=$(git worktree list | wc -l)$(git branch --list | wc -l)
    as agent "$@" > /dev/null 2> "$TMP/err" && rrc=0 || rrc=$?
    check "$rname: exit $rwant ($rrc)" [ "$rrc" -eq "$rwant" ]
    check "$rname: says '$rmsg'" grep -q -- "$rmsg" "$TMP/err"
    check "$rname: no worktree or branch made" \
        [ "$(git worktree list | wc -l)$(git branch --list | wc -l)" = "$before" ]
}
refused "a duplicate name" 1 "already flies" new alice
git branch airspace/erin
refused "an existing branch" 1 "branch 'airspace/erin' already exists" new erin
mkdir -p "$TMP/full" && echo x > "$TMP/full/x"
refused "a directory in use" 1 "already exists" new frank --dir "$TMP/full"
refused "a bad name" 2 "cannot name an agent" new ../evil
refused "a name starting with -" 2 "cannot name an agent" new -- -x
refused "a base that is no commit" 2 "does not name a commit" new gina --base no-such-rev
refused "no name" 2 "expected the agent's NAME" new
refused "rm of an unknown agent" 2 "no worktree for agent 'zed'" rm zed
check "the failed attempts left no directory" [ ! -e "$TMP/repo.airspace/gina" ]

# rm: uncommitted changes refused, --force removes; a merged branch goes
echo change >> "$WA/y"
as agent rm alice > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "rm with uncommitted changes: exit 1 ($rc)" [ "$rc" -eq 1 ]
check "... names the change" grep -q "uncommitted changes (1: y)" "$TMP/err"
check "... the worktree is still there" [ -f "$WA/.git" ]
echo new > "$WA/untracked.txt"
git -C "$WA" checkout -q -- y
as agent rm alice > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "an untracked file counts as uncommitted too ($rc)" [ "$rc" -eq 1 ]
as agent rm alice --force --json > "$TMP/rm.json" 2> "$TMP/err" && rc=0 || rc=$?
check "rm --force: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "the directory is gone" [ ! -e "$WA" ]
check "git no longer lists it" sh -c "! git worktree list --porcelain | grep -q 'worktree $WA'"
check "the merged branch is deleted" [ -z "$(git branch --list airspace/alice)" ]
check "JSON says so" jqt "$TMP/rm.json" '.branchDeleted == true and .forced == true and .exited == ["alice"]'
check "the daemon has alice exited" [ "$(agent_field alice .status)" = exited ]

# an unmerged branch is kept (bob commits in his own worktree)
echo "bob's work" > "$WB/bob.txt"
(cd "$WB" && as commit -m "bob's work" > /dev/null 2>&1) && rc=0 || rc=$?
check "bob commits in his worktree ($rc)" [ "$rc" -eq 0 ]
as agent rm bob > "$TMP/rm.out" 2> "$TMP/err" && rc=0 || rc=$?
check "rm bob: exit 0 ($rc)" [ "$rc" -eq 0 ]
check "bob's directory is gone" [ ! -e "$WB" ]
check "the unmerged branch is kept" [ -n "$(git branch --list airspace/bob)" ]
check "... and the output says why" grep -q "kept branch airspace/bob: 1 commit not merged into 'main'" "$TMP/rm.out"
check "the commit is still there" [ "$(git log -1 --format=%s airspace/bob)" = "bob's work" ]

# agent list is agents
check "agent list lists the agents" sh -c "'$AIRSPACE_BIN' agent list --json | jq -e '.agents | map(.id) | index(\"dave\") != null' > /dev/null"
# the clients' settings init wrote, not committed, are copied into a new
# worktree (a committed one comes from git); nothing is overwritten
as init --claude-code --gemini > /dev/null
git add .gemini/settings.json
git commit -qm "gemini settings"
as agent new fay --json > "$TMP/fay.json"
WE="$TMP/repo.airspace/fay"
check "agent new copies the uncommitted client settings" jqt "$TMP/fay.json" \
    '.copied == [".claude/settings.json", ".mcp.json"]'
check "the copies are the same bytes" cmp -s .claude/settings.json "$WE/.claude/settings.json"
check "... the MCP server too" cmp -s .mcp.json "$WE/.mcp.json"
check "the committed one comes from git" sh -c "[ -f '$WE/.gemini/settings.json' ] && [ -z \"\$(git -C '$WE' status --porcelain .gemini)\" ]"

# on $PATH, init names the binary, not one machine's path to it
BIN_DIR="$TMP/bin"
mkdir -p "$BIN_DIR"
ln -s "$AIRSPACE_BIN" "$BIN_DIR/airspace"
R2="$TMP/repo2"
base_repo "$R2"
PATH="$BIN_DIR:$PATH" "$AIRSPACE_BIN" init --claude-code > "$TMP/init.out"
check "the hook command is 'airspace hook claude-code'" \
    jqt .claude/settings.json '[.hooks.SessionStart[].hooks[].command] == ["airspace hook claude-code"]'
check "the MCP server is 'airspace mcp'" jqt .mcp.json '.mcpServers.airspace.command == "airspace"'
R3="$TMP/repo3"
base_repo "$R3"
"$AIRSPACE_BIN" init --claude-code > "$TMP/init3.out"
check "off \$PATH, init says the settings carry its path" \
    grep -qF "the settings name $(realpath "$AIRSPACE_BIN") by its path" "$TMP/init3.out"
finish

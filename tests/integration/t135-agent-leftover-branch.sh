# t135-agent-leftover-branch.sh - `agent new NAME` refused because the
# branch airspace/NAME exists says what frees the name, and what it says
# works: `airspace agent rm NAME` when a worktree is on the branch,
# `airspace agent prune` when that worktree's directory is gone, `git
# branch -D` when none is (the branch `agent rm` kept, not merged; `agent
# rm NAME` then says the same); the main worktree on it: another name.
# `agent rm NAME` also finds a worktree on the branch whose directory is
# gone, whatever git named it.
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
base_repo "$R"
start_daemon --rescan-ms 60000

# suggested FILE: the command the refusal in FILE suggests ("... it with 'CMD'")
suggested() { sed -n "s/.* it with '\([^']*\)'.*/\1/p" "$1"; }
# run_suggested FILE: run it (airspace is the binary under test)
run_suggested() {
    set -- $(suggested "$1")
    if [ "${1:-}" = airspace ]; then
        shift
        as "$@"
    else
        "$@"
    fi
}

# a worktree on the branch (its agent's session over): agent rm
as agent new bob > /dev/null 2> "$TMP/err"
api POST /v1/agents/bob/exit
as agent new bob > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "bob's branch and worktree exist: refused (exit $st)" [ "$st" = 1 ]
check "... suggesting agent rm ($(suggested "$TMP/err"))" [ "$(suggested "$TMP/err")" = "airspace agent rm bob" ]
run_suggested "$TMP/err" > /dev/null 2>&1 && st=0 || st=$?
check "... which works (exit $st)" [ "$st" = 0 ]
as agent new bob > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "... and the name is free (exit $st)" [ "$st" = 0 ]

# the worktree's directory deleted by hand (the session over): agent prune
api POST /v1/agents/bob/exit
rm -rf "$TMP/repo.airspace/bob"
as agent new bob > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "bob's worktree directory gone: refused (exit $st)" [ "$st" = 1 ]
check "... suggesting agent prune ($(suggested "$TMP/err"))" [ "$(suggested "$TMP/err")" = "airspace agent prune" ]
run_suggested "$TMP/err" > /dev/null 2>&1 && st=0 || st=$?
check "... which works (exit $st)" [ "$st" = 0 ]
as agent new bob > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "... and the name is free (exit $st)" [ "$st" = 0 ]

# bob commits, agent rm keeps the unmerged branch: no worktree on it
echo work > "$TMP/repo.airspace/bob/w.txt"
git -C "$TMP/repo.airspace/bob" add w.txt
git -C "$TMP/repo.airspace/bob" commit -qm work
as agent rm bob > "$TMP/out" 2>&1
check "agent rm keeps the unmerged branch" grep -q "kept branch airspace/bob" "$TMP/out"
as agent new bob > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "a leftover branch: refused (exit $st)" [ "$st" = 1 ]
check "... not suggesting agent rm" [ -z "$(grep 'agent rm bob' "$TMP/err")" ]
check "... but git branch -D ($(suggested "$TMP/err"))" [ "$(suggested "$TMP/err")" = "git branch -D airspace/bob" ]
as agent rm bob > /dev/null 2> "$TMP/err2" && st=0 || st=$?
check "agent rm bob: no worktree (exit $st)" [ "$st" = 2 ]
check "... it says the same ($(suggested "$TMP/err2"))" [ "$(suggested "$TMP/err2")" = "git branch -D airspace/bob" ]
run_suggested "$TMP/err" > /dev/null 2>&1 && st=0 || st=$?
check "... which works (exit $st)" [ "$st" = 0 ]
as agent new bob > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "... and the name is free (exit $st)" [ "$st" = 0 ]

# a worktree on airspace/dan, named otherwise, its directory gone: rm finds it
git worktree add -q -b airspace/dan "$TMP/dd"
rm -rf "$TMP/dd"
as agent rm dan > "$TMP/out" 2>&1 && st=0 || st=$?
check "agent rm dan: its gone worktree found by its branch, removed (exit $st)" [ "$st" = 0 ]
check "... and its merged branch with it" [ -z "$(git branch --list airspace/dan)" ]

# the main worktree on the branch
git checkout -qb airspace/carol
as agent new carol > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "the main worktree on airspace/carol: refused (exit $st)" [ "$st" = 1 ]
check "... saying so, suggesting no removal" grep -q "the main worktree is on it: pick another name" "$TMP/err"
git checkout -q main
finish

# t117-land-inflight.sh - `airspace land` refuses a branch that an
# operation in progress holds in some worktree: the target being rebased
# in the main worktree (HEAD detached at a conflict) is refused, naming
# the worktree and the rebase, also with --dry-run, and nothing moves
# (`git rebase --abort` then finds main as it was); the same for the
# landed branch being rebased in the agent's worktree, and for a merge
# stopped on a conflict where the target is checked out. Once the
# operation is over, the land goes through.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
echo one > README.md
echo f > f.txt
commit 00:01 files
git config airspace.integration main
start_daemon --tick-ms 50 --rescan-ms 60000
as agent new lee > /dev/null 2>&1
WL="$TMP/repo.airspace/lee"
api POST /v1/locks '{"agent":"lee","pattern":"f.txt","ttlMs":3600000}'
echo lee > "$WL/f.txt"
git -C "$WL" commit -qam "lee's work"
landed() {
    as land "$@" > "$TMP/out" 2> "$TMP/err" && RC=0 || RC=$?
}
refs() { git for-each-ref --format='%(refname) %(objectname)'; }

# ---- main being rebased in the main worktree, stopped on a conflict
git checkout -q -b side HEAD
echo side >> README.md
git commit -qam side
git checkout -q main
echo mine >> README.md
git commit -qam mine
MINE=$(git rev-parse main)
git rebase side > /dev/null 2>&1 || true
check "the rebase stopped (HEAD detached)" [ -d .git/rebase-merge ]
before=$(refs)
landed lee
check "target being rebased: refused (exit $RC)" [ "$RC" = 1 ]
check "... naming the worktree and the rebase" grep -q \
    "'$R' has a rebase in progress on 'main' (the branch to land on): finish or abort it there first; nothing landed" "$TMP/err"
check "... nothing moved" [ "$(refs)" = "$before" ]
landed lee --into main --dry-run
check "--dry-run: refused too (exit $RC)" [ "$RC" = 1 ]
git rebase --abort
check "after the abort main is as it was" [ "$(git rev-parse main)" = "$MINE" ]

# ---- the landed branch being rebased in the agent's worktree
git -C "$WL" checkout -q -b other HEAD~1
echo other > "$WL/f.txt"
git -C "$WL" commit -qam other
git -C "$WL" checkout -q airspace/lee
git -C "$WL" rebase other > /dev/null 2>&1 || true
before=$(refs)
landed lee
check "source being rebased: refused (exit $RC)" [ "$RC" = 1 ]
check "... naming the agent's worktree" grep -q \
    "'$WL' has a rebase in progress on 'airspace/lee' (the branch to land)" "$TMP/err"
check "... nothing moved" [ "$(refs)" = "$before" ]
git -C "$WL" rebase --abort

# ---- a merge stopped on a conflict where main is checked out
git checkout -q -b clash HEAD~1
echo clash >> README.md
git commit -qam clash
git checkout -q main
git merge clash > /dev/null 2>&1 || true
check "the merge stopped" [ -f .git/MERGE_HEAD ]
before=$(refs)
landed lee
check "merge in progress on the target: refused (exit $RC)" [ "$RC" = 1 ]
check "... naming it" grep -q "'$R' has a merge in progress on 'main'" "$TMP/err"
check "... nothing moved" [ "$(refs)" = "$before" ]
git merge --abort

# ---- nothing in progress: it lands
landed lee
check "then it lands (exit $RC: $(cat "$TMP/err"))" [ "$RC" = 0 ]
check "... main has lee's work" [ "$(git show main:f.txt)" = lee ]
finish

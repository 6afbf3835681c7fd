# t50-commit.sh - `airspace commit`: scoped commits without the index lock.
# The tree it commits agrees with `git add PATHS && git commit`; bad input
# changes nothing; a file another agent holds is refused (--force commits
# it); the index keeps what else was staged; without the daemon a linked
# worktree commits all its changes and the main one needs PATHs; root and
# detached commits. Then two agents in ONE working tree commit 2 x 20
# times in parallel while something holds .git/index.lock part of the
# time: every commit lands, each with only its agent's file, and git fsck
# is clean.
. "$(dirname "$0")/lib.sh"

head_of() { git -C "$1" rev-parse HEAD; }

# ---- agreement with git, every kind of change (no daemon: PATHs) ----
G="$TMP/agree"
new_repo "$G"
mkdir -p "$G/src"
printf 'one\ntwo\n' > "$G/src/mod.c"
printf '#!/bin/sh\n' > "$G/run.sh"
echo gone > "$G/gone.txt"
echo file > "$G/tolink"
echo keep > "$G/keep.txt"
git -C "$G" add -A
git -C "$G" commit -qm base
printf 'one\nTWO\n' > "$G/src/mod.c"
chmod +x "$G/run.sh"
rm "$G/gone.txt"
rm "$G/tolink" && ln -s src/mod.c "$G/tolink"
echo new > "$G/new.txt"
mkdir -p "$G/lib/deep" && echo 'int x;' > "$G/lib/deep/x.c"
echo 'not mine' > "$G/keep.txt"
cp -a "$G" "$TMP/agree-git"
PATHS="src/mod.c run.sh gone.txt tolink new.txt lib/deep/x.c"
(cd "$TMP/agree-git" && git add $PATHS && git commit -qm scoped)
(cd "$G" && as commit --no-start --json -m scoped $PATHS > "$TMP/agree.json" 2> "$TMP/agree.err") && rc=0 || rc=$?
check "commit of every kind of change succeeds ($rc)" [ "$rc" -eq 0 ]
check "the tree equals git add + git commit's" \
    [ "$(git -C "$G" rev-parse 'HEAD^{tree}')" = "$(git -C "$TMP/agree-git" rev-parse 'HEAD^{tree}')" ]
check "statuses in the JSON" jqt "$TMP/agree.json" \
    '[.files[] | "\(.path)=\(.status)"] == ["gone.txt=deleted", "lib/deep/x.c=added", "new.txt=added", "run.sh=mode", "src/mod.c=modified", "tolink=typechange"]'
check "JSON: commit, branch, parent, retries, index_updated" jqt "$TMP/agree.json" \
    "(.commit == \"$(head_of "$G")\") and .branch == \"main\" and (.parent == \"$(git -C "$G" rev-parse HEAD~1)\") and .retries == 0 and .index_updated == true"
check "without the daemon it says so" grep -q "daemon cannot be reached" "$TMP/agree.err"
check "the reflog names airspace" \
    [ "$(git -C "$G" reflog -1 --format=%gs)" = "commit (airspace): scoped" ]
check "git status: only the file not committed" \
    [ "$(git -C "$G" status --porcelain)" = " M keep.txt" ]
check "author from the environment, as git" \
    [ "$(git -C "$G" log -1 --format='%an <%ae> %aI')" = "tester <t@example.invalid> 2026-01-01T10:00:00+00:00" ]

# a file where a directory was, and a directory where a file was: the
# path named (or the directory above) commits both sides, as git add does
S="$TMP/switch"
new_repo "$S"
mkdir -p "$S/was-dir" "$S/both"
echo 1 > "$S/was-dir/f"
echo 2 > "$S/was-dir/g"
echo file > "$S/was-file"
echo file > "$S/both/was-file"
git -C "$S" add -A
git -C "$S" commit -qm base
SB=$(head_of "$S")
rm -r "$S/was-dir" && echo now-a-file > "$S/was-dir"
rm "$S/was-file" && mkdir "$S/was-file" && echo x > "$S/was-file/x"
rm "$S/both/was-file" && mkdir "$S/both/was-file" && echo y > "$S/both/was-file/y"
cp -a "$S" "$TMP/switch-git"
(cd "$TMP/switch-git" && git add -A -- was-dir was-file both && git commit -qm s)
(cd "$S" && as commit --no-start -m s was-dir was-file both 2> "$TMP/err" > /dev/null) && rc=0 || rc=$?
check "file <-> directory switches commit ($rc: $(tail -1 "$TMP/err"))" [ "$rc" -eq 0 ]
check "... the tree equals git add + git commit's" \
    [ "$(git -C "$S" rev-parse 'HEAD^{tree}')" = "$(git -C "$TMP/switch-git" rev-parse 'HEAD^{tree}')" ]
check "... and git status is clean" [ -z "$(git -C "$S" status --porcelain)" ]
git -C "$S" worktree add -q -b side2 "$TMP/switch-wt" "$SB"
rm -r "$TMP/switch-wt/was-dir" && echo now-a-file > "$TMP/switch-wt/was-dir"
rm "$TMP/switch-wt/was-file" && mkdir "$TMP/switch-wt/was-file" && echo x > "$TMP/switch-wt/was-file/x"
(cd "$TMP/switch-wt" && as commit --no-start -m all 2> "$TMP/err" > /dev/null) && rc=0 || rc=$?
check "commit-all with file <-> directory switches ($rc: $(tail -1 "$TMP/err"))" [ "$rc" -eq 0 ]
check "... nothing left behind" [ -z "$(git -C "$TMP/switch-wt" status --porcelain)" ]

# what git add would pass through a filter driver (Git LFS) or a
# working-tree-encoding cannot be committed as it lies: refused
F="$TMP/filters"
new_repo "$F"
git -C "$F" config filter.up.clean 'tr a-z A-Z'
git -C "$F" config filter.up.smudge cat
printf '*.up filter=up\n*.u16 working-tree-encoding=UTF-16LE\n*.none filter=undefined\n' > "$F/.gitattributes"
git -C "$F" add -A
git -C "$F" commit -qm base
echo hello > "$F/f.up"
printf 'h\000i\000' > "$F/e.u16"
echo plain > "$F/p.none"
H=$(head_of "$F")
for f in f.up e.u16; do
    (cd "$F" && as commit --no-start -m s "$f" 2> "$TMP/err" > /dev/null) && rc=0 || rc=$?
    check "$f (filter or encoding): refused, exit 2 ($rc)" [ "$rc" -eq 2 ]
    check "... names it" grep -q "'$f'.*commit it with git" "$TMP/err"
    check "... nothing committed" [ "$(head_of "$F")" = "$H" ]
done
(cd "$F" && as commit --no-start -m s p.none 2> /dev/null > /dev/null) && rc=0 || rc=$?
check "a filter attribute with no driver configured commits, as with git ($rc)" [ "$rc" -eq 0 ]

# a file inside a submodule: refused as such (exit 2), not as a tree change
M="$TMP/withsub"
new_repo "$M"
echo a > "$M/a"
git -C "$M" add a
git -C "$M" update-index --add --cacheinfo "160000,$(git -C "$M" hash-object -t blob /dev/null),sub"
git -C "$M" commit -qm base
mkdir "$M/sub" && echo s > "$M/sub/s"
H=$(head_of "$M")
(cd "$M" && as commit --no-start -m s sub/s 2> "$TMP/err" > /dev/null) && rc=0 || rc=$?
check "a file inside a submodule: exit 2 ($rc)" [ "$rc" -eq 2 ]
check "... says so" grep -q "'sub/s' is inside the submodule 'sub'" "$TMP/err"
check "... nothing committed" [ "$(head_of "$M")" = "$H" ]

# no daemon, no PATHs: the main worktree refuses (exit 3), a linked one commits all
H=$(head_of "$G")
(cd "$G" && as commit --no-start -m all 2> "$TMP/err") && rc=0 || rc=$?
check "no daemon, main worktree, no PATHs: exit 3 ($rc)" [ "$rc" -eq 3 ]
check "... and says to name the PATHs" grep -q "name the PATHs" "$TMP/err"
check "... nothing committed" [ "$(head_of "$G")" = "$H" ]
git -C "$G" worktree add -q -b side "$TMP/agree-wt"
echo side > "$TMP/agree-wt/side.txt"
echo changed > "$TMP/agree-wt/new.txt"
(cd "$TMP/agree-wt" && as commit --no-start -m "all of it" 2> "$TMP/err" > /dev/null) && rc=0 || rc=$?
check "no daemon, linked worktree, no PATHs: commits every change ($rc)" [ "$rc" -eq 0 ]
check "... both files" [ "$(git -C "$TMP/agree-wt" show --format= --name-only HEAD | sort | tr '\n' ' ')" = "new.txt side.txt " ]
check "... and the tree is clean" [ -z "$(git -C "$TMP/agree-wt" status --porcelain)" ]

# a first commit on an unborn branch; a detached HEAD
U="$TMP/unborn"
new_repo "$U"
echo first > "$U/first.txt"
echo later > "$U/later.txt"
(cd "$U" && as commit --no-start -m first first.txt 2> /dev/null > "$TMP/out") && rc=0 || rc=$?
check "unborn branch: committed ($rc)" [ "$rc" -eq 0 ]
check "... a root commit" grep -q '^\[main (root-commit) ' "$TMP/out"
check "... one commit" [ "$(git -C "$U" rev-list --count HEAD)" = 1 ]
check "... with one file" [ "$(git -C "$U" ls-tree --name-only HEAD)" = first.txt ]
check "... the other file still untracked" [ "$(git -C "$U" status --porcelain)" = "?? later.txt" ]
git -C "$U" checkout -q --detach
echo again > "$U/first.txt"
(cd "$U" && as commit --no-start -m detached first.txt 2> /dev/null > "$TMP/out") && rc=0 || rc=$?
check "detached HEAD: committed ($rc)" [ "$rc" -eq 0 ]
check "... said so" grep -q '^\[detached HEAD ' "$TMP/out"
check "... HEAD moved, main did not" [ "$(git -C "$U" rev-parse HEAD~1)" = "$(git -C "$U" rev-parse main)" ]

# no identity: refused clearly, nothing committed
echo nobody > "$U/later.txt"
H=$(head_of "$U")
(cd "$U" && env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME \
    -u GIT_COMMITTER_EMAIL -u EMAIL "$AIRSPACE_BIN" commit --no-start -m x later.txt 2> "$TMP/err") && rc=0 || rc=$?
check "no identity: exit 2 ($rc)" [ "$rc" -eq 2 ]
check "... says to set user.name" grep -q "user.name" "$TMP/err"
check "... nothing committed" [ "$(head_of "$U")" = "$H" ]

# ---- with the daemon, one working tree ----
R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
for f in a b c held staged; do echo "$f 0" > "$R/src/$f.txt"; done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --rescan-ms 60000

# bad input: exit 2, a message naming it, nothing committed
echo "a 1" > src/a.txt
H=$(head_of "$R")
bad() { # bad NAME WANT-IN-MESSAGE ARGS...
    bname=$1 bwant=$2
    shift 2
    as commit "$@" > /dev/null 2> "$TMP/err" && brc=0 || brc=$?
    check "$bname: exit 2 ($brc)" [ "$brc" -eq 2 ]
    check "$bname: the message says '$bwant'" grep -q -- "$bwant" "$TMP/err"
    check "$bname: nothing committed" [ "$(head_of "$R")" = "$H" ]
}
bad "a path outside the repository" "outside the repository" -m x ../outside.txt
bad "an absolute path outside" "outside the repository" -m x /etc/passwd
bad "an unchanged path" "'src/b.txt' has no change" -m x src/b.txt
bad "a path that names nothing" "'src/nope.txt' did not match" -m x src/nope.txt
bad "inside .git" "inside the git directory" -m x .git/config
bad "no message" "commit message is required" src/a.txt
bad "an empty message" "empty commit message" -m "  " src/a.txt
bad "an unknown agent" "unknown agent 'nobody'" --agent nobody -m x src/a.txt
bad "an unknown option" "unknown or incomplete option" --frobnicate -m x src/a.txt
check "the bad inputs left the work alone" [ "$(git status --porcelain)" = " M src/a.txt" ]

# a path from a subdirectory is taken relative to it
(cd src && as commit -m "from src" a.txt > /dev/null 2> "$TMP/err") && rc=0 || rc=$?
check "relative to the current directory ($rc)" [ "$rc" -eq 0 ]
check "... committed src/a.txt" [ "$(git show --format= --name-only HEAD)" = src/a.txt ]
check "the main worktree's agent committed it" [ -z "$(git status --porcelain)" ]

# another agent holds a file: refused with holder, pattern and reason
api POST /v1/agents '{"id":"bob","client":"test"}'
as lock --agent bob --reason "bob rewrites it" 'src/held*' > /dev/null
echo "held 1" > src/held.txt
echo "c 1" > src/c.txt
H=$(head_of "$R")
as commit -m "take it" src/held.txt src/c.txt > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "a file held by another agent: exit 1 ($rc)" [ "$rc" -eq 1 ]
check "... names the holder" grep -q "held by bob" "$TMP/err"
check "... names the pattern" grep -q "src/held\*" "$TMP/err"
check "... names the reason" grep -q "bob rewrites it" "$TMP/err"
check "... nothing committed, not even the free file" [ "$(head_of "$R")" = "$H" ]
as commit --force --json -m "take it" src/held.txt src/c.txt > "$TMP/forced.json" 2> "$TMP/err" && rc=0 || rc=$?
check "--force commits it ($rc)" [ "$rc" -eq 0 ]
check "... both files" jqt "$TMP/forced.json" '(.files | length) == 2'
check "... and says whose it was" grep -q "committing anyway (--force): 'src/held.txt' is held by bob" "$TMP/err"

# the index keeps what else is staged
echo "staged 1" > src/staged.txt
git add src/staged.txt
echo "a 2" > src/a.txt
as commit -m "a only" src/a.txt > /dev/null 2>&1
check "another staged path stays staged" [ "$(git diff --cached --name-only)" = src/staged.txt ]
check "the committed path is clean in git status" [ -z "$(git status --porcelain src/a.txt)" ]
check "the staged content was not committed" [ "$(git show HEAD:src/staged.txt)" = "staged 0" ]
git reset -q
git checkout -q -- src/staged.txt

# the index lock held: the commit lands, the index is left alone, with a note
echo "a 3" > src/a.txt
: > .git/index.lock
as commit --json -m "while locked" src/a.txt > "$TMP/locked.json" 2> "$TMP/err" && rc=0 || rc=$?
check "index.lock held: still committed ($rc)" [ "$rc" -eq 0 ]
check "... the commit is there" [ "$(git log -1 --format=%s)" = "while locked" ]
check "... index_updated false" jqt "$TMP/locked.json" '.index_updated == false'
check "... the note says how to fix git status" grep -q "git reset -q -- src/a.txt" "$TMP/err"
check "... the lock was not touched" test -f .git/index.lock -a ! -s .git/index.lock
rm -f .git/index.lock
git reset -q -- src/a.txt
check "... git reset makes git status clean" [ -z "$(git status --porcelain)" ]

# nothing to commit
as commit -m "nothing" > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "nothing to commit: exit 1 ($rc)" [ "$rc" -eq 1 ]
check "... says so" grep -q "nothing to commit" "$TMP/err"

# ---- two agents in ONE working tree ----
api POST /v1/agents "{\"id\":\"alice\",\"client\":\"test\",\"worktree\":\"$R\"}"
api POST /v1/agents "{\"id\":\"carol\",\"client\":\"test\",\"worktree\":\"$R\"}"
as commit -m x src/a.txt > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "shared tree without --agent: exit 2 ($rc)" [ "$rc" -eq 2 ]
check "... names the agents there" grep -q "several agents fly in" "$TMP/err"
echo "a alice" > src/a.txt
echo "b carol" > src/b.txt
api POST /v1/agents/alice/edits '{"path":"src/a.txt","lines":[[1,1]]}'
as commit --agent carol -m x > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "an agent that reported nothing: exit 1 ($rc)" [ "$rc" -eq 1 ]
check "... says so" grep -q "reported no edits" "$TMP/err"
AIRSPACE_AGENT=alice as commit --json -m "alice's" > "$TMP/alice.json" 2> "$TMP/err" && rc=0 || rc=$?
check "shared tree: alice commits ($rc)" [ "$rc" -eq 0 ]
check "... only the file she reported" jqt "$TMP/alice.json" \
    '[.files[].path] == ["src/a.txt"] and .agent == "alice"'
check "... carol's change stays in the working tree" [ "$(git status --porcelain)" = " M src/b.txt" ]

# 2 x 20 commits in parallel, index.lock held part of the time
api POST /v1/agents/carol/edits '{"path":"src/b.txt","lines":[[1,1]]}'
BEFORE=$(git rev-list --count HEAD)
(
    while [ ! -f "$TMP/stop" ]; do
        if (set -C && : > .git/index.lock) 2> /dev/null; then
            sleep 0.4
            rm -f .git/index.lock
        fi
        sleep 0.2
    done
) &
LOCKER=$!
agent_loop() { # agent_loop ID FILE: 20 commits of FILE
    i=1
    while [ $i -le 20 ]; do
        echo "$1 $i" > "$2"
        if [ "$1" = alice ]; then
            as commit --json --agent alice -m "$1 $i" >> "$TMP/$1.json" 2>> "$TMP/$1.err" || echo "$i" >> "$TMP/$1.failed"
        else
            as commit --json --agent carol -m "$1 $i" "$2" >> "$TMP/$1.json" 2>> "$TMP/$1.err" || echo "$i" >> "$TMP/$1.failed"
        fi
        i=$((i + 1))
    done
}
agent_loop alice src/a.txt &
A=$!
agent_loop carol src/b.txt &
C=$!
wait $A
wait $C
: > "$TMP/stop"
wait $LOCKER
rm -f .git/index.lock
check "no commit failed (alice: $(cat "$TMP/alice.failed" 2> /dev/null | tr '\n' ' '))" [ ! -f "$TMP/alice.failed" ]
check "no commit failed (carol: $(cat "$TMP/carol.failed" 2> /dev/null | tr '\n' ' '))" [ ! -f "$TMP/carol.failed" ]
echo "the loop: $(cat "$TMP/alice.json" "$TMP/carol.json" | jq -s 'map(.retries) | add') ref retries, $(cat "$TMP/alice.json" "$TMP/carol.json" | jq -s 'map(select(.index_updated | not)) | length') index updates left to git reset" >&2
check "all 40 commits landed ($(git rev-list --count HEAD) after $BEFORE)" \
    [ "$(git rev-list --count HEAD)" -eq $((BEFORE + 40)) ]
for who in alice carol; do
    n=$(git log --format=%s | grep -c "^$who [0-9]*$")
    check "$who's 20 subjects are all in the history ($n)" [ "$n" -eq 20 ]
done
only_own() { # every commit of the loop touched only its agent's file
    git log -40 --format='%H %s' | while read -r c who n; do
        f=$(git diff-tree --no-commit-id --name-only -r "$c")
        case $who in
        alice) [ "$f" = src/a.txt ] || { echo "$c $who $n: $f" >&2; return 1; } ;;
        carol) [ "$f" = src/b.txt ] || { echo "$c $who $n: $f" >&2; return 1; } ;;
        esac
        [ "$(git show "$c:$f")" = "$who $n" ] || { echo "$c content" >&2; return 1; }
    done
}
check "each commit holds only its agent's file, with that commit's content" only_own
check "HEAD has alice's last a.txt" [ "$(git show HEAD:src/a.txt)" = "alice 20" ]
check "HEAD has carol's last b.txt" [ "$(git show HEAD:src/b.txt)" = "carol 20" ]
check "git fsck is clean" git fsck --strict --no-progress > /dev/null 2>&1
check "the history is linear" [ "$(git rev-list --merges --count HEAD)" = 0 ]
git reset -q
check "after git reset, the working tree matches HEAD" [ -z "$(git status --porcelain)" ]

# Racy git: a file changed in the very second the index was written, to
# the same size, is found by git only because that entry's time is not
# older than the index's. The index rewrite must keep that judgement: a
# change the person made must not vanish from git status.
RR="$TMP/racy"
new_repo "$RR"
git -C "$RR" config core.trustctime false
echo aaa > "$RR/f"
echo g0 > "$RR/g"
git -C "$RR" add -A
git -C "$RR" commit -qm init
M=$(($(date +%s) - 100))
touch -d "@$M" "$RR/f"
git -C "$RR" add f
echo bbb > "$RR/f" # same size, same second: racily clean
touch -d "@$M" "$RR/f" "$RR/.git/index"
echo g1 > "$RR/g"
(cd "$RR" && as commit --no-start -m g g > /dev/null 2>&1)
check "the racy commit of g landed" [ "$(git -C "$RR" show HEAD:g)" = g1 ]
check "f's change is still seen after the index rewrite" \
    [ "$(git -C "$RR" status --porcelain f)" = " M f" ]
# the same within one second, to git's granularity: the entry written at
# .5, the file changed at .7, the index at .9 of that second
touch -d "@$((M - 10)).5" "$RR/f"
git -C "$RR" add f
echo ccc > "$RR/f"
touch -d "@$((M - 10)).7" "$RR/f"
touch -d "@$((M - 10)).9" "$RR/.git/index"
echo g2 > "$RR/g"
(cd "$RR" && as commit --no-start -m g2 g > /dev/null 2>&1)
check "the second racy commit of g landed" [ "$(git -C "$RR" show HEAD:g)" = g2 ]
check "f's change in the index's second is still seen (bbb staged, ccc not)" \
    [ "$(git -C "$RR" status --porcelain f)" = "MM f" ]
finish

# t12-scan-edges.sh - `airspace scan` on worktrees git itself copes with but
# a naive reader does not: unreadable worktrees (branch ref deleted, unborn
# HEAD, orphan history) are skipped with a warning while every other pair
# is reported; a file too big to capture counts as a whole-file change; an
# untracked nested repository; a sparse checkout; a conflicted merge in
# progress; and paths that are not valid UTF-8 in the JSON document.
. "$(dirname "$0")/lib.sh"

# setup NAME WORKTREE...: a repository $TMP/NAME (d1/a.txt, d2/b.txt,
# src/conf.txt on main) with a worktree $TMP/NAME-W on a new branch W per
# argument; R is the repository. Each part below has its own, so one part's
# trouble cannot hide another's.
setup() {
    R="$TMP/$1"
    shift
    new_repo "$R"
    mkdir -p "$R/d1" "$R/d2" "$R/src"
    printf 'a1\na2\na3\n' > "$R/d1/a.txt"
    printf 'b1\nb2\nb3\n' > "$R/d2/b.txt"
    seq 1 9 > "$R/src/conf.txt"
    git -C "$R" add -A
    git -C "$R" commit -qm base
    for w in "$@"; do
        git -C "$R" worktree add -q -b "$w" "$R-$w" main
    done
}
J="$TMP/scan.json"
# scan: scan $R as JSON with evidence into $J, stderr to $TMP/err, status
# to RC.
scan() {
    set +e
    as scan --repo "$R" --json --explain > "$J" 2> "$TMP/err"
    RC=$?
    set -e
    cat "$TMP/err" >&2
}
pair() { # pair A B FILTER-on-the-pair
    jq -r --arg a "$1" --arg b "$2" \
        "[.pairs[] | select((.a==\$a and .b==\$b) or (.a==\$b and .b==\$a))][0] | $3" "$J"
}
files() { # files AGENT: its paths, one a line
    jq -r --arg a "$1" '.agents[] | select(.id==$a) | .files[].path' "$J"
}

# 1a. A file too big to capture (sparse, takes no disk) is a whole-file
# change, with a warning; its contents are not read.
setup part1a bob ivy
sed -i 's/^b2$/bob/' "$R-bob/d2/b.txt"
truncate -s 300M "$R-ivy/huge.bin"
sed -i 's/^b1$/ivy/' "$R-ivy/d2/b.txt"
scan
check "too big: exit 0 ($RC)" [ "$RC" = 0 ]
check "ivy's huge.bin is a whole-file addition" jqt "$J" \
    '[.agents[] | select(.id=="ivy") | .files[] | select(.path=="huge.bin" and .status=="added" and .whole)] | length == 1'
check "stderr says ivy's huge.bin is too big to capture" \
    grep -q "worktree '$R-ivy'.*huge.bin.*too big" "$TMP/err"
check "ivy-bob merge conflict on d2/b.txt" [ "$(pair ivy bob .channels.merge)" = 1 ]

# 1b. Unusable worktrees are skipped with a warning, the rest is reported
# (exit 0): frank's branch ref is deleted under him, gina is on an unborn
# orphan branch, hank on an orphan branch with a commit (no common
# history).
setup part1b bob frank gina hank ivy
sed -i 's/^b2$/bob/' "$R-bob/d2/b.txt"
git -C "$R" update-ref -d refs/heads/frank
git -C "$R-gina" checkout -q --orphan gina-orphan
git -C "$R-hank" checkout -q --orphan hank-orphan
git -C "$R-hank" commit -qm orphan
sed -i 's/^b1$/ivy/' "$R-ivy/d2/b.txt"
scan
check "partial result exits 0 ($RC)" [ "$RC" = 0 ]
check "the report is JSON" jq -e . "$J" > /dev/null
check "3 agents (main, bob, ivy)" jqt "$J" '[.agents[].id] == ["main", "bob", "ivy"]'
check "3 pairs" jqt "$J" '.pairs | length == 3'
check "ivy-bob resolution" [ "$(pair ivy bob .level)" = resolution ]
for w in frank gina hank; do
    check "stderr names $w's worktree" \
        grep -q "skipping worktree '$R-$w'" "$TMP/err"
    check "skipped lists $w" jqt "$J" \
        "[.skipped[] | select(.worktree==\"$R-$w\" and (.reason | length > 0))] | length == 1"
done
check "frank: no commit" grep -q "worktree '$R-frank'.*no commit" "$TMP/err"
check "hank: no common history" \
    grep -q "worktree '$R-hank'.*no common history" "$TMP/err"
set +e
as scan --repo "$R" > "$TMP/table" 2> "$TMP/err"
RC=$?
set -e
check "table: exit 0 ($RC)" [ "$RC" = 0 ]
check "table: names the skipped worktree" grep -q "skipped worktree '$R-frank'" "$TMP/table"
check "table: reports ivy and bob" grep -q "ivy .*bob\|bob .*ivy" "$TMP/table"
check "table: warns about frank" grep -q "skipping worktree '$R-frank'" "$TMP/err"
# an integration branch without a commit fails the whole scan, as before
set +e
as scan --repo "$R" --integration nosuch > /dev/null 2> "$TMP/err"
RC=$?
set -e
check "unknown integration branch exits 4 ($RC)" [ "$RC" = 4 ]
check "unknown integration branch named" grep -q "'nosuch'" "$TMP/err"
# a branch without a worktree that cannot be read is skipped the same way
git -C "$R" checkout -q --orphan lone
git -C "$R" commit -qm lone
git -C "$R" checkout -q main
as scan --repo "$R" --branches --json > "$J" 2> "$TMP/err" || true
check "--branches: orphan branch skipped" jqt "$J" \
    '[.skipped[] | select(.branch=="lone" and (has("worktree") | not))] | length == 1'
check "--branches: warns about it" grep -q "skipping branch 'lone'" "$TMP/err"

# 2. An untracked nested repository is no file of carol's.
setup part2 carol
git -c init.defaultBranch=main init -q "$R-carol/inner"
printf 'x\n' > "$R-carol/inner/x.txt"
git -C "$R-carol/inner" add -A
git -C "$R-carol/inner" commit -qm inner
sed -i 's/^a1$/carol/' "$R-carol/d1/a.txt"
scan
check "nested repository: exit 0 ($RC)" [ "$RC" = 0 ]
check "carol's files: d1/a.txt only" [ "$(files carol)" = d1/a.txt ]

# 3. Files outside alice's sparse checkout are not deleted: git status is
# clean; bob edits d2.
setup part3 alice bob
git -C "$R-alice" sparse-checkout set d1
check "alice's sparse worktree is clean for git" \
    test -z "$(git -C "$R-alice" status --porcelain)"
check "d2 is outside alice's sparse checkout" test ! -e "$R-alice/d2/b.txt"
sed -i 's/^b2$/bob/' "$R-bob/d2/b.txt"
scan
check "sparse: exit 0 ($RC)" [ "$RC" = 0 ]
check "alice's working set is empty" [ -z "$(files alice)" ]
check "alice-bob clear" [ "$(pair alice bob .level)" = clear ]
# a copy of d2/b.txt into d1 is an addition, not a rename out of d2
git -C "$R" show main:d2/b.txt > "$R-alice/d1/copy.txt"
scan
check "sparse copy: alice's working set is d1/copy.txt, added" jqt "$J" \
    '[.agents[] | select(.id=="alice") | .files[] | {path, status}] == [{"path": "d1/copy.txt", "status": "added"}]'
check "sparse copy: alice-bob clear" [ "$(pair alice bob .level)" = clear ]

# 4. dave commits line 3 of conf.txt, then merges a branch that changed it
# too and is left conflicted; erin changes line 3, uncommitted. dave's
# committed line must stay in the merge channel.
setup part4 dave erin other
sed -i 's/^3$/other/' "$R-other/src/conf.txt"
git -C "$R-other" commit -qam other
git -C "$R" worktree remove "$R-other"
sed -i 's/^3$/dave/' "$R-dave/src/conf.txt"
git -C "$R-dave" commit -qam dave
if git -C "$R-dave" merge -q other > /dev/null 2>&1; then
    fail "dave's merge should conflict"
fi
sed -i 's/^3$/erin/' "$R-erin/src/conf.txt"
scan
check "conflicted merge: exit 0 ($RC)" [ "$RC" = 0 ]
check "dave's working set is src/conf.txt line 3" jqt "$J" \
    '[.agents[] | select(.id=="dave") | .files[] | {path, lines}] == [{"path": "src/conf.txt", "lines": [[3, 3]]}]'
check "dave-erin merge conflict" [ "$(pair dave erin .channels.merge)" = 1 ]

# 5. jack and kate both add a file whose name is not valid UTF-8: every
# invalid byte is U+FFFD in the JSON document, no field is left out.
setup part5 jack kate
BAD=$(printf 'bad\377name.txt')
printf 'jack\n' > "$R-jack/$BAD"
printf 'kate\n' > "$R-kate/$BAD"
scan
check "jack's path is present, invalid byte as U+FFFD" jqt "$J" \
    '[.agents[] | select(.id=="jack") | .files[] | select(.path=="bad\ufffdname.txt")] | length == 1'
check "every file has a path" jqt "$J" '[.agents[].files[] | has("path")] | all'
check "jack-kate contested path present" jqt "$J" \
    '[.pairs[] | select(.a=="jack" or .b=="jack") | select(.a=="kate" or .b=="kate") | .evidence.contested[0].path] == ["bad\ufffdname.txt"]'
check "jack-kate merge path present" jqt "$J" \
    '[.pairs[] | select(.a=="jack" or .b=="jack") | select(.a=="kate" or .b=="kate") | .evidence.merge.paths] == [["bad\ufffdname.txt"]]'
finish

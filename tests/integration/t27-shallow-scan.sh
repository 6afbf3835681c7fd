# t27-shallow-scan.sh - `airspace scan` in a shallow clone (git clone
# --depth N) sees what it sees in a complete clone: bases, commits ahead,
# and the merge channel between agents on different bases.
#
#   origin: 00:00..05:00 six commits on main (f.txt 1..30)
#   clone --depth 3, then in it:
#     w1 branches from HEAD, commits line 5 -> w1 (one commit ahead)
#     w2 branches from HEAD~1, edits line 5 -> w2 uncommitted
#   w1 and w2 collide on line 5 over the merge base HEAD~1 (inside the
#   clone's history; its parents are not).
. "$(dirname "$0")/lib.sh"
O="$TMP/origin"
new_repo "$O"
cd "$O"
seq 1 30 > f.txt
commit 00:00 "c0"
for t in 01 02 03 04 05; do
    echo "$t" >> "log$t.txt"
    commit "$t:00" "c$t"
done

# setup DIR CLONE-ARGS...: clone origin into DIR and add the two worktrees.
setup() {
    d=$1
    shift
    git clone -q "$@" "file://$O" "$d"
    git -C "$d" worktree add -q -b w1 "$d-w1" HEAD
    (cd "$d-w1" && sed -i 's/^5$/w1/' f.txt && at 06:00 && git commit -qam "w1")
    git -C "$d" worktree add -q -b w2 "$d-w2" HEAD~1
    (cd "$d-w2" && sed -i 's/^5$/w2/' f.txt)
}
setup "$TMP/full"
setup "$TMP/shallow" --depth 3
check "the clone is shallow" test -s "$TMP/shallow/.git/shallow"

as scan --repo "$TMP/full" --json > "$TMP/full.json"
as scan --repo "$TMP/shallow" --json > "$TMP/shallow.json" 2> "$TMP/err"
check "scan runs in the shallow clone, no error" test ! -s "$TMP/err"
# the same facts per agent and pair (the graph is the same tree)
facts='{agents: [.agents[] | {id, base, commitsAhead, files: [.files[].path]}] | sort_by(.id),
        pairs: [.pairs[] | {a, b, level, risk, mergeChecked, merge: .channels.merge}]}'
jq -S "$facts" "$TMP/full.json" > "$TMP/full.facts"
jq -S "$facts" "$TMP/shallow.json" > "$TMP/shallow.facts"
check "agents and pairs as in the complete clone" cmp -s "$TMP/full.facts" "$TMP/shallow.facts"
check "w1 is one commit ahead of its base" jqt "$TMP/shallow.json" \
    '.agents[] | select(.id == "w1") | .commitsAhead == 1'
check "w1 and w2 collide through the merge channel over HEAD~1" jqt "$TMP/shallow.json" \
    '[.pairs[] | select([.a, .b] | sort == ["w1", "w2"])] | length == 1 and .[0].mergeChecked and .[0].channels.merge == 1'

# A branch that merged main, cloned at depth 2 (a CI checkout of the
# branch): commits ahead of the base reach the cut, whose own changes are
# unknown here. The scan still runs, with the base and the files of a
# complete clone.
cd "$O"
git checkout -qb feat main~4
for t in 06 07 08; do
    echo "$t" >> "feat$t.txt"
    commit "$t:00" "feat $t"
done
at 09:00
git merge -q --no-ff -m "merge main" main
git checkout -q main
rm -rf "$TMP/fa" "$TMP/fb"
git clone -q -b feat "file://$O" "$TMP/fa"
git clone -q --depth 2 --no-single-branch -b feat "file://$O" "$TMP/fb"
check "the branch clone is shallow" test -s "$TMP/fb/.git/shallow"
as scan --repo "$TMP/fa" --integration origin/main --json > "$TMP/fa.json"
as scan --repo "$TMP/fb" --integration origin/main --json > "$TMP/fb.json" 2> "$TMP/err"
check "branch at depth 2: scan runs, no error" test ! -s "$TMP/err"
facts='[.agents[] | {id, base, files: [.files[].path]}]'
check "branch at depth 2: base and files as in the complete clone" \
    jqsame "$facts" "$TMP/fa.json" "$TMP/fb.json"
finish

# t22-replay-backmerge.sh - a side commit that forked before the merge base
# and whose own change conflicts with the base is replayed onto the base with
# its own version of the conflicting file (git merge-tree would leave
# markers; either way the path counts as changed by that side):
#   00:00 base        f.txt 1..30
#   01:00 br 1        line 5 -> br5            (forks at base)
#   02:00 main 1      line 5 -> main5          = B of the final merge
#   03:00 br merges main 1, taking main5
#   04:00 br 2        line 20
#   05:00 main 2      line 25
#   06:00 main merges br                        clean, never flagged
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
J="$TMP/out.json"
new_repo "$R"
cd "$R"
at() {
    export GIT_AUTHOR_DATE="2026-01-01T$1:00Z" GIT_COMMITTER_DATE="2026-01-01T$1:00Z"
}
commit() {
    at "$1"
    git add -A
    git commit -qm "$2"
}
seq 1 30 > f.txt
commit 00:00 base
git checkout -qb br
sed -i 's/^5$/br5/' f.txt
commit 01:00 "br 1"
git checkout -q main
sed -i 's/^5$/main5/' f.txt
commit 02:00 "main 1"
git tag B
git checkout -q br
at 03:00
if git merge -q --no-ff -m "merge main" main > /dev/null 2>&1; then
    echo "setup: expected a conflict on line 5" >&2
    exit 1
fi
git checkout -q --theirs f.txt
git add f.txt
git commit -qm "merge main"
sed -i 's/^20$/twenty/' f.txt
commit 04:00 "br 2"
git checkout -q main
sed -i 's/^25$/twenty-five/' f.txt
commit 05:00 "main 2"
at 06:00
git merge -q --no-ff -m "merge br" br > /dev/null
git tag M
cd - > /dev/null

as replay --repo "$R" --json > "$J"
M=$(git -C "$R" rev-parse M)
check "two merges replayed (the back-merge and the final one)" jqt "$J" \
    '(.merges | length) == 2'
check "br 1 replayed onto B with one path taken from it" jqt "$J" \
    '.stats.replayed_commits == 1 and .stats.replay_conflicts == 1'
check "final merge: base B, clean, never flagged" jqt "$J" \
    "[.merges[] | select(.merge == \"$M\")][0] | .base == \"$(git -C "$R" rev-parse B)\" and .conflicted == false and .first_traffic == null and .end.level == \"clear\""
check "back-merge labelled conflicted" jqt "$J" \
    "[.merges[] | select(.merge != \"$M\")][0] | .conflicted and .conflicted_paths == [\"f.txt\"]"
finish

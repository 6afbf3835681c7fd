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
# and a file/directory conflict, which shares no path:
#   07:00 fd adds the file "node"; 08:00 main adds "node/y.txt"
#   09:00 main merges fd                        conflict; resolution at
#                                               08:00 by the merge channel
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
J="$TMP/out.json"
new_repo "$R"
cd "$R"
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
git checkout -qb fd
echo n > node
commit 07:00 "fd: file node"
git checkout -q main
mkdir node
echo y > node/y.txt
commit 08:00 "main: node/y.txt"
at 09:00
if git merge -q --no-ff -m "merge fd" fd > /dev/null 2>&1; then
    echo "setup: expected a file/directory conflict" >&2
    exit 1
fi
git add -A
git commit -qm "merge fd"
git tag FD
cd - > /dev/null

as replay --repo "$R" --json > "$J"
M=$(git -C "$R" rev-parse M)
check "three merges replayed" jqt "$J" '(.merges | length) == 3'
check "br 1 replayed onto B with one path taken from it" jqt "$J" \
    '.stats.replayed_commits == 1 and .stats.replay_conflicts == 1'
check "final merge: base B, clean, never flagged" jqt "$J" \
    "[.merges[] | select(.merge == \"$M\")][0] | .base == \"$(git -C "$R" rev-parse B)\" and .conflicted == false and .first_traffic == null and .end.level == \"clear\""
check "back-merge labelled conflicted" jqt "$J" \
    "[.merges[] | select(.merge == \"$(git -C "$R" rev-parse M^2^)\")][0] | .conflicted and .conflicted_paths == [\"f.txt\"]"
set +e
git -C "$R" merge-tree --write-tree FD^1 FD^2 > /dev/null 2>&1
rc=$?
set -e
check "git merge-tree: the file/directory merge conflicts" [ "$rc" -eq 1 ]
check "file/directory conflict labelled and caught by the merge channel" jqt "$J" \
    "[.merges[] | select(.merge == \"$(git -C "$R" rev-parse FD)\")][0] | .conflicted and .first_resolution == $(date -u -d 2026-01-01T08:00:00Z +%s) and .first_channel == \"merge\" and .end.level == \"resolution\""
finish

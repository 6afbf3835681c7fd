# t17-replay-empty-own.sh - a side commit replayed onto the base (it forked
# before the merge base; t22) follows git's rule for empty files: never the
# source or the target of a rename (src/git/merge.c, merge_trees_as_git()).
#
# Moved package. br moves pkg/ (an empty __init__.py and mod.py) to lib/pkg/
# before main fills pkg/__init__.py in; br back-merges that:
#   00:00 base        pkg/__init__.py (empty), pkg/mod.py
#   01:00 br 1        git mv pkg lib/pkg                (forks at base)
#   02:00 main 1      fills pkg/__init__.py             = B of the final merge
#   03:00 main 2      edits pkg/__init__.py again
#   04:00 br merges B (modify/delete; br keeps its deletion)
#   05:00 br 2        edits lib/pkg/mod.py
#   06:00 main merges br                                conflict on pkg/__init__.py
# Replayed onto B, br 1 deletes pkg/__init__.py, as git merge-tree B "br 1"
# says (modify/delete, taken from br 1), so at 03:00 the pair merges with a
# conflict: resolution at once. libgit2 alone paired the two empty
# __init__.py files as a rename, carried main's content to lib/pkg and
# warned only at 04:00.
#
# Mode and delete. br makes the empty file e executable; main deletes it,
# then adds it back, executable, with a line; br back-merges (keeps its e).
# Both add e over B, br empty: git merges that cleanly, and the final merge
# must never be in resolution. The replayed br 1 holds its empty e, not the
# content merge_trees_as_git() gives an empty file only for the merge.
. "$(dirname "$0")/lib.sh"
J="$TMP/out.json"
ts() { date -u -d "2026-01-01T$1:00Z" +%s; }

R="$TMP/moved"
new_repo "$R"
cd "$R"
mkdir pkg
: > pkg/__init__.py
seq 1 30 > pkg/mod.py
echo x > k
commit 00:00 base
git checkout -qb br
mkdir lib
git mv pkg lib/pkg
commit 01:00 "br 1"
git tag BR1
git checkout -q main
echo "from .mod import x" > pkg/__init__.py
commit 02:00 "main 1"
git tag B
echo "from .mod import y" >> pkg/__init__.py
commit 03:00 "main 2"
git checkout -q br
at 04:00
if git merge -q --no-ff -m "merge B" B > /dev/null 2>&1; then
    echo "setup: expected a modify/delete conflict" >&2
    exit 1
fi
git rm -q pkg/__init__.py
git commit -qm "merge B"
sed -i 's/^20$/twenty/' lib/pkg/mod.py
commit 05:00 "br 2"
git checkout -q main
at 06:00
if git merge -q --no-ff -m "merge br" br > /dev/null 2>&1; then
    echo "setup: expected a modify/delete conflict" >&2
    exit 1
fi
git rm -q pkg/__init__.py
git commit -qm "merge br"
git tag M

# br 1 replayed onto B as git does it: git merge-tree B BR1, with the path
# it cannot settle taken from br 1 (deleted there).
set +e
git merge-tree --write-tree --name-only B BR1 > "$TMP/mt"
rc=$?
set -e
check "git: br 1 onto B conflicts" [ "$rc" -eq 1 ]
check "git: ... on pkg/__init__.py only" \
    [ "$(awk 'NR > 1 && /^$/ { exit } NR > 1' "$TMP/mt")" = pkg/__init__.py ]
GIT_INDEX_FILE="$TMP/index" git read-tree "$(head -1 "$TMP/mt")"
GIT_INDEX_FILE="$TMP/index" git rm -q --cached pkg/__init__.py
OWN=$(git commit-tree -p B -m own "$(GIT_INDEX_FILE="$TMP/index" git write-tree)")
check "git: the replayed br 1 has lib/pkg/__init__.py empty" \
    [ "$(git rev-parse "$OWN:lib/pkg/__init__.py")" = "$(git hash-object /dev/null)" ]
set +e
git merge-tree --write-tree --name-only main~1 "$OWN" > "$TMP/mt"
rc=$?
set -e
check "git: main 2 and the replayed br 1 conflict" [ "$rc" -eq 1 ]
check "git: ... on pkg/__init__.py only" \
    [ "$(awk 'NR > 1 && /^$/ { exit } NR > 1' "$TMP/mt")" = pkg/__init__.py ]
cd - > /dev/null

# the tree channel weighted (0 by default) shows when the pair met on e
as replay --repo "$R" --json --set weight.tree=0.25 > "$J"
sel="[.merges[] | select(.merge == \"$(git -C "$R" rev-parse M)\")][0]"
check "moved: two merges replayed" jqt "$J" '(.merges | length) == 2'
check "moved: br 1 replayed onto B with one path taken from it" jqt "$J" \
    '.stats.replayed_commits == 1 and .stats.replay_conflicts == 1'
check "moved: final merge based on B, conflicted as git says" jqt "$J" \
    "$sel | .base == \"$(git -C "$R" rev-parse B)\" and .conflicted and .conflicted_paths == [\"pkg/__init__.py\"]"
check "moved: resolution at 03:00 by the merge channel" jqt "$J" \
    "$sel | .first_traffic == $(ts 03:00) and .first_resolution == $(ts 03:00) and .first_channel == \"merge\""
check "moved: main's half-way point in resolution" jqt "$J" \
    "$sel | .sides[0].half == {\"t\": $(ts 03:00), \"risk\": 1, \"level\": \"resolution\"}"
check "moved: in resolution at the end, shared and near" jqt "$J" \
    "$sel | .end.level == \"resolution\" and .end.channels.merge == 1 and .end.shared == 1 and .end.near == 1"

R="$TMP/mode"
new_repo "$R"
cd "$R"
: > e
echo x > k
commit 00:00 base
git checkout -qb br
chmod +x e
commit 01:00 "br 1"
git tag BR1
git checkout -q main
git rm -q e
commit 02:00 "main 1"
git tag B
echo '#!/bin/sh' > e
chmod +x e
commit 03:00 "main 2"
git checkout -q br
at 04:00
if git merge -q --no-ff -m "merge B" B > /dev/null 2>&1; then
    echo "setup: expected a modify/delete conflict" >&2
    exit 1
fi
git add e
git commit -qm "merge B"
echo y >> k
commit 05:00 "br 2"
git checkout -q main
at 06:00
git merge -q --no-ff -m "merge br" br > /dev/null
git tag M
T=$(git merge-tree --write-tree B BR1 | head -1) # modify/delete: e kept
check "git: br 1 onto B keeps its empty executable e" \
    [ "$(git ls-tree "$T" e)" = "$(printf '100755 blob %s\te' "$(git hash-object /dev/null)")" ]
OWN=$(git commit-tree -p B -m own "$T")
check "git: main 2 and the replayed br 1 merge cleanly" \
    git merge-tree --write-tree main~1 "$OWN" > /dev/null
check "git: the final merge is clean" git merge-tree --write-tree M^1 M^2 > /dev/null
cd - > /dev/null

# the tree channel weighted (0 by default) shows when the pair met on e
as replay --repo "$R" --json --set weight.tree=0.25 > "$J"
sel="[.merges[] | select(.merge == \"$(git -C "$R" rev-parse M)\")][0]"
check "mode: br 1 replayed onto B with one path taken from it" jqt "$J" \
    '.stats.replayed_commits == 1 and .stats.replay_conflicts == 1'
check "mode: final merge clean, as git says" jqt "$J" \
    "$sel | .conflicted == false and .conflicted_paths == []"
check "mode: traffic at 03:00 from the tree channel, never resolution" jqt "$J" \
    "$sel | .first_traffic == $(ts 03:00) and .first_channel == \"tree\" and .first_resolution == null"
check "mode: main's half-way point in traffic, no merge conflict" jqt "$J" \
    "$sel | .sides[0].half.t == $(ts 03:00) and .sides[0].half.level == \"traffic\" and .half.channels.merge == 0"
check "mode: no resolution at the end, no merge conflict" jqt "$J" \
    "$sel | .end.level != \"resolution\" and .end.channels.merge == 0"
finish

# t26-merge-differential.sh - airspace's merge verdict against git's on 60
# random two-branch histories (edits, new files, deletions, file and
# directory renames, mode changes; tests/integration/merge_differential.py):
# the label and the conflicted paths must be git merge-tree's on every one,
# and every conflicted merge must be in resolution at the end of its replay
# (the merge channel on the two tips).
. "$(dirname "$0")/lib.sh"
out=$(python3 "$(dirname "$0")/merge_differential.py" "$AIRSPACE_BIN" "$TMP" 0 59) && rc=0 || rc=$?
echo "$out" | tail -5
check "60 random merges: labels and paths agree with git merge-tree, every conflict in resolution at the end" [ "$rc" -eq 0 ]
check "the sample has conflicts in it (at least 10 of 60)" sh -c \
    "echo '$out' | tail -1 | grep -Eq '\\(([1-9][0-9]) conflicted\\)'"
finish

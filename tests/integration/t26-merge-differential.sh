# t26-merge-differential.sh - airspace's merge verdict against git's on
# random two-branch histories (tests/integration/merge_differential.py):
#   60 with edits, new files, deletions, file and directory renames and
#   mode changes: the label and the conflicted paths must be git
#   merge-tree's on every one;
#   60 more that also replace directories by files and files by
#   directories, write binary contents and symbolic links: the label must
#   be git's on every one (git and this merge name some of those paths
#   differently);
# and in both, every conflicted merge must be in resolution at the end of
# its replay (the merge channel on the two tips).
. "$(dirname "$0")/lib.sh"
D="$(dirname "$0")/merge_differential.py"
out=$(python3 "$D" "$AIRSPACE_BIN" "$TMP" 0 59) && rc=0 || rc=$?
echo "$out" | tail -3
check "60 random merges: labels and paths agree with git merge-tree, every conflict in resolution at the end" [ "$rc" -eq 0 ]
check "the sample has conflicts in it (at least 10 of 60)" sh -c \
    "echo '$out' | tail -1 | grep -Eq '\\(([1-9][0-9]) conflicted\\)'"
out=$(python3 "$D" --labels-only --more-kinds "$AIRSPACE_BIN" "$TMP" 0 59) && rc=0 || rc=$?
echo "$out" | tail -3
check "60 more, with files and directories swapped, binaries, symlinks: labels agree, every conflict in resolution at the end" [ "$rc" -eq 0 ]
check "that sample has conflicts in it too" sh -c \
    "echo '$out' | tail -1 | grep -Eq '\\(([1-9][0-9]) conflicted\\)'"
finish

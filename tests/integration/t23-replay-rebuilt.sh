# t23-replay-rebuilt.sh - bench/records_repo.py rebuilds the four-merge
# records fixture as a git repository; git mode replays it and agrees with
# the recorded labels and with git merge-tree:
#   1 a.c lines 10 and 11 on the two sides      conflict
#   2 d/b.c line 5 on both sides, at the end    conflict
#   3 c.c lines 1 and 11                        clean
#   4 e.c vs f.c                                clean
. "$(dirname "$0")/lib.sh"
R="$TMP/rebuilt"
J="$TMP/out.json"
python3 "$AIRSPACE_SOURCE_DIR/bench/records_repo.py" \
    "$AIRSPACE_SOURCE_DIR/tests/cases/records/four.jsonl" "$R" 2> /dev/null
check "4 merges rebuilt on one first-parent chain" \
    [ "$(git -C "$R" rev-list --merges --first-parent main | wc -l)" -eq 4 ]
as replay --repo "$R" --json > "$J"
check "4 merges replayed, 2 conflicted" jqt "$J" \
    '(.merges | length) == 4 and .groups.all.conflicted == 2'
# merge k's commit message is "merge k", k in merge_ct order (all equal
# here: file order)
lab() { # lab K: the label of merge K
    m=$(git -C "$R" log --merges --format='%H %s' | awk -v k="$1" '$3 == k {print $1}')
    jq -r --arg m "$m" '.merges[] | select(.merge == $m) | .conflicted' "$J"
}
check "labels as recorded: true true false false" \
    [ "$(lab 0) $(lab 1) $(lab 2) $(lab 3)" = "true true false false" ]
check "conflicts in resolution at the end, clean ones not flagged" jqt "$J" \
    '.groups.all.end.airspace.traffic | .tp == 2 and .fn == 0 and .fp == 0'
agree=0
for m in $(git -C "$R" rev-list --merges main); do
    if git -C "$R" merge-tree --write-tree "$m^1" "$m^2" > /dev/null 2>&1; then
        want=false
    else
        want=true
    fi
    got=$(jq -r --arg m "$m" '.merges[] | select(.merge == $m) | .conflicted' "$J")
    [ "$want" = "$got" ] && agree=$((agree + 1))
done
check "label = git merge-tree on all 4 ($agree)" [ "$agree" -eq 4 ]
finish

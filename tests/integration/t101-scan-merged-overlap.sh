# t101-scan-merged-overlap.sh - `airspace scan` on two worktrees that change
# the same line: the same edit merges cleanly, so the overlap channel is
# capped at overlap.merged (0.4) and the pair is traffic (both told, neither
# holds), said in --explain;
# different edits conflict: overlap 1, merge 1, resolution.
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
base_repo "$R"
seq 1 40 > a.txt
commit 00:00 lines
git worktree add -q "$TMP/w1" -b w1
git worktree add -q "$TMP/w2" -b w2
sed -i 's/^10$/ten/' "$TMP/w1/a.txt"
sed -i 's/^10$/ten/' "$TMP/w2/a.txt"

pair() { # FILE: the w1-w2 pair
    jq -c '[.pairs[] | select([.a, .b] | sort == ["w1", "w2"])][0]' "$1"
}
as scan --json --explain > "$TMP/same.json"
pair "$TMP/same.json" > "$TMP/p.json"
check "same edit: traffic, overlap capped at 0.4, merge 0" jqt "$TMP/p.json" \
    '.level == "traffic" and .channels.overlap == 0.4 and .channels.merge == 0 and (.risk - 0.4 | fabs) < 1e-9'
check "same edit: the merge ran and was clean" jqt "$TMP/p.json" \
    '.mergeChecked and .evidence.merge.clean and .evidence.merge.paths == []'
check "same edit: the contested line is still shown whole" jqt "$TMP/p.json" \
    '.evidence.contested[0].path == "a.txt" and .evidence.contested[0].oc == 1'
as scan --explain > "$TMP/same.txt"
check "--explain says the merge is clean" \
    grep -q "merge clean: git merges the two, overlap at most 0.40" "$TMP/same.txt"
check "--explain shows the shared path, not weighted" \
    grep -q "tree a.txt ~ a.txt  distance 0.00 (not weighted)" "$TMP/same.txt"
as scan > "$TMP/same-table.txt"
check "the table lists the channels that count: overlap, not the unweighted tree" \
    sh -c "grep -E '^TRAFFIC .* w[12] .* overlap 0.40\$' '$TMP/same-table.txt' &&
        ! grep -q 'tree' '$TMP/same-table.txt'"
as scan --set weight.tree=0.25 > "$TMP/tree-table.txt"
check "... and the tree when it is weighted" grep -q "overlap 0.40, tree 1.00" "$TMP/tree-table.txt"
as scan --json --set overlap.merged=0.3 > "$TMP/low.json"
check "overlap.merged=0.3: overlap 0.3, clear" jqt "$TMP/low.json" \
    '[.pairs[] | select([.a, .b] | sort == ["w1", "w2"])][0] | .channels.overlap == 0.3 and .level == "clear"'

sed -i 's/^ten$/TEN/' "$TMP/w2/a.txt"
as scan --json --explain > "$TMP/diff.json"
pair "$TMP/diff.json" > "$TMP/p.json"
check "different edits: resolution, overlap whole (> 0.99, fresh edits), merge 1" jqt "$TMP/p.json" \
    '.level == "resolution" and .channels.overlap > 0.99 and .channels.merge == 1'
check "different edits: not clean, a.txt conflicts" jqt "$TMP/p.json" \
    '(.evidence.merge.clean | not) and .evidence.merge.paths == ["a.txt"]'
as scan --explain > "$TMP/diff.txt"
check "--explain names the conflict, not a clean merge" \
    sh -c "grep -q 'merge conflicts in a.txt' '$TMP/diff.txt' && ! grep -q 'merge clean' '$TMP/diff.txt'"
finish

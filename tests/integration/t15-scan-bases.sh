# t15-scan-bases.sh - `airspace scan` with agents on different bases: their
# work is compared in the newest base's line coordinates, and the merge
# channel blames a pair only for conflicts between the two agents, never for
# one agent's conflict with what the integration branch did since its base.
#
#   C0: t.txt = "line 1".."line 100" (and, per scenario, more files)
#   alice branches at C0; main then commits C1; bob branches at C1.
. "$(dirname "$0")/lib.sh"

# scenario NAME: a new repository $R (C0 committed on main at 00:00) with
# t.txt, a.txt, d.txt and r.txt, and the worktree alice at C0; cd into $R.
scenario() {
    R="$TMP/$1"
    new_repo "$R"
    seq -f 'line %g' 1 100 > "$R/t.txt"
    seq -f 'a %g' 1 20 > "$R/a.txt"
    seq -f 'd %g' 1 20 > "$R/d.txt"
    seq -f 'r %g' 1 20 > "$R/r.txt"
    cd "$R"
    commit 00:00 C0
    git worktree add -q -b alice "$TMP/$1-alice" main
}

# main_commit MESSAGE: commit the main worktree's changes (C1) and add the
# worktree bob at C1.
main_commit() {
    commit 01:00 "$1"
    git worktree add -q -b bob "$TMP/$S-bob" main
}

J="$TMP/scan.json"
pair() { # pair A B FILTER-on-the-pair
    jq -r --arg a "$1" --arg b "$2" \
        "[.pairs[] | select((.a==\$a and .b==\$b) or (.a==\$b and .b==\$a))][0] | $3" "$J"
}
# lines AGENT PATH: the agent's changed ranges of PATH, as "s-e,s-e".
lines() {
    jq -r --arg a "$1" --arg p "$2" \
        '[.agents[] | select(.id==$a) | .files[] | select(.path==$p) | .lines[]? | "\(.[0])-\(.[1])"] | join(",")' "$J"
}
# status AGENT PATH: the status of PATH in the agent's working set, or "".
status() {
    jq -r --arg a "$1" --arg p "$2" \
        '[.agents[] | select(.id==$a) | .files[] | select(.path==$p) | .status][0] // ""' "$J"
}
# top50: insert 50 new lines at the top of t.txt in the main worktree.
top50() {
    { seq -f 'new %g' 1 50; cat t.txt; } > t.tmp && mv t.tmp t.txt
}

# --- A1: the same text line on different bases (line 10 of C0 is line 60
# of C1): an overlap, found in C1's coordinates, and a real merge conflict.
S=a1
scenario $S
top50
main_commit "insert 50 lines"
sed -i 's/^line 10$/alice 10/' "$TMP/$S-alice/t.txt"
sed -i 's/^line 10$/bob 10/' "$TMP/$S-bob/t.txt"
as scan --json --explain > "$J"
check "A1: alice's base is now C1 (the newest base)" \
    [ "$(jq -r '.agents[] | select(.id=="alice") | .base' "$J")" = "$(git rev-parse main)" ]
check "A1: alice's edit is at line 60 of C1" [ "$(lines alice t.txt)" = 60-60 ]
check "A1: bob's edit is at line 60 of C1" [ "$(lines bob t.txt)" = 60-60 ]
check "A1: alice-bob resolution" [ "$(pair alice bob .level)" = resolution ]
check "A1: alice-bob overlap near 1" [ "$(pair alice bob '.channels.overlap > 0.9')" = true ]
check "A1: contested lines around 60" \
    [ "$(pair alice bob '.evidence.contested[0].ranges[0] | "\(.[0])-\(.[1])"')" = 59-61 ]
check "A1: a true pair conflict across bases: merge 1" \
    [ "$(pair alice bob .channels.merge)" = 1 ]
check "A1: merge evidence names t.txt" \
    [ "$(pair alice bob '.evidence.merge.paths | join(" ")')" = t.txt ]
check "A1: alice still one worktree, nothing committed" jqt "$J" \
    '.agents[] | select(.id=="alice") | .commitsAhead == 0'

# --- A2: line 10 of C0 and line 10 of C1 are different text lines: no
# overlap, no conflict.
S=a2
scenario $S
top50
main_commit "insert 50 lines"
sed -i 's/^line 10$/alice 10/' "$TMP/$S-alice/t.txt"
sed -i 's/^new 10$/bob 10/' "$TMP/$S-bob/t.txt"
as scan --json --explain > "$J"
check "A2: alice's edit is at line 60 of C1" [ "$(lines alice t.txt)" = 60-60 ]
check "A2: bob's edit is at line 10" [ "$(lines bob t.txt)" = 10-10 ]
check "A2: alice-bob overlap 0" [ "$(pair alice bob .channels.overlap)" = 0 ]
check "A2: alice-bob merge 0" [ "$(pair alice bob .channels.merge)" = 0 ]
check "A2: alice-bob not a resolution" [ "$(pair alice bob .level)" != resolution ]
check "A2: no contested ranges" \
    [ "$(pair alice bob '.evidence.contested // [] | length')" = 0 ]

# --- B: alice (C0) and main's C1 both change line 10; bob (C1) changes line
# 80 only. alice's conflict with main is none of bob's business.
S=b
scenario $S
sed -i 's/^line 10$/main 10/' t.txt
main_commit "main edits line 10"
sed -i 's/^line 10$/alice 10/' "$TMP/$S-alice/t.txt"
sed -i 's/^line 80$/bob 80/' "$TMP/$S-bob/t.txt"
as scan --json --explain > "$J"
check "B: alice's work, on C1, still changes line 10" [ "$(lines alice t.txt)" = 10-10 ]
check "B: alice-bob merged speculatively" [ "$(pair alice bob .mergeChecked)" = true ]
check "B: alice-bob merge 0 (main's conflict is not the pair's)" \
    [ "$(pair alice bob .channels.merge)" = 0 ]
check "B: alice-bob no merge evidence" \
    [ "$(pair alice bob '.evidence.merge.paths // [] | length')" = 0 ]
check "B: alice-bob overlap 0" [ "$(pair alice bob .channels.overlap)" = 0 ]
check "B: alice-bob not a resolution" [ "$(pair alice bob .level)" != resolution ]
check "B: no resolution at all" jqt "$J" '.summary.resolution == 0'
check "B: alice's own conflict with main is hers: t.txt" \
    jqt "$J" '[.agents[] | select(.id=="alice") | .integrationConflicts] == [["t.txt"]]'
check "B: bob, on C1, has none" \
    jqt "$J" '[.agents[] | select(.id=="bob") | .integrationConflicts] == [[]]'
as scan > "$TMP/table"
check "B: the table says alice conflicts with main in t.txt" \
    grep -qx "alice conflicts with what main changed since it began, in t.txt: merge or rebase onto main to settle it" "$TMP/table"
check "B: ... and nothing of bob" sh -c "! grep -q '^bob conflicts' '$TMP/table'"
# ... and bob changing the same line as alice does conflict
sed -i 's/^main 10$/bob 10/' "$TMP/$S-bob/t.txt"
as scan --json --explain > "$J"
check "B: bob now changes line 10 too: resolution" [ "$(pair alice bob .level)" = resolution ]
check "B: ... with merge 1" [ "$(pair alice bob .channels.merge)" = 1 ]

# --- M: main deletes a.txt (alice changed it), renames r.txt to s.txt
# (alice changed it), changes d.txt (alice deleted it), all between the
# bases. alice's work is read as C1 sees it: a.txt re-added, her r.txt edit
# on s.txt, d.txt deleted.
S=m
scenario $S
git rm -q a.txt
git mv r.txt s.txt
sed -i 's/^d 3$/main d 3/' d.txt
main_commit "delete a, rename r, edit d"
sed -i 's/^a 5$/alice a 5/' "$TMP/$S-alice/a.txt"
sed -i 's/^r 5$/alice r 5/' "$TMP/$S-alice/r.txt"
rm "$TMP/$S-alice/d.txt"
sed -i 's/^r 5$/bob r 5/' "$TMP/$S-bob/s.txt"
sed -i 's/^r 15$/bob r 15/' "$TMP/$S-bob/s.txt"
as scan --json --explain > "$J" 2> "$TMP/err"
check "M: no warning" test ! -s "$TMP/err"
check "M: alice's a.txt (deleted on main) is added" [ "$(status alice a.txt)" = added ]
check "M: alice's r.txt edit is on s.txt, line 5" [ "$(lines alice s.txt)" = 5-5 ]
check "M: alice has no r.txt" [ "$(status alice r.txt)" = "" ]
check "M: alice's d.txt (changed on main) is deleted" [ "$(status alice d.txt)" = deleted ]
check "M: bob's s.txt lines 5 and 15" [ "$(lines bob s.txt)" = "5-5,15-15" ]
check "M: alice-bob overlap on s.txt: resolution" [ "$(pair alice bob .level)" = resolution ]
check "M: contested path s.txt" \
    [ "$(pair alice bob '.evidence.contested[0].path')" = s.txt ]
check "M: merge conflict on s.txt only" \
    [ "$(pair alice bob '.evidence.merge.paths | join(" ")')" = s.txt ]
check "M: alice conflicts with main on a.txt and d.txt (not on the rename)" \
    jqt "$J" '[.agents[] | select(.id=="alice") | .integrationConflicts] == [["a.txt", "d.txt"]]'

# --- The same with committed work and --branches: carol (a branch, no
# worktree) at C0 changes t.txt line 10, committed; dan at C1 changes line 60.
S=br
scenario $S
top50
commit 01:00 "insert 50 lines"
git branch carol main~1
git branch dan main
git worktree add -q "$TMP/$S-carol" carol
sed -i 's/^line 10$/carol 10/' "$TMP/$S-carol/t.txt"
git -C "$TMP/$S-carol" commit -qam carol
git worktree remove "$TMP/$S-carol"
git worktree add -q "$TMP/$S-dan" dan
sed -i 's/^line 10$/dan 10/' "$TMP/$S-dan/t.txt"
git -C "$TMP/$S-dan" commit -qam dan
git worktree remove "$TMP/$S-dan"
as scan --branches --json --explain > "$J"
check "branches: carol keeps her commit count" jqt "$J" \
    '.agents[] | select(.id=="carol") | .commitsAhead == 1'
check "branches: carol's edit at line 60" [ "$(lines carol t.txt)" = 60-60 ]
check "branches: carol-dan resolution with merge 1" \
    [ "$(pair carol dan .level) $(pair carol dan .channels.merge)" = "resolution 1" ]
check "branches: carol-alice (both on C0, t.txt line 10 and none) clear" \
    [ "$(pair alice carol .level)" = clear ]

finish

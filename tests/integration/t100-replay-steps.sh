# t100-replay-steps.sh - `airspace replay --steps K` in git mode: each side
# is scored after ceil(n q / K) of its n commits (q = 1..K) and after its
# half-way commit, the other side brought to its newest commit first, so
# the half-way and end points see the same two working sets as when every
# commit is scored. A merge that conflicted is then walked again, every
# commit scored, until its first warnings: its lead is the same. The
# default is --steps 8; --steps 0 scores every commit.
#   base  00:00  a.txt = 1..40
#   main  00:30 line 5, 02:30 line 20, 04:30 line   merged at 10:00
#         21, 08:30 line 22
#   br    01:00 .. 09:00, one line each: 30, 31,
#         then line 5 at 03:00, then 32 .. 37
# In "conflict" br's line 5 differs from main's (a conflict: resolution at
# 03:00, lead 7 h, with or without steps). In "same" br makes main's very
# edit of line 5 (a clean merge in traffic from 03:00). --steps 2 scores br
# after its 5th and 9th commits and main after its 2nd and 4th: the first
# warning comes at 05:00, when main is brought to its 3rd commit; "same"
# keeps it, "conflict" is walked again and gets 03:00. "same"'s traffic
# is its shared file's: the tree channel is weighted (0.25; 0 by default,
# when main's edit has aged to a weight of 0.18 by 03:00 and the pair stays
# clear), as the walk, not the model, is what is tested here.
. "$(dirname "$0")/lib.sh"
TREE="--set weight.tree=0.25"
ts() { # ts HH:MM: Unix time
    date -u -d "2026-01-01T$1:00Z" +%s
}
history() { # history DIR BR5: the history above, br's line 5 set to BR5
    new_repo "$1"
    cd "$1"
    seq 1 40 > a.txt
    commit 00:00 base
    git checkout -q -b br
    h=1
    for line in 30 31 5 32 33 34 35 36 37; do
        if [ "$line" = 5 ]; then
            sed -i "5s/.*/$2/" a.txt
        else
            sed -i "${line}s/.*/br$line/" a.txt
        fi
        commit "0$h:00" "br line $line"
        h=$((h + 1))
    done
    git checkout -q main
    sed -i '5s/.*/main5/' a.txt
    commit 00:30 "main line 5"
    for hm in 02:30/20 04:30/21 08:30/22; do
        sed -i "${hm#*/}s/.*/main${hm#*/}/" a.txt
        commit "${hm%/*}" "main line ${hm#*/}"
    done
    at 10:00
    git merge -q --no-ff -m "merge br" br > /dev/null 2>&1 || true
    git checkout -q --theirs .
    git add -A
    git commit -qm "merge br" > /dev/null 2>&1 || true
    cd - > /dev/null
}
R="$TMP/conflict"
S="$TMP/same"
history "$R" br5
history "$S" main5
check "conflict: the merge conflicted in git" sh -c "git -C '$R' rev-parse -q --verify HEAD^2 > /dev/null && ! git -C '$R' merge-tree --write-tree HEAD^1 HEAD^2 > /dev/null"
check "same: the merge was clean in git" git -C "$S" merge-tree --write-tree HEAD^1 HEAD^2

for d in conflict same; do
    as replay --repo "$TMP/$d" $TREE --json --steps 0 > "$TMP/$d-all.json"
    as replay --repo "$TMP/$d" $TREE --json > "$TMP/$d-def.json"
    as replay --repo "$TMP/$d" $TREE --json --steps 8 > "$TMP/$d-s8.json"
    as replay --repo "$TMP/$d" $TREE --json --steps 9 > "$TMP/$d-s9.json"
    as replay --repo "$TMP/$d" $TREE --json --steps 2 > "$TMP/$d-s2.json"
    check "$d: --steps 8 is the default" \
        jqsame 'del(.stats)' "$TMP/$d-def.json" "$TMP/$d-s8.json"
    check "$d: --steps 9 on sides of 9 and 4 commits scores every one" \
        jqsame 'del(.stats)' "$TMP/$d-all.json" "$TMP/$d-s9.json"
done
check "same, the default: br's 9 commits scored but its 1st" jqt "$TMP/same-def.json" \
    ".merges[0] | .first_traffic == $(ts 03:00) and .half.commits == [3, 5]"
check "conflict: resolution at br's 3rd commit, lead 7 h" jqt "$TMP/conflict-all.json" \
    ".merges[0] | .conflicted and .first_resolution == $(ts 03:00) and .lead_s == 25200"
check "conflict, --steps 2: walked again" jqt "$TMP/conflict-s2.json" \
    '.stats.merges_refined == 1'
check "conflict, --steps 2: its first warnings as with every commit" \
    jqsame '.merges[0] | {conflicted, first_traffic, first_resolution, lead_s, lead_fraction, baseline_first, first_channel}' \
    "$TMP/conflict-all.json" "$TMP/conflict-s2.json"
check "... half-way at br's half-way commit, both sides there" jqt "$TMP/conflict-s2.json" \
    ".merges[0].half | .t == $(ts 05:00) and .commits == [3, 5] and .level == \"resolution\""
check "same: clean, traffic from br's 3rd commit" jqt "$TMP/same-all.json" \
    ".merges[0] | (.conflicted | not) and .first_traffic == $(ts 03:00) and .end.level == \"traffic\""
check "same, --steps 2: traffic at br's 5th commit" jqt "$TMP/same-s2.json" \
    ".merges[0] | .first_traffic == $(ts 05:00)"
check "... not walked again" jqt "$TMP/same-s2.json" '.stats.merges_refined == 0'
check "conflict, --steps 9: no side passed over, not walked again" \
    jqt "$TMP/conflict-s9.json" '.stats.merges_refined == 0'
check "same, --steps 2: half-way at br's half-way commit, both sides there" jqt "$TMP/same-s2.json" \
    ".merges[0].half | .t == $(ts 05:00) and .commits == [3, 5] and .files == [1, 1]"
as replay --repo "$S" $TREE --json --steps 3 > "$TMP/same-s3.json"
check "same, --steps 3 scores br's 3rd, 6th, 9th and its half-way 5th commit" \
    jqt "$TMP/same-s3.json" \
    ".merges[0] | .first_traffic == $(ts 03:00) and .half.t == $(ts 05:00) and .half.commits == [3, 5]"

# With recency off (every file weighs 1) the half-way and end points are
# the same pair of working sets and give the same risk and channels.
pts='[.merges[] | .half, .end | {risk, channels, files, commits, t}]'
as replay --repo "$S" $TREE --json --set recency.floor=1 --steps 0 > "$TMP/r0.json"
as replay --repo "$S" $TREE --json --set recency.floor=1 --steps 2 > "$TMP/r2.json"
check "same, --steps 2, recency off: half-way and end as with every commit" \
    jqsame "$pts" "$TMP/r0.json" "$TMP/r2.json"
check "... and they are not empty" jqt "$TMP/r2.json" \
    '.merges[0].end.channels.overlap > 0 and .merges[0].half.channels.overlap > 0'

# progress on stderr: asked for (--progress), a line per second and the
# last; not asked for and not a terminal, nothing
as replay --repo "$S" $TREE --json --progress > /dev/null 2> "$TMP/progress.err"
check "--progress: the merges known, then all done" \
    sh -c "head -1 '$TMP/progress.err' | grep -qx 'airspace replay: 0/1 merges' &&
        tail -1 '$TMP/progress.err' | grep -qx 'airspace replay: 1/1 merges'"
as replay --repo "$S" $TREE --json > /dev/null 2> "$TMP/quiet.err"
check "no --progress, stderr not a terminal: nothing on stderr" test ! -s "$TMP/quiet.err"

set +e
as replay --records "$TMP/none.jsonl" --progress > /dev/null 2> "$TMP/err5"
rc5=$?
as replay --repo "$S" --steps -1 > /dev/null 2> "$TMP/err1"
rc1=$?
as replay --repo "$S" --steps 1001 > /dev/null 2>&1
rc2=$?
as replay --repo "$S" --steps two > /dev/null 2>&1
rc3=$?
as replay --records "$TMP/none.jsonl" --steps 2 > /dev/null 2> "$TMP/err4"
rc4=$?
set -e
check "--steps -1: usage (got $rc1)" [ "$rc1" -eq 2 ]
check "it is named" grep -q -- "--steps" "$TMP/err1"
check "--steps 1001: usage (got $rc2)" [ "$rc2" -eq 2 ]
check "--steps two: usage (got $rc3)" [ "$rc3" -eq 2 ]
check "--steps with --records: usage (got $rc4)" [ "$rc4" -eq 2 ]
check "it says why" grep -q -- "--steps" "$TMP/err4"
check "--progress with --records: usage (got $rc5)" [ "$rc5" -eq 2 ]
check "it says why" grep -q -- "--progress" "$TMP/err5"
finish

# t100-replay-steps.sh - `airspace replay --steps K` in git mode: each side
# is scored after ceil(n q / K) of its n commits (q = 1..K) and after its
# half-way commit, the other side brought to its newest commit first, so
# the half-way and end points see the same two working sets as when every
# commit is scored; only the commits passed over are not scored.
#   base  00:00  a.txt = 1..40
#   main  00:30 line 5, 02:30 line 20, 04:30 line   merged at 10:00: a
#         21, 08:30 line 22                          conflict on line 5,
#   br    01:00 .. 09:00, one line each: 30, 31,    from br's 3rd commit
#         then line 5 at 03:00, then 32 .. 37
# Every commit scored: resolution at 03:00 (lead 7 h). --steps 2 scores br
# after its 5th and 9th commits and main after its 2nd and 4th: resolution
# at 05:00 (lead 5 h), when main is brought to its 3rd commit (04:30).
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
new_repo "$R"
cd "$R"
ts() { # ts HH:MM: Unix time
    date -u -d "2026-01-01T$1:00Z" +%s
}
seq 1 40 > a.txt
commit 00:00 base
git checkout -q -b br
h=1
for line in 30 31 5 32 33 34 35 36 37; do
    sed -i "${line}s/.*/br$line/" a.txt
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
if git merge -q --no-ff -m "merge br" br > /dev/null 2>&1; then
    fail "the merge was meant to conflict"
fi
git checkout -q --theirs .
git add -A
git commit -qm "merge br"
cd - > /dev/null

norm() { jq -S 'del(.stats)' "$1"; }
as replay --repo "$R" --json > "$TMP/all.json"
as replay --repo "$R" --json --steps 0 > "$TMP/s0.json"
as replay --repo "$R" --json --steps 9 > "$TMP/s9.json"
as replay --repo "$R" --json --steps 2 > "$TMP/s2.json"
check "--steps 0 is every commit, the default" \
    [ "$(norm "$TMP/all.json")" = "$(norm "$TMP/s0.json")" ]
check "--steps 9 on sides of 9 and 4 commits scores every one" \
    [ "$(norm "$TMP/all.json")" = "$(norm "$TMP/s9.json")" ]
check "every commit: resolution at br's 3rd commit, lead 7 h" jqt "$TMP/all.json" \
    ".merges[0] | .conflicted and .first_resolution == $(ts 03:00) and .lead_s == 25200"
check "--steps 2: resolution at br's 5th commit, lead 5 h" jqt "$TMP/s2.json" \
    ".merges[0] | .conflicted and .first_resolution == $(ts 05:00) and .lead_s == 18000"
check "--steps 2: half-way at br's half-way commit, both sides there" jqt "$TMP/s2.json" \
    ".merges[0].half | .t == $(ts 05:00) and .commits == [3, 5] and .files == [1, 1]"
as replay --repo "$R" --json --steps 3 > "$TMP/s3.json"
check "--steps 3 scores br's 3rd, 6th, 9th and its half-way 5th commit" \
    jqt "$TMP/s3.json" \
    ".merges[0] | .first_resolution == $(ts 03:00) and .half.t == $(ts 05:00) and .half.commits == [3, 5]"

# With recency off (every file weighs 1) the half-way and end points are
# the same pair of working sets and give the same risk and channels.
pts() { jq -S '[.merges[] | {half, end} | .[] | {risk, channels, files, commits, t}]' "$1"; }
as replay --repo "$R" --json --set recency.floor=1 > "$TMP/r0.json"
as replay --repo "$R" --json --set recency.floor=1 --steps 2 > "$TMP/r2.json"
check "--steps 2, recency off: half-way and end as with every commit" \
    [ "$(pts "$TMP/r0.json")" = "$(pts "$TMP/r2.json")" ]
check "... and they are not empty" jqt "$TMP/r2.json" \
    '.merges[0].end.channels.merge == 1 and .merges[0].half.channels.merge == 1'

set +e
as replay --repo "$R" --steps -1 > /dev/null 2> "$TMP/err1"
rc1=$?
as replay --repo "$R" --steps 1001 > /dev/null 2>&1
rc2=$?
as replay --repo "$R" --steps two > /dev/null 2>&1
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
finish

# t21-replay-git.sh - `airspace replay` on a repository whose history is
# built here with fixed commit dates (all UTC, 2026-01-01 + hours), so every
# advisory time and lead time is exact:
#   clean   lib/x.c vs doc/y.md, merged at 03:00       clean, never flagged
#   conf    a.txt line 5 on both sides, merged 06:00   conflict; resolution
#           at 05:00 (the second side's edit), lead 1 h of 1 h in flight
#   ren     r.txt renamed + line 3 changed vs line 3    conflict via rename
#           changed on main, merged 09:00               resolution at 08:00
#   bm      d.txt line 2 (bm), line 20 (main), bm       back-merge: its own
#           merges main's line-20 commit at 11:00 (a    merge is clean and
#           branch merge) while main has gone on to     replayed; the final
#           line 21 (10:30), then line 10 on bm;        merge's base is then
#           merged into main at 12:30                   "main: 220", and
#                                                       "bm 1", forked before
#                                                       it, is replayed onto
#                                                       it: never flagged
#   octo    main merges o1 and o2 at once               skipped: octopus
#   cc      criss-cross: x merges y, y merges x, then   the last is skipped:
#           y merges x again; y merged into main        criss_cross
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
J="$TMP/out.json"
new_repo "$R"
cd "$R"
merge() { # merge HH:MM BRANCH TAG: merge, resolving conflicts with theirs
    at "$1"
    if ! git merge -q --no-ff -m "merge $2" "$2" > /dev/null 2>&1; then
        git checkout -q --theirs . 2> /dev/null || true
        git add -A
        git commit -qm "merge $2"
    fi
    git tag "$3"
}
ts() { # ts HH:MM: Unix time
    date -u -d "2026-01-01T$1:00Z" +%s
}
mkdir lib doc
seq 1 30 > a.txt
seq 101 130 > r.txt
seq 201 230 > d.txt
echo x > lib/x.c
echo y > doc/y.md
commit 00:00 base

# clean parallel work
git checkout -qb clean
echo x2 >> lib/x.c
commit 01:00 "clean 1"
git checkout -q main
echo y2 >> doc/y.md
commit 02:00 "main: doc"
merge 03:00 clean m_clean

# a textual conflict
git checkout -qb conf
sed -i 's/^5$/five/' a.txt
commit 04:00 "conf 1"
git checkout -q main
sed -i 's/^5$/FIVE/' a.txt
commit 05:00 "main: five"
merge 06:00 conf m_conf

# a conflict through a rename
git checkout -qb ren
mkdir sub
git mv r.txt sub/r2.txt
sed -i 's/^103$/one-o-three/' sub/r2.txt
commit 07:00 "ren 1"
git checkout -q main
sed -i 's/^103$/ONE-O-THREE/' r.txt
commit 08:00 "main: 103"
merge 09:00 ren m_ren

# a back-merge of main into a branch
git checkout -qb bm
sed -i 's/^202$/two/' d.txt
commit 09:30 "bm 1"
git checkout -q main
sed -i 's/^220$/twenty/' d.txt
commit 10:00 "main: 220"
git tag main220
sed -i 's/^221$/twenty-one/' d.txt
commit 10:30 "main: 221"
git checkout -q bm
merge 11:00 main220 m_back
sed -i 's/^210$/ten/' d.txt
commit 11:30 "bm 2"
git checkout -q main
echo y3 >> doc/y.md
commit 12:00 "main: doc 2"
merge 12:30 bm m_bm

# an octopus
git checkout -qb o1
echo o1 > o1.txt
commit 13:00 "o1"
git checkout -q main
git checkout -qb o2
echo o2 > o2.txt
commit 13:10 "o2"
git checkout -q main
at 13:20
git merge -q --no-ff -m "octopus" o1 o2 > /dev/null
git tag m_octo

# a criss-cross
git checkout -qb x
echo x1 > x.txt
commit 14:00 "x 1"
git checkout -q main
git checkout -qb y
echo y1 > y.txt
commit 14:10 "y 1"
git checkout -q x
merge 14:20 y m_xy
git checkout -q y
at 14:30
git merge -q --no-ff -m "merge x" x~1 > /dev/null
git tag m_yx
echo y2 >> y.txt
commit 14:40 "y 2"
merge 14:50 x m_cc
git checkout -q main
echo z > z.txt
commit 15:00 "main: z"
merge 15:30 y m_y
cd - > /dev/null

as replay --repo "$R" --json > "$J"
m() { # m TAG FILTER: the filter on the merge tagged TAG
    jqt "$J" "[.merges[] | select(.merge == \"$(git -C "$R" rev-parse "$1")\")] | length == 1 and (.[0] | $2)"
}
check "10 merge commits, 8 replayed" jqt "$J" '.merges_seen == 10 and (.merges | length) == 8'
check "octopus and criss-cross skipped and counted" jqt "$J" \
    '.skipped_by_reason | .octopus == 1 and .criss_cross == 1 and .empty_side == 0 and .no_base == 0 and .large_side == 0'
check "criss-cross merge not replayed" jqt "$J" \
    "[.merges[].merge] | index(\"$(git -C "$R" rev-parse m_cc)\") == null"

check "clean: label and never flagged" m m_clean \
    '.conflicted == false and .first_traffic == null and .first_resolution == null and .lead_s == null and .end.level == "clear" and .mainline'
check "conf: conflicted a.txt" m m_conf \
    '.conflicted and .conflicted_paths == ["a.txt"]'
check "conf: resolution at 05:00 by the merge channel" m m_conf \
    ".first_traffic == $(ts 05:00) and .first_resolution == $(ts 05:00) and .first_channel == \"merge\""
check "conf: lead 1 h of 1 h both in flight" m m_conf \
    ".lead_s == 3600 and .in_flight_s == 3600 and .lead_fraction == 1"
check "conf: half-way and end" m m_conf \
    '.half.level == "resolution" and .end.level == "resolution" and .sides[0].half.level == "resolution" and .sides[1].half.level == "clear"'
check "ren: conflict through the rename" m m_ren \
    ".conflicted and .first_resolution == $(ts 08:00) and .lead_s == 3600 and (.conflicted_paths | index(\"sub/r2.txt\") != null)"
check "back-merge replayed as a branch merge, clean" m m_back \
    '.conflicted == false and .mainline == false and .end.level == "clear"'
check "bm: base after the back-merge, 3 commits on bm, never flagged" m m_bm \
    ".conflicted == false and .mainline and .first_traffic == null and .sides[0].commits == 2 and .sides[1].commits == 3 and .base == \"$(git -C "$R" rev-parse main220)\""
# "bm 1" forked before the base: diffed from the base it would undo main's
# line 220 next to main's line 221 (10:30) and conflict; replayed onto the
# base it is its own line 202 only.
check "bm 1 replayed onto the base, no conflict" jqt "$J" \
    '.stats.replayed_commits == 1 and .stats.replay_conflicts == 0'
check "bm: clear when main edits line 221 at 10:30" m m_bm \
    '.first_resolution == null and .end.level == "clear"'
check "x merges y inside a branch" m m_xy '.mainline == false and .conflicted == false'
check "summary: 8 merges, 2 conflicted, 3 branch merges" jqt "$J" \
    '.groups.all.merges == 8 and .groups.all.conflicted == 2 and .groups.branch.merges == 3 and .groups.mainline.merges == 5'
check "end: airspace catches both conflicts" jqt "$J" \
    '.groups.all.end.airspace.traffic | .tp == 2 and .fn == 0 and .fp == 0'
check "lead median 1 h" jqt "$J" \
    '.groups.all.lead.airspace | .n == 2 and .median_s == 3600 and .median_fraction == 1'

# The label agrees with git merge-tree on every replayed merge.
jq -r '.merges[] | "\(.parents[0]) \(.parents[1]) \(.conflicted)"' "$J" > "$TMP/labels"
agree=0
total=0
while read -r p1 p2 label; do
    total=$((total + 1))
    if git -C "$R" merge-tree --write-tree "$p1" "$p2" > /dev/null 2>&1; then
        want=false
    else
        want=true
    fi
    [ "$want" = "$label" ] && agree=$((agree + 1))
done < "$TMP/labels"
check "label agrees with git merge-tree ($agree of $total)" [ "$agree" -eq "$total" -a "$total" -eq 8 ]

# Options: --max, --rev, --since, the table, errors.
as replay --repo "$R" --json --max 2 > "$J"
check "--max 2: the two newest merge commits" jqt "$J" '.merges_seen == 2'
as replay --repo "$R" --json --rev "m_conf..m_ren" > "$J"
check "--rev range: only the rename merge" jqt "$J" \
    "(.merges | length) == 1 and .merges[0].merge == \"$(git -C "$R" rev-parse m_ren)\""
as replay --repo "$R" --json --since 2026-01-01T12:00 > "$J"
check "--since 12:00: bm, octopus, x/y merges" jqt "$J" '.merges_seen == 6'
as replay --repo "$R" --json --max-side 1 > "$J"
check "--max-side 1 skips the back-merged branch" jqt "$J" '.skipped_by_reason.large_side >= 1'
as replay --repo "$R" > "$TMP/out.txt"
check "table output" grep -q "criss_cross 1" "$TMP/out.txt"
# Nothing in range: one line says so, no blocks of n/a; the JSON keeps its shape.
as replay --repo "$R" --since 2099-01-01 > "$TMP/none.txt"
check "no merges: said in one line" grep -qx "no merge commits in range: nothing to replay" "$TMP/none.txt"
check "no merges: no n/a tables" sh -c "! grep -q 'n/a' '$TMP/none.txt'"
as replay --repo "$R" --json --since 2099-01-01 > "$J"
check "no merges: JSON keeps its groups" jqt "$J" '.merges_seen == 0 and (.merges | length) == 0 and (.groups | has("all"))'
set +e
as replay --repo "$R" --rev nosuch > /dev/null 2> "$TMP/err"
rc=$?
as replay --repo "$R" --since yesterday > /dev/null 2>&1
rc2=$?
as replay --repo "$R" --rev m_conf..nosuch > /dev/null 2>&1
rc3=$?
set -e
check "unknown revision: a usage error (got $rc)" [ "$rc" -eq 2 ]
check "it is named" grep -q "cannot resolve 'nosuch'" "$TMP/err"
check "unknown end of a range: a usage error (got $rc3)" [ "$rc3" -eq 2 ]
check "bad --since: usage" [ "$rc2" -eq 2 ]
finish

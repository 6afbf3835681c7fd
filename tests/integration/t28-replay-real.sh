# t28-replay-real.sh - replay on repositories this project did not make:
# the git fixtures Debian ships in libgit2-fixtures (scripts/setup.sh
# installs it).
#
# redundant.git is a real project's history of a year (Oct 2014 - Oct 2015,
# 810 commits, ten authors, 141 two-parent merges) passed through
# `git fast-export --anonymize`: the commit graph, times and tree shapes are
# the project's own; names, messages and paths are replaced, and every blob
# is one line "anonymous blob N", so two sides that change one file
# differently conflict there as the real lines did or more.
# merge-recursive is a hand-written history with real text (recipes) whose
# branches merge with and without conflicts, criss-cross and octopus
# merges among them.
#
# Checked: the merges replayed and skipped by reason; the label and the
# conflicted paths agree with `git merge-tree --write-tree` on every merge
# replayed; every conflicted merge is in resolution at its end (recall 1.0
# with the merge channel), and no clean merge of redundant.git is.
. "$(dirname "$0")/lib.sh"
FIX=${LIBGIT2_FIXTURES:-/usr/share/doc/libgit2-fixtures/examples}
if [ ! -d "$FIX/redundant.git" ]; then
    echo "FAIL: $FIX/redundant.git missing (scripts/setup.sh installs libgit2-fixtures)" >&2
    exit 1
fi
export LC_ALL=C
# The fixtures belong to root; git refuses to clone from a repository another
# user owns unless it is named safe (in the test's own HOME).
git config --global --add safe.directory '*'

# agree JSON: every merge's label and conflicted paths are git's.
agree() {
    jq -r '.merges[] | "\(.merge) \(.conflicted) \(.parents[0]) \(.parents[1]) \(.conflicted_paths | sort | join(","))"' "$1" |
        while read -r m c p1 p2 paths; do
            rc=0
            git merge-tree --write-tree --name-only -z "$p1" "$p2" > "$TMP/mt" || rc=$?
            case $rc in
            0) gl=false ;;
            1) gl=true ;;
            *) echo "git merge-tree $p1 $p2 failed ($rc)" && continue ;;
            esac
            gp=$(tr '\0' '\n' < "$TMP/mt" | sed -n '2,/^$/p' | grep -v '^$' | sort -u | paste -sd, -)
            [ "$gl" = "$c" ] || echo "label $m: airspace $c, git $gl"
            [ "$gp" = "$paths" ] || echo "paths $m: airspace '$paths', git '$gp'"
        done
}

# redundant.git: a private copy (replay reads only; the copy keeps the
# installed fixture out of reach whatever happens).
git clone -q --mirror "$FIX/redundant.git" "$TMP/red"
cd "$TMP/red"
as replay --rev master --json --per-merge > "$TMP/red.json"
check "redundant: 141 merges seen" jqt "$TMP/red.json" '.merges_seen == 141'
check "redundant: 109 replayed" jqt "$TMP/red.json" '.merges_read == 109'
check "redundant: 32 skipped for an empty side, none otherwise" jqt "$TMP/red.json" \
    '.skipped_by_reason == {"octopus":0,"criss_cross":0,"no_base":0,"empty_side":32,"large_side":0,"shallow":0,"missing_object":0}'
check "redundant: 11 conflicted" jqt "$TMP/red.json" '[.merges[] | select(.conflicted)] | length == 11'
# The same figures on one worker and on three (each owns a run of merges
# and takes chunks from another's when done); only the work counters differ.
for n in 1 3; do
    as replay --rev master --json --per-merge --threads $n > "$TMP/red$n.json"
    check "redundant: --threads $n gives the same figures" \
        jqsame 'del(.stats)' "$TMP/red$n.json" "$TMP/red.json"
done
agree "$TMP/red.json" > "$TMP/red.diff"
check "redundant: labels and paths agree with git merge-tree" [ ! -s "$TMP/red.diff" ]
cat "$TMP/red.diff" >&2
check "redundant: every conflicted merge in resolution at the end" jqt "$TMP/red.json" \
    '[.merges[] | select(.conflicted and .end.level != "resolution")] | length == 0'
check "redundant: summary recall at the end 1.0" jqt "$TMP/red.json" \
    '.groups.all.end.airspace.resolution.recall == 1'
check "redundant: no clean merge in traffic at the end" jqt "$TMP/red.json" \
    '[.merges[] | select((.conflicted | not) and .end.level != "clear")] | length == 0'
# The conflicts are caught by the merge channel (the paths are not parsed:
# no import graph, no symbols), and before the merge commit.
check "redundant: resolution first raised by the merge channel" jqt "$TMP/red.json" \
    '[.merges[] | select(.conflicted) | .first_channel] | unique == ["merge"]'
check "redundant: every warning before the merge (time)" jqt "$TMP/red.json" \
    '[.merges[] | select(.conflicted) | .lead_s > 0] | all'
# A skewed clock: b51c88c6 is dated 2015-08-29 15:30:24 -0700, five days
# before its second parent (2015-09-03 15:20:24 -0700). The merge cannot
# precede what it merges: its time is the parent's, and its lead is not
# negative. 13 of the 109 merges are dated before a parent; every merge's
# time is the later of its own and its parents'.
m=b51c88c6a0babc0d67d022d8dda6174115632f6e
p2t=$(git log -1 --format=%ct "$m^2")
check "redundant: a merge dated before its parent takes the parent's time" \
    jqt "$TMP/red.json" "[.merges[] | select(.merge == \"$m\") | .merge_time == $p2t and .lead_s >= 0 and .lead_fraction <= 1] == [true]"
check "redundant: the merge commit itself is dated earlier" [ "$(git log -1 --format=%ct "$m")" -lt "$p2t" ]
jq -r '.merges[] | "\(.merge) \(.merge_time)"' "$TMP/red.json" | while read -r mm t; do
    want=$(git show -s --format=%ct "$mm" "$mm^1" "$mm^2" | sort -n | tail -1)
    [ "$t" = "$want" ] || echo "$mm: merge_time $t, want $want"
done > "$TMP/times.diff"
check "redundant: merge_time is the latest of the merge's and its parents' times" [ ! -s "$TMP/times.diff" ]
cat "$TMP/times.diff" >&2
check "redundant: 13 merges dated before a parent" \
    [ "$(jq -r '.merges[] | "\(.merge) \(.merge_time)"' "$TMP/red.json" | while read -r mm t; do
        [ "$(git log -1 --format=%ct "$mm")" -lt "$t" ] && echo x; done | wc -l)" -eq 13 ]

# merge-recursive: no single branch reaches every merge. --all walks every
# branch at once; each branch on its own must report what --all reports for
# the merges it reaches.
git clone -q --mirror "$FIX/merge-recursive/.gitted" "$TMP/mr"
cd "$TMP/mr"
as replay --all --json --per-merge > "$TMP/mr-all.json"
check "merge-recursive --all: 27 merges seen, 16 replayed" jqt "$TMP/mr-all.json" \
    '.merges_seen == 27 and .merges_read == 16'
check "merge-recursive --all: 5 octopus and 6 criss-cross merges skipped" jqt "$TMP/mr-all.json" \
    '.skipped_by_reason.octopus == 5 and .skipped_by_reason.criss_cross == 6'
jq -r '.merges[] | "\(.merge) \(.conflicted) \(.end.level)"' "$TMP/mr-all.json" | sort > "$TMP/mr.uniq"
agree "$TMP/mr-all.json" > "$TMP/mr.diff"
: > "$TMP/mr.rows"
for b in $(git for-each-ref --format='%(refname:short)' refs/heads); do
    as replay --rev "$b" --json --per-merge > "$TMP/mr-$b.json"
    agree "$TMP/mr-$b.json" >> "$TMP/mr.diff"
    jq -r '.merges[] | "\(.merge) \(.conflicted) \(.end.level)"' "$TMP/mr-$b.json" >> "$TMP/mr.rows"
done
check "merge-recursive: the branches one by one report what --all does" \
    [ "$(sort -u "$TMP/mr.rows")" = "$(cat "$TMP/mr.uniq")" ]
check "merge-recursive: 12 conflicted" [ "$(grep -c ' true ' "$TMP/mr.uniq")" -eq 12 ]
check "merge-recursive: labels and paths agree with git merge-tree" [ ! -s "$TMP/mr.diff" ]
cat "$TMP/mr.diff" >&2
check "merge-recursive: every conflicted merge in resolution at the end" \
    [ "$(grep -c ' true resolution$' "$TMP/mr.uniq")" -eq 12 ]
check "merge-recursive: branchD-1's three criss-cross merges skipped" jqt "$TMP/mr-branchD-1.json" \
    '.skipped_by_reason.criss_cross == 3 and .merges_read == 2'
check "merge-recursive: branchE's octopus merge skipped" jqt "$TMP/mr-branchE-1.json" \
    '.skipped_by_reason.octopus == 1 and .merges_read == 0'

# --all in a shallow clone (remote-tracking branches are the tips; the walk
# is this project's own): every merge it replays reports what the complete
# repository reports for it.
git clone -q --depth 40 --no-single-branch "file://$FIX/redundant.git" "$TMP/red-shallow" 2> /dev/null
cd "$TMP/red-shallow"
check "shallow: the clone is shallow" [ -s "$(git rev-parse --git-dir)/shallow" ]
as replay --all --json --per-merge > "$TMP/rs.json"
check "shallow --all: some merges replayed, some cut off" jqt "$TMP/rs.json" \
    '.merges_read > 0 and .skipped_by_reason.shallow > 0'
jq -r '.merges[] | "\(.merge) \(.conflicted) \(.half.level) \(.end.level) \(.first_traffic)"' "$TMP/rs.json" | sort > "$TMP/rs.rows"
cd "$TMP/red"
as replay --all --json --per-merge > "$TMP/red-all.json"
check "redundant --all: 142 merges seen (one more on a side branch), 110 replayed" \
    jqt "$TMP/red-all.json" '.merges_seen == 142 and .merges_read == 110'
jq -r '.merges[] | "\(.merge) \(.conflicted) \(.half.level) \(.end.level) \(.first_traffic)"' "$TMP/red-all.json" | sort > "$TMP/ra.rows"
check "shallow --all: every merge as in the complete repository" \
    [ -z "$(comm -23 "$TMP/rs.rows" "$TMP/ra.rows")" ]
as replay --all --rev master > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "--all with --rev: a usage error" [ "$rc" -eq 2 ]
check "--all with --rev: says why" grep -q -- "--all and --rev" "$TMP/err"
finish

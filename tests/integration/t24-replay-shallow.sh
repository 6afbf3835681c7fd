# t24-replay-shallow.sh - replay in a shallow clone: the cut's commits are
# roots, a merge whose history reaches past the cut is skipped and counted
# as "shallow", and every merge replayed there reports exactly what the
# complete repository reports for it.
#
# History (main's first-parent chain, oldest first):
#   00:00 base          f.txt 1..40, g.txt 1..40
#   01:00 old           forks from base: line 5 -> old5
#   02:00..05:00 main   four commits, the first sets line 5 -> main5
#   06:00 main merges old               conflict (old side forks at base)
#   07:00 nb            forks here: g.txt line 30
#   08:00 main          g.txt line 10
#   09:00 main merges nb                clean
#   10:00 cf            forks here: f.txt line 20 -> cf20
#   11:00 main          f.txt line 20 -> main20
#   12:00 main merges cf                conflict
#   13:00 bm            forks here: g.txt line 35
#   14:00 main          f.txt line 38
#   15:00 bm merges main (back-merge); 16:00 bm: g.txt line 36
#   17:00 main          g.txt line 2
#   18:00 main merges bm                clean; bm's back-merge makes 14:00
#                                       its base and 13:00 a side commit
#                                       that does not contain it
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
new_repo "$R"
cd "$R"
edit() { # edit FILE LINE NEW
    sed -i "$2s/.*/$3/" "$1"
}
merge() { # merge TIME BRANCH [conflict]
    at "$1"
    if git merge -q --no-ff -m "merge $2" "$2" > /dev/null 2>&1; then
        [ $# -lt 3 ] || { echo "setup: merging $2 should conflict" >&2; exit 1; }
    else
        [ $# -ge 3 ] || { echo "setup: merging $2 conflicted" >&2; exit 1; }
        git checkout -q --ours .
        git add -A
        git commit -qm "merge $2"
    fi
}
seq 1 40 > f.txt
seq 1 40 > g.txt
commit 00:00 base
git checkout -qb old
edit f.txt 5 old5
commit 01:00 old
git checkout -q main
edit f.txt 5 main5
commit 02:00 "main 1"
for t in 03 04 05; do
    echo "$t" >> "h$t.txt"
    commit "$t:00" "main $t"
done
merge 06:00 old conflict
git checkout -qb nb
edit g.txt 30 nb30
commit 07:00 nb
git checkout -q main
edit g.txt 10 main10
commit 08:00 "main 8"
merge 09:00 nb
git checkout -qb cf
edit f.txt 20 cf20
commit 10:00 cf
git checkout -q main
edit f.txt 20 main20
commit 11:00 "main 11"
merge 12:00 cf conflict
git checkout -qb bm
edit g.txt 35 bm35
commit 13:00 "bm 1"
git checkout -q main
edit f.txt 38 main38
commit 14:00 "main 14"
git checkout -q bm
merge 15:00 main
edit g.txt 36 bm36
commit 16:00 "bm 2"
git checkout -q main
edit g.txt 2 main2
commit 17:00 "main 17"
merge 18:00 bm

# The forward channel reads the merges before each base, which a shallow
# clone lacks (its table is empty there): off on both sides, so what is
# compared is the rest of the pipeline.
as replay --json --per-merge --set weight.forward=0 > "$TMP/full.json"
check "complete repository: 5 merges replayed, none shallow" jqt "$TMP/full.json" \
    '.merges_seen == 5 and (.merges | length) == 5 and .skipped_by_reason.shallow == 0'
check "complete repository: labels (old, nb, cf, main into bm, bm) conflict, clean, conflict, clean, clean" jqt "$TMP/full.json" \
    '[.merges[].conflicted] == [true, false, true, false, false]'
check "complete repository: bm's first commit replayed onto the base" jqt "$TMP/full.json" \
    '.stats.replayed_commits >= 1'

# replay_shallow DEPTH [ARGS...]: clone with --depth DEPTH, replay there.
replay_shallow() {
    d=$1
    shift
    rm -rf "$TMP/sh"
    git clone -q --depth "$d" "file://$R" "$TMP/sh"
    (cd "$TMP/sh" && as replay --json --per-merge --set weight.forward=0 "$@" > "$TMP/sh.json" 2> "$TMP/sh.err")
}
# replayed_as_full I...: the clone replayed exactly the complete
# repository's merges I... (0 = oldest), each reported identically.
replayed_as_full() {
    jq -e --slurpfile full "$TMP/full.json" --argjson want "[$(echo "$*" | tr " " ",")]" \
        '[.merges[].merge] == [$want[] as $i | $full[0].merges[$i].merge] and
         ([.merges[] as $m | ($full[0].merges[] | select(.merge == $m.merge)) == $m] | all)' \
        "$TMP/sh.json" > /dev/null
}

# Depth 1: HEAD (the merge of bm) is the cut; its parents are not here.
replay_shallow 1
check "depth 1: runs, no error" test ! -s "$TMP/sh.err"
check "depth 1: the merge at the cut is skipped as shallow" jqt "$TMP/sh.json" \
    '.merges_seen == 1 and (.merges | length) == 0 and .skipped_by_reason.shallow == 1'

# Depth 4: three merges in reach; each has a side reaching the cut.
replay_shallow 4
check "depth 4: three merges seen, all shallow" jqt "$TMP/sh.json" \
    '.merges_seen == 3 and .skipped_by_reason.shallow == 3 and (.merges | length) == 0'

# Depth 5: the merge of bm and the back-merge into bm are whole here,
# including where bm's first commit forked from main (the merge of cf).
replay_shallow 5
check "depth 5: runs, no error" test ! -s "$TMP/sh.err"
check "depth 5: the back-merge and the merge of bm replayed exactly as in the complete repository" \
    replayed_as_full 3 4
check "depth 5: bm's first commit replayed onto the base here too" jqt "$TMP/sh.json" \
    '.stats.replayed_commits >= 1'
check "depth 5: the merge of cf reaches the cut: shallow" jqt "$TMP/sh.json" \
    '.merges_seen == 3 and .skipped_by_reason.shallow == 1'

# Depth 8: everything but the merge of old, whose side forks at the root.
replay_shallow 8
check "depth 8: four newest merges replayed exactly as in the complete repository" \
    replayed_as_full 1 2 3 4
check "depth 8: the merge of old skipped as shallow; every merge accounted for" jqt "$TMP/sh.json" \
    '.merges_seen == 5 and .skipped_by_reason.shallow == 1 and
     .merges_seen == (.merges | length) + ([.skipped_by_reason[]] | add)'

# A range inside the clone: main 17..HEAD holds the back-merge and the
# merge of bm.
replay_shallow 8 --rev HEAD~1..HEAD
check "depth 8, --rev HEAD~1..HEAD: the two merges of the range" replayed_as_full 3 4

# --max keeps the newest merge commits, as in a complete repository.
replay_shallow 8 --max 2
check "depth 8, --max 2: the two newest merge commits" replayed_as_full 3 4

# Deep enough, git leaves no cut: the complete answer.
replay_shallow 13
check "depth 13: no cut, all five merges" replayed_as_full 0 1 2 3 4
finish

# t77-pipeline-equivalence.sh - replay measures what the daemon says: a
# small history is replayed (`airspace replay --json`), then the same two
# working sets, at half-way and at the end, are put in front of a daemon as
# two worktrees on the merge's base; the daemon's risk, channels and level
# for the pair must be the replay's (docs/decisions/0013-one-pair-pipeline.md).
# Recency is off on both sides (floor 1): replay dates edits by their
# commits, the daemon by the files' modification times.
#   base 00:00   a.txt = 1..30
#   main 01:00   line 5      side 02:00  line 7     half-way: lines 5 and 7,
#   main 03:00   line 10     side 04:00  line 10    overlap 1/3, clean merge
#   merge 05:00  (conflict)                         (under the cap 0.4), one
#                                                   commit each: activity
#                                                   1 - e^(-1/50), R 0.337
#                                                   (clear); end: overlap
#                                                   2/3, merge conflict, R 1
#                                                   (resolution)
. "$(dirname "$0")/lib.sh"
R="$TMP/hist"
D="$TMP/live"
J="$TMP/replay.json"
new_repo "$R"
cd "$R"
seq 1 30 > a.txt
commit 00:00 base
git tag base
git checkout -qb side
sed -i 's/^7$/seven/' a.txt
commit 02:00 "side 1"
git tag side1
sed -i 's/^10$/ten/' a.txt
commit 04:00 "side 2"
git tag side2
git checkout -q main
sed -i 's/^5$/five/' a.txt
commit 01:00 "main 1"
git tag main1
sed -i 's/^10$/TEN/' a.txt
commit 03:00 "main 2"
git tag main2
at 05:00
if ! git merge -q --no-ff -m "merge side" side > /dev/null 2>&1; then
    git checkout -q --theirs .
    git add -A
    git commit -qm "merge side"
fi

as replay --repo "$R" --json --set recency.floor=1 > "$J"
check "one merge replayed, conflicted" jqt "$J" \
    '(.merges | length) == 1 and .merges[0].conflicted'
check "replay: half-way clear, end resolution" jqt "$J" \
    '.merges[0].half.level == "clear" and .merges[0].end.level == "resolution"'

# The live side: a clone whose integration branch is the merge's base, one
# worktree per side.
git clone -q "$R" "$D"
cd "$D"
git reset -q --hard base
git worktree add -q -b s1 "$TMP/s1" main1
git worktree add -q -b s2 "$TMP/s2" side1
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 1000 \
    --set recency.floor=1

pair() { # the s1-s2 advisory, or null
    curl -s --unix-socket "$SOCK" 'http://a/v1/advisories?all=1' |
        jq -c '[.advisories[] | select(.a == "s1" and .b == "s2")][0]'
}
# same POINT: the daemon's pair has the replay's risk, channels and level
# (replay prints six significant digits)
same() {
    pair > "$TMP/live.json"
    jq -e --slurpfile r "$J" --arg p "$1" '
        . as $l | $r[0].merges[0][$p] as $x |
        $l != null and ($l.risk - $x.risk | fabs) < 1e-6 and
        $l.level == $x.level and
        ([$x.channels | to_entries[] |
            ($l.channels[.key] - .value | fabs) < 1e-6] | all)' \
        "$TMP/live.json" > /dev/null
}
wait_same() { # up to 15 s
    n=0
    until same "$1"; do
        sleep 0.05
        n=$((n + 1))
        [ $n -lt 300 ] || return 1
    done
}
check "half-way: the daemon's pair is the replay's" wait_same half
check "half-way: overlap 1/3 (clean merge), activity of one commit each, tree 1 unweighted" \
    jqt "$TMP/live.json" \
    '(.channels | (.overlap - 1/3 | fabs) < 1e-12 and .tree == 1 and .merge == 0
      and (.activity - (1 - (-0.02 | exp)) | fabs) < 1e-12)
     and (.risk - (1 - (2/3) * (1 - 0.3 * (1 - (-0.02 | exp)))) | fabs) < 1e-12'
check "half-way: clear" jqt "$TMP/live.json" '.level == "clear"'

# Both sides move on to their last commits.
git -C "$TMP/s1" reset -q --hard main2
git -C "$TMP/s2" reset -q --hard side2
check "end: the daemon's pair is the replay's" wait_same end
check "end: the merge channel fires on a.txt" jqt "$TMP/live.json" \
    '.channels.merge == 1 and .risk == 1 and .level == "resolution"'
if [ "$FAILED" -gt 0 ]; then
    echo "replay:" >&2
    jq -c '.merges[0] | [.half, .["end"]]' "$J" >&2
    echo "daemon:" >&2
    cat "$TMP/live.json" >&2
fi
finish

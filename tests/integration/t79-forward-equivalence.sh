# t79-forward-equivalence.sh - the forward channel is the same in replay and
# in the daemon: both read the merges reachable from the merge's base (the
# daemon: its integration branch) and score the pair with them
# (docs/risk-model.md, "Forward"). Three past merges each had CHANGELOG
# and a file of its own changed on both sides (clean: far-apart lines):
# s(CHANGELOG) = 6 / (2*3 + 2) = 0.75, each own file 1/8, the median side
# 2 files. The scored merge's sides share nothing at half-way (CHANGELOG on
# one, x.txt on the other, one file each: f/F = 1/2) and their ends
# conflict on CHANGELOG. At half-way
#   r_forward = 1 - (1 - (1 - 0.25^0.5)) * (1 - (1 - 0.875^0.5)^2)^6
#             = 0.512384
# in both, every other channel and R agree; with weight.forward 0 (the
# default) it is 0. The channel is weighted here (FW) to be measured.
# `airspace scan` gives the pair the same forward value, from the table it
# caches in $GIT_COMMON_DIR/airspace/forward.cache (written cold, read
# warm, a truncated file or another commit's table refused and rewritten),
# the daemon then starts from that cache and writes the next commit's
# table there when main moves; a shallow clone caches nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/forward_lib.sh"
FW="--set weight.forward=0.1"
R="$TMP/hist"
D="$TMP/live"
J="$TMP/replay.json"
forward_history "$R"
git checkout -qb side
sed -i 's/^15$/side fifteen/' CHANGELOG
commit 05:00 "side 1"
git tag side1
sed -i 's/^16$/side sixteen/' CHANGELOG
commit 05:20 "side 2"
git checkout -q main
sed -i 's/^5$/five/' x.txt
commit 05:10 "main 1"
git tag main1
sed -i 's/^15$/main fifteen/' CHANGELOG
commit 05:30 "main 2"
at 06:00
if ! git merge -q --no-ff -m "merge side" side > /dev/null 2>&1; then
    git checkout -q --theirs .
    git add -A
    git commit -qm "merge side"
fi
LAST=$(git rev-parse HEAD)

as replay --repo "$R" --json --set recency.floor=1 $FW > "$J"
one() { # the scored merge's record
    jq -c --arg m "$LAST" '.merges[] | select(.merge == $m)' "$J"
}
one > "$TMP/last.json"
check "the last merge replayed, conflicted" jqt "$TMP/last.json" '.conflicted'
check "replay: half-way forward 0.512384, nothing shared" jqt "$TMP/last.json" \
    '(.half.channels.forward - 0.512384 | fabs) < 1e-6 and .half.shared == 0 and
     .half.channels.overlap == 0 and .half.channels.merge == 0'

git clone -q "$R" "$D"
cd "$D"
git reset -q --hard base
git worktree add -q -b s1 "$TMP/s1" side1
git worktree add -q -b s2 "$TMP/s2" main1
# scan: the same pair from the same table, read once and cached
# ($GIT_COMMON_DIR/airspace/forward.cache) for the branch's commit
C="$D/.git/airspace/forward.cache"
scan_pair() { # the s1-s2 pair of a scan
    as scan --json --set recency.floor=1 $FW |
        jq -c '[.pairs[] | select(.a == "s1" and .b == "s2")][0]'
}
fwd_is() { # the scan pair in $1 has the replay's forward value
    jq -e '(.channels.forward - 0.512384 | fabs) < 1e-6' "$1" > /dev/null
}
scan_pair > "$TMP/scan1.json"
check "scan (cold): forward 0.512384" fwd_is "$TMP/scan1.json"
check "scan wrote the cache" test -s "$C"
cp "$C" "$TMP/cache.good"
scan_pair > "$TMP/scan2.json"
check "scan (warm): forward 0.512384" fwd_is "$TMP/scan2.json"
check "scan (warm) left the cache as it was" cmp -s "$C" "$TMP/cache.good"
# a damaged cache is refused and written again
head -c 60 "$TMP/cache.good" > "$C"
scan_pair > "$TMP/scan3.json"
check "scan (truncated cache): forward 0.512384" fwd_is "$TMP/scan3.json"
check "the truncated cache was replaced" cmp -s "$C" "$TMP/cache.good"
# a cache of another commit's table is not taken for this one
as scan --json --integration side1 $FW > /dev/null
check "another commit's cache written" sh -c "! cmp -s '$C' '$TMP/cache.good'"
scan_pair > "$TMP/scan4.json"
check "scan (other commit's cache): forward 0.512384" fwd_is "$TMP/scan4.json"
check "and that commit's cache written back" cmp -s "$C" "$TMP/cache.good"
as scan --json --set recency.floor=1 --set weight.forward=0 |
    jq -c '[.pairs[] | select(.a == "s1" and .b == "s2")][0]' > "$TMP/scan5.json"
check "scan with weight.forward 0: forward 0" jqt "$TMP/scan5.json" \
    '.channels.forward == 0'
# a shallow clone's table (empty: its past is cut) is not cached, as a
# later fetch may complete it
git clone -q --depth 1 "file://$R" "$TMP/shallow"
(cd "$TMP/shallow" && as scan --json $FW > /dev/null)
check "a shallow clone's scan writes no forward cache" \
    test ! -e "$TMP/shallow/.git/airspace/forward.cache"
check "(it did write its graph snapshot)" \
    test -e "$TMP/shallow/.git/airspace/graph.snap"
cd "$D"
# the daemon starts from scan's cache

start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 1000 \
    --set recency.floor=1 $FW

pair() { # the s1-s2 advisory, or null
    curl -s --unix-socket "$SOCK" 'http://a/v1/advisories?all=1' |
        jq -c '[.advisories[] | select(.a == "s1" and .b == "s2")][0]'
}
same() { # the daemon's pair has the replay's half-way risk and channels
    pair > "$TMP/live.json"
    jq -e --slurpfile r "$TMP/last.json" '
        . as $l | $r[0].half as $x |
        $l != null and ($l.risk - $x.risk | fabs) < 1e-6 and
        $l.level == $x.level and
        ([$x.channels | to_entries[] |
            ($l.channels[.key] - .value | fabs) < 1e-6] | all)' \
        "$TMP/live.json" > /dev/null
}
wait_same() { # up to 15 s (the graph and the past are read at start)
    n=0
    until same; do
        sleep 0.05
        n=$((n + 1))
        [ $n -lt 300 ] || return 1
    done
}
check "half-way: the daemon's pair is the replay's" wait_same
check "the daemon's forward channel is 0.512384" jqt "$TMP/live.json" \
    '(.channels.forward - 0.512384 | fabs) < 1e-6'
check "the daemon started from scan's cache (left as it was)" \
    cmp -s "$C" "$TMP/cache.good"
# the branch moves: the daemon reads the past again and caches it
git -C "$D" commit -q --allow-empty -m "main moves"
NEW=$(git -C "$D" rev-parse HEAD)
cached_new() { # the cache holds the table of main's new commit
    n=0
    until grep -q "$NEW" "$C" 2> /dev/null; do
        sleep 0.1
        n=$((n + 1))
        [ $n -lt 100 ] || return 1
    done
}
check "the daemon cached the table of main's new commit" cached_new

# weight 0: the channel is off in both
as replay --repo "$R" --json --set recency.floor=1 --set weight.forward=0 > "$J"
one > "$TMP/last.json"
check "replay with weight.forward 0: forward 0" jqt "$TMP/last.json" \
    '.half.channels.forward == 0'
# the default (weight.forward 0): neither scan nor the daemon reads the
# past or caches a table
kill "$DPID"
wait "$DPID" 2> /dev/null || true
git clone -q "$R" "$TMP/plain"
cd "$TMP/plain"
as scan --json > /dev/null
check "scan with the defaults caches no table" \
    test ! -e .git/airspace/forward.cache
start_daemon --tick-ms 50 --debounce-ms 50
check "nor does the daemon: it says the channel is off" \
    grep -q "forward: off (weight.forward 0), no table read" "$TMP/daemon.log"
check "... and caches nothing" test ! -e .git/airspace/forward.cache
if [ "$FAILED" -gt 0 ]; then
    echo "replay:" >&2
    jq -c '.half' "$TMP/last.json" >&2
    echo "daemon:" >&2
    cat "$TMP/live.json" >&2
fi
finish

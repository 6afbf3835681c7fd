# t07-daemon-forward-follows.sh - the daemon's forward table follows its
# integration branch (docs/risk-model.md, "forward"): read at start, read
# again when the branch moves, not while it stays. The history is t79's:
# three past merges, each with CHANGELOG and a file of its own changed on
# both sides; the pair s1 (CHANGELOG) - s2 (x.txt) shares nothing, one
# file each, the median side 2 files, so with n past merges and
# s(CHANGELOG) = 2n / (2n + 2), each own file 1 / (2n + 2):
#   r = 1 - (1 - s(CL))^0.5 * (1 - (1 - (1 - 1/(2n+2))^0.5)^2)^(2n)
# n = 3: 0.512384. Then a fourth such merge lands on main: n = 4,
# r = 0.562122 (forward.min_rate 0.05 keeps the own files' 0.1).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/forward_lib.sh"
R="$TMP/hist"
D="$TMP/live"
forward_history "$R"
# the merge to land later: a fourth branch like the others
git checkout -qb f4
sed -i "1s/.*/feature 4/" CHANGELOG
echo 4 > f4.txt
commit 04:10 "feature 4"
git checkout -q main
sed -i "30s/.*/main 4/" CHANGELOG
echo 4 > g4.txt
commit 04:20 "main 4"
at 04:30
git merge -q --no-ff -m "merge f4" f4 > /dev/null
git tag land4
# the agents' work, on the merge of f3
git checkout -qb side base
sed -i 's/^15$/side fifteen/' CHANGELOG
commit 05:00 "side 1"
git tag side1
git checkout -qb other base
sed -i 's/^5$/five/' x.txt
commit 05:10 "main 1"
git tag main1
git checkout -q main

git clone -q "$R" "$D"
cd "$D"
git reset -q --hard base
git worktree add -q -b s1 "$TMP/s1" side1
git worktree add -q -b s2 "$TMP/s2" main1
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 1000 \
    --set recency.floor=1 --set forward.min_rate=0.05 --set weight.forward=0.1

expect() { # n past merges: the pair's forward value
    awk -v n="$1" 'BEGIN {
        m = 2 * n + 2; s = 2 * n / m; o = 1 / m
        p = 1 - (1 - o) ^ 0.5
        printf "%.6f", 1 - (1 - s) ^ 0.5 * (1 - p * p) ^ (2 * n) }'
}
fwd() { # the s1-s2 pair's forward channel, or null
    curl -s --unix-socket "$SOCK" 'http://a/v1/advisories?all=1' |
        jq -c '[.advisories[] | select(.a == "s1" and .b == "s2")][0] |
               .channels.forward'
}
wait_fwd() { # up to 30 s for the forward channel to be $1 (+- 1e-6)
    n=0
    until v=$(fwd) && [ "$v" != null ] &&
        awk -v v="$v" -v w="$1" 'BEGIN { d = v - w; exit !(d < 1e-6 && d > -1e-6) }'; do
        sleep 0.1
        n=$((n + 1))
        [ $n -lt 300 ] || { echo "forward: $v, not $1" >&2; return 1; }
    done
}
moves() { grep -c 'reading the past again' "$TMP/daemon.log"; }

R3=$(expect 3)
R4=$(expect 4)
check "the formula gives t79's 0.512384 for three merges" [ "$R3" = 0.512384 ]
check "three past merges at start: forward $R3" wait_fwd "$R3"
# the branch stays: no rebuild however long (the poll is 1 s)
sleep 2.5
check "the branch did not move: nothing read again" [ "$(moves)" = 0 ]
check "still $R3" wait_fwd "$R3"

# a fourth merge lands on the integration branch
git merge -q --ff-only land4
check "merge f4 landed: forward $R4" wait_fwd "$R4"
check "read again once, for the new commit" [ "$(moves)" = 1 ]
check "the log names the new table" grep -q \
    "forward: 4 merges, .* at $(git rev-parse --short=12 land4)" "$TMP/daemon.log"
sleep 1.5
check "read once only" [ "$(moves)" = 1 ]
[ "$FAILED" -eq 0 ] || cat "$TMP/daemon.log" >&2
finish

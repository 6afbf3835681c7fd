# t59-daemon-graph-follows.sh - the daemon's import graph follows its
# integration branch (docs/architecture.md, "The graph at start"): built at
# start, built again on a thread when the branch moves, swapped in and
# every pair scored again. alice changes scale() in lib.c, bob changes
# main.c; at start main.c does not include lib.h, so the pair's
# dependency and symbol channels are 0. Then a commit lands on main that
# makes main.c include lib.h and call scale(): the graph of the new commit
# has the edge, and the pair's dependency channel becomes > 0.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
cd "$R"
cat > lib.h <<'C'
int scale(int x);
C
cat > lib.c <<'C'
#include "lib.h"

int
scale(int x)
{
    return x * 2;
}
C
cat > main.c <<'C'
int
helper(int y)
{
    return y + 1;
}

int
main(void)
{
    return helper(0);
}
C
commit 01:00 base
git tag base
# the commit to land later: main.c includes lib.h and calls scale()
git checkout -qb landing
cat > main.c <<'C'
#include "lib.h"

int
helper(int y)
{
    return y + 1;
}

int
main(void)
{
    return helper(scale(0));
}
C
commit 02:00 "main: call scale"
git tag land
git checkout -q main
git branch -qD landing

git worktree add -q -b alice "$TMP/alice" base
git worktree add -q -b bob "$TMP/bob" base
# alice changes scale(), bob changes helper() in main.c (uncommitted)
sed -i 's/return x \* 2;/return x * 3;/' "$TMP/alice/lib.c"
sed -i 's/return y + 1;/return y + 2;/' "$TMP/bob/main.c"

start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000

channel() { # channel CHANNEL: the alice-bob pair's value ("none": no pair)
    curl -s --unix-socket "$SOCK" 'http://a/v1/advisories?all=1' |
        jq -r --arg c "$1" '[.advisories[] | select((.a=="alice" and .b=="bob")
            or (.a=="bob" and .b=="alice"))][0].channels[$c] // "none"'
}
positive() { # positive CHANNEL
    v=$(channel "$1")
    [ "$v" != none ] && [ "$(awk "BEGIN{print ($v > 0)}")" = 1 ]
}
zero() { [ "$(channel "$1")" = 0 ]; }
wait_for() { # wait_for SECONDS COMMAND...
    lim=$(($1 * 10))
    shift
    n=0
    while ! "$@" && [ $n -lt $lim ]; do sleep 0.1; n=$((n + 1)); done
    "$@"
}
rebuilds() { grep -c 'graph: rebuilt at' "$TMP/daemon.log" || true; }
edges() { curl -s --unix-socket "$SOCK" http://a/v1/status | jq '.index.edges'; }

scored() { [ "$(channel dependency)" != none ]; }
check "the pair is scored" wait_for 20 scored
# the branch stays: nothing rebuilt (the branch is looked at once a second)
sleep 2.5
check "no include at start: dependency 0" zero dependency
check "no include at start: symbol 0" zero symbol
check "the branch did not move: no rebuild" [ "$(rebuilds)" = 0 ]
E0=$(edges)

# the commit lands on the integration branch (fast-forward, as t07 does)
git merge -q --ff-only land
check "main.c includes lib.h now: dependency > 0" wait_for 60 positive dependency
check "the log names the rebuild" grep -q \
    "graph: rebuilt at $(git rev-parse --short=12 land)" "$TMP/daemon.log"
check "the log names the move" grep -q \
    "base: main moved to $(git rev-parse --short=12 land), rebuilding the graph" \
    "$TMP/daemon.log"
check "status reports the rebuilt graph's edges ($E0 before)" \
    [ "$(edges)" -gt "$E0" ]
sleep 1.5
check "rebuilt once only" [ "$(rebuilds)" = 1 ]
# a full rescan keeps the new graph
api POST /v1/refresh
check "refresh answers 200" [ "$CODE" = 200 ]
check "dependency > 0 after a rescan" wait_for 20 positive dependency
[ "$FAILED" -eq 0 ] || cat "$TMP/daemon.log" >&2
finish

# t108-team-symbols.sh - symbol evidence across the daemons of one
# airspace on a shared PostgreSQL store (docs/team.md): what parsing an
# agent's own version found (the names it uses and defines beyond its
# base, the files it newly imports) is published with its working set, so
# a pair scored by the other daemon sees a new call of a function the
# other agent changed. alice (daemon 1) changes add()'s body while bob
# (daemon 2) makes main.c include util.h and call add(); carol (daemon 2)
# changes sub()'s body while dave (daemon 1) adds a file that includes
# util.h and calls sub(). Each pair has symbol evidence on both daemons.
# The node names are fixed so that each pair is scored by the daemon of
# the agent whose function changed, which knows the call only from what
# the other daemon published: without it neither pair has any. SKIP when
# the
# PostgreSQL server programs are not installed.
. "$(dirname "$0")/lib.sh"

. "${AIRSPACE_SOURCE_DIR:?}/tests/pg/team.sh"
team_server

git -c init.defaultBranch=main init -q --bare "$TMP/remote.git"
imports_repo "$TMP/seed"
git -C "$TMP/seed" push -q "$TMP/remote.git" HEAD:main
cd "$TMP"
for k in 1 2; do
    git clone -q "$TMP/remote.git" "$TMP/c$k"
    mkdir -m 700 "$TMP/c$k/.git/airspace"
    git config -f "$TMP/c$k/.git/airspace/config" store.node "node-d$k"
done
git -C "$TMP/c1" worktree add -q -b alice "$TMP/alice" origin/main
git -C "$TMP/c1" worktree add -q -b dave "$TMP/dave" origin/main
git -C "$TMP/c2" worktree add -q -b bob "$TMP/bob" origin/main
git -C "$TMP/c2" worktree add -q -b carol "$TMP/carol" origin/main

# sym K X Y: daemon K's symbol channel for the pair of X and Y (or their
# copies), 0 when there is no pair
sym() {
    req "$1" GET '/v1/advisories?all=1'
    jq -r --arg x "$2" --arg y "$3" '[.advisories[] | select([.a, .b] | map(sub("@.*"; "")) | sort == ([$x, $y] | sort))][0]
        | .channels.symbol // 0' "$TMP/body"
}
has_sym() { [ "$(sym "$@")" != 0 ]; }

start 1
start 2
sed -i 's/    return a + b;/    return a + b + 1;/' "$TMP/alice/src/util.c"
cat > "$TMP/bob/src/main.c" << 'C'
#include "util.h"

int
main(void)
{
    return add(0, 0);
}
C
sed -i 's/    return a - b;/    return a - b - 1;/' "$TMP/carol/src/util.c"
cat > "$TMP/dave/src/extra.c" << 'C'
#include "util.h"

int
extra(void)
{
    int x = 1;
    return sub(x, 2);
}
C
n=0
until { has_sym 1 alice bob && has_sym 2 alice bob && has_sym 1 carol dave &&
    has_sym 2 carol dave; } || [ $n -ge 100 ]; do
    sleep 0.1
    n=$((n + 1))
done
check "daemon 1: alice's add() and bob's new call of it ($(sym 1 alice bob))" \
    has_sym 1 alice bob
check "daemon 2: the same ($(sym 2 alice bob))" has_sym 2 alice bob
check "daemon 1: carol's sub() and dave's new call of it ($(sym 1 carol dave))" \
    has_sym 1 carol dave
check "daemon 2: the same ($(sym 2 carol dave))" has_sym 2 carol dave
# daemon 2 is killed and started again: it mirrors alice anew and asks
# daemon 1, which scores her pair with bob, to send its result again (it
# is sent when it changes; it has not), so daemon 2 has it with nothing
# changed
kill -9 "$P2"
wait "$P2" 2> /dev/null || true
start 2
n=0
until has_sym 2 alice bob || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
check "daemon 2, restarted, has daemon 1's result for alice ~ bob again ($(sym 2 alice bob))" \
    has_sym 2 alice bob

# bob's work is reverted: he flies on with nothing changed, and the pair
# daemon 1 scored ends on daemon 2 too (risk 0 from daemon 1's result);
# the same for dave and the pair daemon 2 scored
risk_on() { # risk_on K X Y: daemon K's risk for the pair, "none" without one
    req "$1" GET '/v1/advisories?all=1'
    jq -r --arg x "$2" --arg y "$3" '[.advisories[] | select([.a, .b] | map(sub("@.*"; "")) | sort == ([$x, $y] | sort))][0]
        | .risk // "none"' "$TMP/body"
}
ended() { case "$(risk_on "$@")" in 0 | none) true ;; *) false ;; esac; }
git -C "$TMP/bob" checkout -q -- src/main.c
rm "$TMP/dave/src/extra.c"
n=0
until { ended 1 alice bob && ended 2 alice bob && ended 1 carol dave && ended 2 carol dave; } || [ $n -ge 100 ]; do
    sleep 0.1
    n=$((n + 1))
done
check "bob's work reverted: daemon 1 ends alice ~ bob ($(risk_on 1 alice bob))" ended 1 alice bob
check "and daemon 2's copy of it ends ($(risk_on 2 alice bob))" ended 2 alice bob
check "dave's work removed: daemon 2 ends carol ~ dave ($(risk_on 2 carol dave))" ended 2 carol dave
check "and daemon 1's copy of it ends ($(risk_on 1 carol dave))" ended 1 carol dave
finish

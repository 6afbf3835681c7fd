# t19-team-wip.sh - work in progress shared through git (docs/team.md):
# two daemons of one airspace on a shared PostgreSQL store, in two clones
# of one bare remote, each with `store.wip-remote = origin`. alice (a
# worktree of clone 1) and bob (a worktree of clone 2) change the same
# line of one file differently, uncommitted: each daemon pushes its
# agent's snapshot as refs/airspace/wip/<node>/<agent>, the other fetches
# it, and the speculative merge of the pair across the daemons finds the
# textual conflict (channel merge 1, a resolution advisory) on both.
# A ref is deleted (on the remote, in its clone, and the other daemon's
# fetched copy) when its agent has nothing to share or leaves, and pushed
# again when there is. An unreachable remote is logged; the daemon goes
# on.
# SKIP when the PostgreSQL server programs are not installed.
. "$(dirname "$0")/lib.sh"

. "${AIRSPACE_SOURCE_DIR:?}/tests/pg/team.sh"
team_server

team_remote 0
for k in 1 2; do
    git clone -q "$TMP/remote.git" "$TMP/c$k"
    mkdir -m 700 "$TMP/c$k/.git/airspace"
    git config -f "$TMP/c$k/.git/airspace/config" store.wip-remote origin
done
git -C "$TMP/c1" worktree add -q -b alice "$TMP/alice" origin/main
git -C "$TMP/c2" worktree add -q -b bob "$TMP/bob" origin/main

# pair K: daemon K's alice/bob pair (bob or alice as a copy, name@daemon)
pair() {
    req "$1" GET '/v1/advisories?all=1'
    jq -c '[.advisories[] | select([.a, .b] | map(sub("@.*"; "")) | sort == ["alice", "bob"])][0] // {}
        | {level, merge: .channels.merge, conflicts: (.mergeConflicts // [])}' "$TMP/body"
}

start 1
start 2
t0=$(ms)
sed -i 's/^line 15$/alice 15/' "$TMP/alice/src/a.c"
sed -i 's/^line 15$/bob 15/' "$TMP/bob/src/a.c"
n=0
until [ "$(pair 1 | jq .merge)" = 1 ] && [ "$(pair 2 | jq .merge)" = 1 ]; do
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 100 ] || break
done
t1=$(ms)
p1=$(pair 1)
p2=$(pair 2)
check "daemon 1: the pair's merge channel sees the conflict ($p1)" \
    [ "$(printf '%s' "$p1" | jq .merge)" = 1 ]
check "daemon 2: the same ($p2)" [ "$(printf '%s' "$p2" | jq .merge)" = 1 ]
check "a resolution advisory on both" \
    [ "$(printf '%s' "$p1" | jq -r .level)/$(printf '%s' "$p2" | jq -r .level)" = resolution/resolution ]
check "the daemon that scored it names the conflicted file" \
    [ "$(printf '%s\n%s' "$p1" "$p2" | jq -s -c 'map(.conflicts) | add | unique')" = '["src/a.c"]' ]
echo "cross-daemon merge conflict: $((t1 - t0)) ms" >&2

git -C "$TMP/remote.git" for-each-ref --format='%(refname)' refs/airspace/wip > "$TMP/refs"
check "the remote has both agents' refs ($(tr '\n' ' ' < "$TMP/refs"))" \
    all "[ \$(grep -c '^refs/airspace/wip/.*/alice\$' '$TMP/refs') = 1 ] && [ \$(grep -c '^refs/airspace/wip/.*/bob\$' '$TMP/refs') = 1 ]"
aref=$(grep '/alice$' "$TMP/refs")
check "alice's ref is a commit on main of her uncommitted file" \
    all "[ \"\$(git -C '$TMP/remote.git' show '$aref:src/a.c' | sed -n 15p)\" = 'alice 15' ] && [ \"\$(git -C '$TMP/remote.git' rev-parse '$aref^')\" = \"\$(git -C '$TMP/remote.git' rev-parse main)\" ]"
check "the work trees were not touched" \
    all "[ -z \"\$(git -C '$TMP/alice' status --porcelain | grep -v '^ M src/a.c')\" ]"

# a rescan drops every snapshot tree it does not read again, the other
# daemon's agent's too: the next mirror pass (2 s) gives it back
req 1 POST /v1/refresh
req 2 POST /v1/refresh
t0=$(ms)
n=0
until [ "$(pair 1 | jq .merge)" = 1 ] && [ "$(pair 2 | jq .merge)" = 1 ]; do
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 60 ] || break
done
check "after a rescan on both, the merge channel is back ($(pair 1), $(($(ms) - t0)) ms)" \
    all "[ $(pair 1 | jq .merge) = 1 ] && [ $(pair 2 | jq .merge) = 1 ]"

# alice changes her line again: a new snapshot is pushed (at most every
# 2 s) and the ref moves
old=$(git -C "$TMP/remote.git" rev-parse "$aref")
sed -i 's/^alice 15$/alice 15 again/' "$TMP/alice/src/a.c"
n=0
until [ "$(git -C "$TMP/remote.git" rev-parse "$aref")" != "$old" ]; do
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 60 ] || break
done
check "alice's ref moved with her work" \
    [ "$(git -C "$TMP/remote.git" show "$aref:src/a.c" | sed -n 15p)" = "alice 15 again" ]

# alice's work is reverted: nothing left to share, her ref is deleted on
# the remote and in clone 1, and daemon 2, whose copy of her left, drops
# the copy it fetched
check "before: clone 2 has the copy of alice's ref it fetched" \
    sh -c "git -C '$TMP/c2' rev-parse -q --verify '$aref' > /dev/null"
git -C "$TMP/alice" checkout -q -- src/a.c
gone() { ! git -C "$1" rev-parse -q --verify "$aref" > /dev/null; }
n=0
until gone "$TMP/remote.git" && gone "$TMP/c1" && gone "$TMP/c2"; do
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 60 ] || break
done
check "alice's work reverted: her ref is gone from the remote" gone "$TMP/remote.git"
check "and from clone 1" gone "$TMP/c1"
check "and clone 2's copy too" gone "$TMP/c2"
git -C "$TMP/remote.git" for-each-ref --format='%(refname)' refs/airspace/wip > "$TMP/refs"
check "bob's ref stays ($(tr '\n' ' ' < "$TMP/refs"))" \
    [ "$(grep -c '/bob$' "$TMP/refs")" = 1 ]
# she changes it again: pushed again
sed -i 's/^line 15$/alice 15 back/' "$TMP/alice/src/a.c"
n=0
until [ "$(git -C "$TMP/remote.git" show "$aref:src/a.c" 2> /dev/null | sed -n 15p)" = "alice 15 back" ]; do
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 60 ] || break
done
check "her work again: her ref is back on the remote" \
    [ "$(git -C "$TMP/remote.git" show "$aref:src/a.c" 2> /dev/null | sed -n 15p)" = "alice 15 back" ]
# the remote out of reach: daemon 2 says so in its log and goes on
git -C "$TMP/c2" remote set-url origin "$TMP/gone.git"
sed -i 's/^bob 15$/bob 15 again/' "$TMP/bob/src/a.c"
n=0
until grep -q "work in progress of bob not shared" "$TMP/d2.log"; do
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 60 ] || break
done
check "an unreachable remote is logged" grep -q "work in progress of bob not shared" "$TMP/d2.log"
req 2 GET /v1/status
check "and daemon 2 still answers" [ "$CODE" = 200 ]
# the remote back: bob's worktree is removed with his work (agent rm
# --force): his work is no longer in flight (not parked), and his ref is
# deleted on the remote
git -C "$TMP/c2" remote set-url origin "$TMP/remote.git"
bobref=$(grep '/bob$' "$TMP/refs")
(cd "$TMP/c2" && "$AIRSPACE_BIN" agent rm --force bob > "$TMP/rm.out" 2>&1)
check "bob's worktree is removed ($(cat "$TMP/rm.out"))" [ ! -d "$TMP/bob" ]
n=0
until ! git -C "$TMP/remote.git" rev-parse -q --verify "$bobref" > /dev/null; do
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 60 ] || break
done
check "bob gone: his ref is gone from the remote" \
    sh -c "! git -C '$TMP/remote.git' rev-parse -q --verify '$bobref'"

req 2 GET /v1/agents/bob
check "bob on daemon 2: not parked, no files" jqt "$TMP/body" '.parked == false and .fileCount == 0'
finish

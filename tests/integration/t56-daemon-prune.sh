# t56-daemon-prune.sh - the daemon cleans orphaned agent worktrees at start
# (DESIGN §5), as `airspace agent prune` does: an agent worktree whose
# directory was removed while the daemon was down is pruned when it starts
# again; its merged branch is deleted, an unmerged one kept; its agent
# exits (its locks released); one worktree.pruned event each, in the
# ledger; the other worktrees are left as they are.
. "$(dirname "$0")/lib.sh"
trap 'as stop > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT

R="$TMP/repo"
base_repo "$R"
LOG="$R/.git/airspace/daemon.log"
agent_field() { # agent_field ID JQ: a field of the daemon's agent ID
    as agents --json | jq -r --arg id "$1" ".agents[] | select(.id == \$id) | $2"
}
quiet() { "$@" > /dev/null; }
stop_daemon() {
    as stop > /dev/null 2>&1 || true
    n=0
    while [ -S "$R/.git/airspace/sock" ] && [ $n -lt 200 ]; do
        sleep 0.05
        n=$((n + 1))
    done
}

# alice: nothing committed (main contains her branch); bob: a commit of
# his own (not merged); carol: untouched, her worktree stays
for a in alice bob carol; do
    as agent new "$a" > /dev/null 2> "$TMP/err" ||
        fail "agent new $a: $(cat "$TMP/err")"
done
WA="$TMP/repo.airspace/alice" WB="$TMP/repo.airspace/bob" WC="$TMP/repo.airspace/carol"
echo b > "$WB/b"
git -C "$WB" add b
git -C "$WB" commit -qm "bob's work"
BOB_TIP=$(git -C "$WB" rev-parse HEAD)
check "alice locks x" quiet as lock --agent alice --reason mine x
check "carol claims b" quiet as claim --agent carol b
check "three agents active" [ "$(as agents --json | jq '[.agents[] | select(.status == "active" and (.id == "alice" or .id == "bob" or .id == "carol"))] | length')" = 3 ]

# the daemon down, two directories removed by hand
stop_daemon
check "the daemon stopped" [ ! -S "$R/.git/airspace/sock" ]
rm -rf "$WA" "$WB"
check "git still lists alice's worktree (prunable)" \
    sh -c "git worktree list --porcelain | grep -qx 'worktree $WA'"

# start: `airspace status` starts the daemon, which prunes first
check "airspace status starts the daemon" sh -c "'$AIRSPACE_BIN' status > /dev/null"
git worktree list --porcelain > "$TMP/wt"
check "alice's worktree is pruned" sh -c "! grep -qx 'worktree $WA' '$TMP/wt'"
check "bob's worktree is pruned" sh -c "! grep -qx 'worktree $WB' '$TMP/wt'"
check "carol's worktree is left" grep -qx "worktree $WC" "$TMP/wt"
check "... its directory and branch untouched" \
    [ "$(git -C "$WC" symbolic-ref --short HEAD)" = airspace/carol ]
check "... clean" [ -z "$(git -C "$WC" status --porcelain)" ]
check "alice's merged branch is deleted" \
    sh -c "! git rev-parse -q --verify refs/heads/airspace/alice > /dev/null"
check "bob's unmerged branch is kept, at his commit" \
    [ "$(git rev-parse refs/heads/airspace/bob)" = "$BOB_TIP" ]
check "alice exited" [ "$(agent_field alice .status)" = exited ]
check "bob exited" [ "$(agent_field bob .status)" = exited ]
check "carol is active" [ "$(agent_field carol .status)" = active ]
as locks --json > "$TMP/locks.json"
check "alice's lock is released" \
    jqt "$TMP/locks.json" '[.locks[] | select(.holder == "alice")] | length == 0'
check "carol's claim is kept" \
    jqt "$TMP/locks.json" '[.locks[] | select(.holder == "carol" and .pattern == "b")] | length == 1'

# the events, from the ledger
as log --type worktree.pruned --json > "$TMP/ev.json"
check "one worktree.pruned event per pruned worktree" \
    [ "$(jq '.events | map(select(.type == "worktree.pruned")) | length' "$TMP/ev.json")" = 2 ]
check "alice's: branch deleted, alice exited" sh -c "jq -e '.events | map(select(.agent == \"alice\"))[0].data | .worktree == \"$WA\" and .branch == \"airspace/alice\" and .branchDeleted == true and .exited == [\"alice\"]' '$TMP/ev.json' > /dev/null"
check "bob's: branch kept (why), his tip" sh -c "jq -e '.events | map(select(.agent == \"bob\"))[0].data | .branchDeleted == false and (.branchKept | type) == \"string\" and .tip == \"$BOB_TIP\" and .exited == [\"bob\"]' '$TMP/ev.json' > /dev/null"
as log --type agent.exited --json > "$TMP/ex.json"
check "agent.exited, reason worktree pruned" \
    [ "$(jq '.events | map(select(.type == "agent.exited" and .data.reason == "worktree pruned")) | map(.agent) | sort | join(",")' "$TMP/ex.json")" = '"alice,bob"' ]
check "the log says what was pruned" grep -q "prune: worktree $WA of agent alice is gone: pruned, branch airspace/alice deleted" "$LOG"
check "... and what was kept" grep -q "prune: worktree $WB of agent bob is gone: pruned, branch airspace/bob kept" "$LOG"

# a second start: nothing more to prune, nobody comes back
stop_daemon
check "restarted" sh -c "'$AIRSPACE_BIN' status > /dev/null"
as log --type worktree.pruned --json > "$TMP/ev2.json"
check "no new worktree.pruned event" \
    [ "$(jq '.events | map(select(.type == "worktree.pruned")) | length' "$TMP/ev2.json")" = 2 ]
check "alice is still exited" [ "$(agent_field alice .status)" = exited ]
check "carol still active" [ "$(agent_field carol .status)" = active ]
finish

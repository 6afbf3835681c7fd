# t102-integration-conflicts.sh - the daemon tells an agent when its work
# conflicts with what the integration branch changed after its base (the
# conflict detector's "integration" shape): told to that agent alone,
# listed by `airspace conflicts` with the branch named, never escalated,
# gone once the agent merges the branch. A change on the branch that merges
# cleanly with the agent's work tells nothing.
. "$(dirname "$0")/lib.sh"
new_repo "$TMP/repo"
cd "$TMP/repo"
seq -f 'line %g' 1 40 > t.txt
commit 00:00 C0
git worktree add -q -b alice "$TMP/alice" main
sed -i 's/^line 10$/alice 10/' "$TMP/alice/t.txt"
(cd "$TMP/alice" && commit 00:10 "alice 10")
start_daemon --window-ms 300

# wait_for FILTER: until jq FILTER is true on GET /v1/conflicts (10 s).
wait_for() {
    n=0
    until api GET /v1/conflicts && jq -e "$1" "$TMP/body" > /dev/null; do
        sleep 0.1
        n=$((n + 1))
        [ $n -lt 100 ] || return 1
    done
}
# wait_base: until every agent's base is main's commit (the daemon saw
# main move and moved alice onto it).
wait_base() {
    head=$(git rev-parse main)
    n=0
    until api GET /v1/agents &&
        jq -e --arg h "$head" '[.agents[] | .base == $h] | all' "$TMP/body" > /dev/null; do
        sleep 0.1
        n=$((n + 1))
        [ $n -lt 100 ] || return 1
    done
}

# main changes line 30, far from alice's line 10: it merges cleanly
sed -i 's/^line 30$/main 30/' t.txt
commit 00:20 "main 30"
check "clean: the daemon moved alice onto main" wait_base
api GET /v1/conflicts
check "clean: nothing listed" jqt "$TMP/body" '.conflicts == []'

# main changes line 10 too: alice's work now conflicts with main
sed -i 's/^line 10$/main 10/' t.txt
commit 00:30 "main 10"
check "conflict: listed" wait_for '.conflicts | length > 0'
# (a loaded daemon may first see main's checkout with line 10 changed and
# not committed: a conflict between alice and the checkout's agent, gone
# with the commit)
wait_for '.conflicts | length == 1 and .[0].shape == "integration"' || true
check "conflict: one, of shape integration, alice with branch main on t.txt ($(jq -c '[.conflicts[] | {shape, agents, branch, file}]' "$TMP/body"))" \
    jqt "$TMP/body" '.conflicts == [.conflicts[0]] and
        (.conflicts[0] | .shape == "integration" and .agents[0] == "alice"
         and .branch == "main" and .file == "t.txt")'
# the daemon restarts: it finds the conflict again, and alice's unread
# notice is not doubled
as stop > /dev/null
wait "$DPID" 2> /dev/null || true
start_daemon --window-ms 300
check "restart: listed again" wait_for '.conflicts | length > 0'
api GET '/v1/agents/alice/inbox?peek=1'
check "restart: one notice waits for alice, not two" \
    jqt "$TMP/body" '[.messages[] | select(.body | test("integration"))] | length == 1'
as inbox --agent alice > "$TMP/alice.inbox"
check "conflict: alice is told, naming the file and the branch" \
    grep -q "\[conflict\] integration: the work of 'alice' conflicts in t.txt with what 'main' changed since it began; merge or rebase onto 'main'" "$TMP/alice.inbox"
as inbox --agent main > "$TMP/main.inbox"
check "conflict: the main worktree's agent is told nothing" \
    sh -c "! grep -q integration '$TMP/main.inbox'"
as conflicts > "$TMP/table"
check "conflicts: the table names the branch" \
    grep -Eq '^integration +alice +branch main +t.txt' "$TMP/table"
sleep 0.6 # twice the window
api GET /v1/conflicts
check "never escalated" jqt "$TMP/body" '.conflicts[0].escalated == false'
api GET /v1/escalations
check "nothing waits for the supervisor" jqt "$TMP/body" '.escalations == []'

# alice merges main and settles the line: the conflict is gone
cd "$TMP/alice"
git merge -q main > /dev/null 2>&1 || true
sed -i -e '/^<<<<<<<\|^=======\|^>>>>>>>/d' -e '/^main 10$/d' t.txt
at 00:40
git commit -qam "merge main"
cd "$TMP/repo"
check "settled: alice's merge ends it" wait_for '.conflicts == []'
finish

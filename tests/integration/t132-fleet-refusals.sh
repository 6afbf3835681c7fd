# t132-fleet-refusals.sh - `fleet up` starts nothing it cannot start
# whole: a lane that is not a glob is a bad fleet file (exit 2, naming the
# file, the agent and the lane) before any worktree, registration or tmux
# session; an agent the daemon refuses to register (more lanes than it
# takes; a directory at its worktree's place that is another repository)
# stops `up` (exit 1, no session) and the agents registered before it leave
# again, their lanes with them. Once the file is right, `up` starts.
. "$(dirname "$0")/lib.sh"

fleet_tmux t132
R="$TMP/repo"
W="$TMP/repo.airspace"
base_repo "$R"
mkdir -p .airspace
start_daemon --tick-ms 50 --rescan-ms 60000
cleanup() {
    as fleet down > /dev/null 2>&1 || :
    tmux kill-server 2> /dev/null || :
    kill $DPID 2> /dev/null && wait $DPID 2> /dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
no_session() { ! tmux has-session 2> /dev/null; }
intents_of() { # intents_of AGENT: how many live intents AGENT has
    api GET "/v1/intents?agent=$1" && jq '.intents | length' "$TMP/body"
}

# ---- a lane that is not a glob: a bad fleet file ----
printf '[agent "x"]\n\tcommand = true\n\tlane = src/**\n\tlane = [\n' > .airspace/fleet
as fleet up > "$TMP/out" 2> "$TMP/err" && st=0 || st=$?
check "a lane that is not a glob: exit 2 (exit $st)" [ "$st" = 2 ]
check "... naming the file" grep -qF "fleet file '$R/.airspace/fleet'" "$TMP/err"
check "... the agent and the lane" grep -qF "agent.x.lane = [: not a glob" "$TMP/err"
check "... no worktree made" [ ! -e "$W/x" ]
check "... no branch made" [ -z "$(git branch --list 'airspace/x')" ]
check "... no session" no_session
api GET /v1/agents/x
check "... nothing registered" [ "$CODE" = 404 ]

if ! command -v tmux > /dev/null; then
    echo "SKIP: no tmux (the registration refusals start a fleet)"
    finish
    exit
fi

# ---- the daemon refuses b's registration: a, registered first, leaves ----
{
    printf '[agent "a"]\n\tcommand = "sleep 300 # %s"\n\tlane = src/a/**\n' "$MARK"
    printf '[agent "b"]\n\tcommand = true\n'
    for n in $(seq 1 65); do printf '\tlane = src/b%s/**\n' "$n"; done
} > .airspace/fleet
as fleet up > "$TMP/out" 2> "$TMP/err" && st=0 || st=$?
check "a refused registration: exit 1 (exit $st)" [ "$st" = 1 ]
check "... saying why" grep -qF "the daemon did not register 'b': 'lanes' must be an array of at most 64 globs" "$TMP/err"
check "... and that nothing started" grep -qF "nothing started" "$TMP/err"
check "... no session" no_session
check "... no fleet up line" [ ! -s "$TMP/out" ]
api GET /v1/agents/a
check "... a, registered before, has left" jqt "$TMP/body" '.status == "exited"'
check "... with its lane" [ "$(intents_of a)" = 0 ]
api GET /v1/agents/b
check "... b is not registered (at most found as a worktree)" \
    [ "$CODE" = 404 -o "$(jq -r '.registered' "$TMP/body")" = false ]
check "... the worktrees are kept for the next up" [ -d "$W/a" -a -d "$W/b" ]

# ---- the place of c's worktree holds another repository ----
git worktree remove --force "$W/b"
git branch -qD airspace/b
new_repo "$W/c"
git -C "$W/c" commit -q --allow-empty -m other
printf '[agent "a"]\n\tcommand = "sleep 300 # %s"\n\tlane = src/a/**\n[agent "c"]\n\tcommand = true\n' \
    "$MARK" > .airspace/fleet
as fleet up > "$TMP/out" 2> "$TMP/err" && st=0 || st=$?
check "another repository at c's worktree: exit 1 (exit $st)" [ "$st" = 1 ]
check "... the daemon says it is no worktree of this repository" \
    grep -qF "the daemon did not register 'c': 'worktree' '$W/c' is not the top of a worktree of this repository" "$TMP/err"
check "... no session" no_session
api GET /v1/agents/a
check "... a has left again" jqt "$TMP/body" '.status == "exited"'
check "... with its lane" [ "$(intents_of a)" = 0 ]
api GET /v1/agents/c
check "... c is not registered" [ "$CODE" = 404 ]

# ---- the file put right: up starts ----
printf '[agent "a"]\n\tcommand = "sleep 300 # %s"\n\tlane = src/a/**\n' "$MARK" > .airspace/fleet
as fleet up > "$TMP/out" 2> "$TMP/err" && st=0 || st=$?
check "the file put right: up (exit $st)" [ "$st" = 0 ]
check "... the session is up" tmux has-session 2> /dev/null
api GET /v1/agents/a
check "... a is registered, active" jqt "$TMP/body" '.status == "active"'
check "... its lane declared" [ "$(intents_of a)" = 1 ]
as fleet down > /dev/null 2>&1
check "fleet down closes it" no_session
finish

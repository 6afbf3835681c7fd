# t68-fleet.sh - `airspace fleet` with the real tmux: three agents from
# .airspace/fleet, at most two at once; one crashes again and again (it is
# restarted after 0.2 s, then 0.4 s, then given up with an event and an
# alert), one runs with children, one finishes. Their worktrees are made
# with the worktreeinclude files copied and setup run, their lanes are
# intents; `fleet status --json`; a second `up` is refused; `fleet down`
# leaves no process behind (by marker and by process group), closes the
# session and keeps the worktree with uncommitted work, saying so. Bad
# fleet files are refused, and an agent named as the main worktree's.
# An agent whose command exits 0 is exited in the daemon at once. A
# setup that failed runs again on the next up, until it succeeded.
. "$(dirname "$0")/lib.sh"

fleet_tmux t68
R="$TMP/repo"
base_repo "$R"
mkdir -p src/net src/crash bin
echo 'int net;' > src/net/a.c
echo 'int crash;' > src/crash/c.c
printf '.env\n.claude/settings.local.json\n' > .gitignore
# steady: a script with a child, both carrying the marker, and one more
# that leaves the process group (setsid), as a daemonizing tool does
cat > bin/steady.sh << EOF
sh -c 'sleep 300; : $MARK-child' &
setsid sh -c 'sleep 300; : $MARK-escaped' &
sleep 300 # $MARK-parent
EOF
commit 00:01 files
echo 'TOKEN=local' > .env
mkdir -p .claude
echo '{"hooks":{}}' > .claude/settings.local.json # not committed
mkdir -p .airspace
echo '.env' > .airspace/worktreeinclude
cat > .airspace/fleet << EOF
[fleet]
	concurrency = 2
	restarts = 2
	backoff = 0.2
[agent "crashy"]
	command = "echo crashing as \$AIRSPACE_AGENT; sleep 0.2; exit 3"
	lane = src/crash/**
[agent "steady"]
	command = "sh bin/steady.sh $MARK"
	lane = src/net/**
	setup = "touch setup-ran"
[agent "late"]
	command = "sleep 1.5; echo done > late.txt"
	lane = docs/**
EOF
start_daemon --tick-ms 50 --rescan-ms 60000
cleanup() {
    as fleet down > /dev/null 2>&1 || :
    tmux kill-server 2> /dev/null || :
    pkill -f "$MARK" 2> /dev/null || :
    kill $DPID 2> /dev/null || :
    rm -rf "$TMP"
}
trap cleanup EXIT

# ---- bad fleet files change nothing ----
cp .airspace/fleet "$TMP/fleet.good"
printf '[agent "a b"]\n\tcommand = x\n' > .airspace/fleet
as fleet up > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "a bad agent name: refused (exit $st)" [ "$st" = 2 ]
check "... naming the key" grep -q "agent.a b.command" "$TMP/err"
printf '[agent "a"]\n\tlane = x\n' > .airspace/fleet
as fleet up > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "an agent without a command: refused" grep -q "agent 'a' has no command" "$TMP/err"
printf '[fleet]\n\tconcurrency = 0\n[agent "a"]\n\tcommand = x\n' > .airspace/fleet
as fleet up > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "concurrency 0: refused" grep -q "fleet.concurrency = 0: want a whole number from 1 to 1000" "$TMP/err"
check "... nothing made" [ ! -e "$TMP/repo.airspace" ]
check "... no session" [ "$(tmux ls 2> /dev/null | wc -l)" = 0 ]
# the main worktree, on main, is agent "main": a fleet agent cannot be
printf '[agent "main"]\n\tcommand = x\n' > .airspace/fleet
as fleet up > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "an agent named as the main worktree's: refused (exit $st)" [ "$st" = 1 ]
check "... as agent new says it" grep -q \
    "agent 'main' already flies (active, in $R): pick another name in '$R/.airspace/fleet'; nothing started" "$TMP/err"
check "... nothing made" [ ! -e "$TMP/repo.airspace" ]
check "... no session" [ "$(tmux ls 2> /dev/null | wc -l)" = 0 ]
cp "$TMP/fleet.good" .airspace/fleet

# ---- up ----
as fleet up --json > "$TMP/up" 2> "$TMP/err" && st=0 || st=$?
check "fleet up: exit 0 ($st: $(cat "$TMP/err"))" [ "$st" = 0 ]
S=$(jq -r .session "$TMP/up")
check "the session is named for the repository" sh -c "echo '$S' | grep -Eq '^airspace-repo-[0-9a-f]{4}$'"
check "three worktrees made, registered" jqt "$TMP/up" \
    '[.agents[] | {name, made, registered}] == [{"name":"crashy","made":true,"registered":true},{"name":"steady","made":true,"registered":true},{"name":"late","made":true,"registered":true}]'
W="$TMP/repo.airspace"
check "the worktreeinclude file is copied" [ "$(cat "$W/steady/.env")" = "TOKEN=local" ]
check "... and listed, after the agent clients' settings agent new copies" jqt "$TMP/up" \
    '.agents[1].copied == [".claude/settings.local.json",".env"]'
check "... which are there too" [ "$(cat "$W/steady/.claude/settings.local.json")" = '{"hooks":{}}' ]
check "setup ran in steady's worktree" [ -e "$W/steady/setup-ran" ]
check "... only there" [ ! -e "$W/crashy/setup-ran" ]
tmux list-windows -t "=$S" -F '#W' > "$TMP/windows"
check "one window per agent and the live view" [ "$(tr '\n' ' ' < "$TMP/windows")" = "top crashy steady late " ]
api GET '/v1/intents?agent=steady'
check "steady's lane is an intent" jqt "$TMP/body" '[.intents[] | select(.agent == "steady") | .files] == [["src/net/**"]]'
as fleet up > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "a second up is refused (exit $st)" [ "$st" = 1 ] && grep -q "the fleet is up already" "$TMP/err"

# ---- crashy: restarted with backoff, then given up ----
# wait_status FILTER: until fleet status --json satisfies it (15 s)
wait_status() {
    n=0
    until as fleet status --json > "$TMP/st" 2> /dev/null && jq -e "$1" "$TMP/st" > /dev/null; do
        n=$((n + 1))
        [ $n -lt 150 ] || { cat "$TMP/st" >&2; return 1; }
        sleep 0.1
    done
}
check "crashy given up after 2 restarts, steady running, late exited" wait_status \
    '[.agents[] | {name, state, restarts}] == [{"name":"crashy","state":"given-up","restarts":2},{"name":"steady","state":"running","restarts":0},{"name":"late","state":"exited","restarts":0}]'
# (its file is read by the watch: a moment, not the 10 minutes of silence)
late_parked() {
    n=0
    until api GET /v1/agents/late && jq -e '.status == "exited" and .parked and .fileCount == 1' "$TMP/body" > /dev/null; do
        n=$((n + 1))
        [ $n -lt 50 ] || { cat "$TMP/body" >&2; return 1; }
        sleep 0.1
    done
}
check "late exited 0: its session is over at once, its work parked" late_parked
check "status: up, lanes, worktrees, why" jqt "$TMP/st" \
    ".up and .concurrency == 2 and .agents[0].lane == [\"src/crash/**\"] and .agents[0].worktree == \"$W/crashy\" and .agents[0].why == \"exit 3\" and (.agents[1].pid > 0)"
as fleet status > "$TMP/out"
check "status as text" grep -Eq '^crashy +given-up +2  src/crash/\*\*' "$TMP/out"
api GET '/v1/ledger?type=fleet.state&agent=crashy'
jq -c '[.events[] | {s: .data.state, w: .data.why, ts}]' "$TMP/body" > "$TMP/crashy"
check "restarts evented: restarting twice, then given up" jqt "$TMP/crashy" \
    '[.[].s | select(. != "queued")] == ["starting","running","restarting","running","restarting","running","given-up"]'
check "... with backoff 0.2 s, then 0.4 s" jqt "$TMP/crashy" \
    '[.[] | select(.s == "restarting") | .w] == ["exit 3; restart 1 of 2 in 0.2s","exit 3; restart 2 of 2 in 0.4s"]'
check "... waited out: 0.4 s before the third run" jqt "$TMP/crashy" \
    '([.[] | select(.s == "restarting")][1].ts) as $r | ([.[] | select(.s == "running" and .ts > $r)][0].ts - $r) >= 390'
api GET '/v1/ledger?type=fleet.given_up'
check "fleet.given_up event" jqt "$TMP/body" '.events[-1].data == {"name":"crashy","restarts":2,"why":"exit 3"}'
as alerts --json > "$TMP/out"
check "... and an alert" jqt "$TMP/out" '[.alerts[] | select(.kind == "fleet-given-up") | .subject] == ["crashy"]'
api GET '/v1/ledger?type=fleet.state'
check "two at most: someone waited for a slot" jqt "$TMP/body" '[.events[] | select(.data.state == "queued")] | length >= 1'
tmux capture-pane -p -t "=$S:crashy" > "$TMP/pane"
check "crashy's window says it was given up" grep -q 'crashy: given-up: exit 3' "$TMP/pane"
check "... after its output, run as AIRSPACE_AGENT=crashy" grep -q '^crashing as crashy$' "$TMP/pane"
n=0
until tmux capture-pane -p -t "=$S:top" | grep -q '^airspace top'; do
    n=$((n + 1))
    [ $n -lt 50 ] || break
    sleep 0.1
done
check "the top window runs the live view" sh -c "tmux capture-pane -p -t '=$S:top' | grep -q '^airspace top'"
n=0
until tmux capture-pane -p -t "=$S:top" | grep -q "fleet-given-up *fleet agent 'crashy' was given up"; do
    n=$((n + 1))
    [ $n -lt 50 ] || break
    sleep 0.1
done
tmux capture-pane -p -t "=$S:top" > "$TMP/top"
check "... which shows the alert" grep -Eq "^ *[0-9]+s +fleet-given-up +fleet agent 'crashy' was given up after 2 restarts: exit 3" "$TMP/top"
check "... under its heading" grep -q "^ALERTS (1; 'airspace alerts')" "$TMP/top"
check "steady and its child run" [ "$(pgrep -f "$MARK" | wc -l)" -ge 2 ]
ESC=$(pgrep -f "$MARK-escaped" | head -1)
check "the setsid child runs, in a process group of its own" sh -c "[ -n '$ESC' ] && [ \"\$(ps -o pgid= -p '$ESC' | tr -d ' ')\" = '$ESC' ]"
PG=$(jq '.agents[1].pid' "$TMP/st")
SPG=$(jq .pgid "$(git rev-parse --git-common-dir)/airspace/fleet/steady.json")
check "steady's command has a process group of its own" [ "$(ps -o pgid= -p "$(pgrep -f "steady.sh $MARK" | head -1)" | tr -d ' ')" = "$SPG" ]

# ---- down ----
echo 'work in progress' > "$W/steady/src/net/b.c"
as fleet down > "$TMP/down" 2> "$TMP/err" && st=0 || st=$?
check "fleet down: exit 0 ($st: $(cat "$TMP/err"))" [ "$st" = 0 ]
check "no process of steady is left (marker), the setsid one neither" [ "$(pgrep -f "$MARK" | wc -l)" = 0 ]
check "... nor in its process group" sh -c "! ps -e -o pgid= | tr -d ' ' | grep -qx '$SPG'"
# gone, or a zombie its parent (the tmux server, itself leaving) has not
# reaped yet
check "no supervisor is left" sh -c "! ps -o stat= -p $PG | grep -qv '^Z'"
check "the session is gone" sh -c "! tmux has-session -t '=$S' 2> /dev/null"
check "steady's worktree stays, with its work" [ "$(cat "$W/steady/src/net/b.c")" = "work in progress" ]
check "... and down says so" grep -Eq "^steady +left in place with uncommitted work \(2 files: setup-ran, src/net/b.c\): $W/steady$" "$TMP/down"
check "the clean ones are kept too, said clean" grep -Eq "^crashy +clean, left in place: $W/crashy$" "$TMP/down"
api GET /v1/agents/steady
check "the daemon: steady exited" jqt "$TMP/body" '.status == "exited"'
as fleet status --json > "$TMP/st"
check "status after down: down, each stopped or exited" jqt "$TMP/st" \
    '(.up | not) and ([.agents[].state] == ["stopped","stopped","exited"])'
as fleet attach > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "attach with the fleet down: exit 1" [ "$st" = 1 ]

# ---- a setup that failed runs again on the next up, until it succeeds
cat > .airspace/fleet << EOF
[agent "deps"]
	command = "test -e deps-ran && echo with-deps > ran-with"
	setup = "test -e $TMP/deps-ok && touch deps-ran"
EOF
as fleet up > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "setup fails: up refused (exit $st)" [ "$st" = 1 ]
check "... saying the next up runs it again" grep -q "setup 'test -e .*' failed (exit 1); its worktree is at $W/deps (the next 'fleet up' runs setup again)" "$TMP/err"
touch "$TMP/deps-ok"
as fleet up --json > "$TMP/up" 2> "$TMP/err" && st=0 || st=$?
check "up again: exit 0 ($st: $(cat "$TMP/err"))" [ "$st" = 0 ]
check "... the worktree reused, setup run" jqt "$TMP/up" '.agents[0].made == false and .agents[0].setup == true'
check "the agent ran with its setup done" wait_status '.agents[0].state == "exited"'
check "... (its output)" [ "$(cat "$W/deps/ran-with" 2> /dev/null)" = with-deps ]
as fleet down > /dev/null 2>&1
rm "$W/deps/deps-ran"
as fleet up --json > "$TMP/up" 2> "$TMP/err" && st=0 || st=$?
check "once it succeeded, the next up does not run it (exit $st)" jqt "$TMP/up" '.agents[0].setup == null'
check "... (no new mark)" [ ! -e "$W/deps/deps-ran" ]
as fleet down > /dev/null 2>&1
finish

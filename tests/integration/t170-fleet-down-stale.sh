# t170-fleet-down-stale.sh - `fleet down` signals only the processes an
# agent's state file names that are provably those: a pid is reused once
# its process is gone, and an agent that exited (or whose supervisor
# died) leaves pids that may be anybody's by now. Here the reuse is
# simulated with decoy processes of the test's own: their pids are put in
# the state files of an agent that exited and of one whose supervisor is
# gone, as its supervisor and its command's process group; `fleet status`
# does not take them for the supervisor, and `fleet down`, twice, leaves
# them running, also with a state file that records no start time (an
# older one). A running agent is still stopped, and the state files
# record each process's start time and the boot.
. "$(dirname "$0")/lib.sh"

fleet_tmux t170
R="$TMP/repo"
base_repo "$R"
mkdir -p .airspace
cat > .airspace/fleet << EOF
[agent "quick"]
	command = "true"
	lane = src/a/**
[agent "dead"]
	command = "true"
	lane = src/b/**
[agent "steady"]
	command = "sleep 300; : $MARK"
	lane = src/c/**
EOF
start_daemon --tick-ms 50 --rescan-ms 60000
D1= D2= D3= D4=
cleanup() {
    as fleet down > /dev/null 2>&1 || :
    tmux kill-server 2> /dev/null || :
    for d in $D1 $D2 $D3 $D4; do kill "$d" 2> /dev/null || :; done
    kill $DPID 2> /dev/null && wait $DPID 2> /dev/null || :
    rm -rf "$TMP"
}
trap cleanup EXIT
F="$(git rev-parse --git-common-dir)/airspace/fleet"

# wait_status FILTER: until fleet status --json satisfies it (15 s)
wait_status() {
    n=0
    until as fleet status --json > "$TMP/st" 2> /dev/null && jq -e "$1" "$TMP/st" > /dev/null; do
        n=$((n + 1))
        [ $n -lt 150 ] || { cat "$TMP/st" >&2; return 1; }
        sleep 0.1
    done
}
as fleet up > /dev/null 2> "$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
check "quick and dead exited, steady running" wait_status \
    '[.agents[].state] == ["exited","exited","running"]'
check "the state file records the start times and the boot" jqt "$F/steady.json" \
    '.pidStart > 0 and .pgidStart > 0 and .pgid > 0 and (.boot | length) > 0'
check "... and no process group once the command is done" jqt "$F/quick.json" \
    '.pgid == 0 and .pgidStart == 0'

# the decoys: unrelated processes, each leading a process group of its own
setsid sleep 600 &
D1=$!
setsid sleep 600 &
D2=$!
setsid sleep 600 &
D3=$!
setsid sleep 600 &
D4=$!
sleep 0.2
decoys_alive() {
    for d in "$@"; do
        (tr '\0' ' ' < "/proc/$d/cmdline") 2> /dev/null | grep -q '^sleep 600' || return 1
    done
}
check "the decoys run, each leading its group" sh -c \
    "[ \"\$(ps -o pgid= -p $D2 | tr -d ' ')\" = $D2 ] && [ \"\$(ps -o pgid= -p $D4 | tr -d ' ')\" = $D4 ]"
# quick exited: its supervisor's pid and its command's group are the
# decoys' now (the start times recorded stay the old processes')
jq --argjson p "$D1" --argjson g "$D2" '.pid = $p | .pgid = $g | .pgidStart = .pidStart' \
    "$F/quick.json" > "$TMP/s" && mv "$TMP/s" "$F/quick.json"
# dead's supervisor died while running (killed): its pids are reused too
jq --argjson p "$D3" --argjson g "$D4" '.state = "running" | .pid = $p | .pgid = $g | .pgidStart = .pidStart' \
    "$F/dead.json" > "$TMP/s" && mv "$TMP/s" "$F/dead.json"
check "status: dead's supervisor is gone, not the decoy" wait_status \
    '[.agents[] | {name, state, pid}] == [{"name":"quick","state":"exited","pid":null},{"name":"dead","state":"gone","pid":null},{"name":"steady","state":"running","pid":.agents[2].pid}] and .agents[2].pid > 0'

as fleet down > "$TMP/down" 2> "$TMP/err" && st=0 || st=$?
check "fleet down: exit 0 ($st: $(cat "$TMP/err"))" [ "$st" = 0 ]
sleep 0.3
check "the decoy in an exited agent's supervisor's place runs on" decoys_alive "$D1"
check "... and the group in its command's place" decoys_alive "$D2"
check "the decoys in a dead supervisor's place run on" decoys_alive "$D3" "$D4"
check "steady, running, is stopped" [ "$(pgrep -f "$MARK" | wc -l)" = 0 ]
as fleet status --json > "$TMP/st"
check "... and reported stopped" jqt "$TMP/st" '.agents[2].state == "stopped"'

# a second down, and a state file without start times (an older one)
jq --argjson p "$D1" --argjson g "$D2" '.state = "running" | .pid = $p | .pgid = $g | del(.pidStart, .pgidStart)' \
    "$F/quick.json" > "$TMP/s" && mv "$TMP/s" "$F/quick.json"
as fleet down > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "a second down: exit 0 ($st)" [ "$st" = 0 ]
sleep 0.3
check "... the decoys run on" decoys_alive "$D1" "$D2" "$D3" "$D4"
finish

# t171-fleet-orphans.sh - when an agent's command crashes, what it
# started goes with it before the restart and when it is given up, also
# a process that left its process group and session: a client that runs
# each shell command with setsid, as agent clients may, is killed (-9)
# while its "build" runs. The supervisor, a child subreaper, finds the
# orphaned build below it and stops it; the restarted run's build is
# the only one; after the second crash (given up) none is left. The
# daemon, started by the agent itself (so below the supervisor, with the
# fleet's marker), is never stopped: not by the sweeps of a crash, not by
# `fleet down`, which still tells it the agent exited. A process of the
# test's own runs on.
. "$(dirname "$0")/lib.sh"

fleet_tmux t171
R="$TMP/repo"
base_repo "$R"
mkdir -p bin .airspace
# bin/client.sh MARK DIR AIRSPACE: the first run waits for DIR/go and
# starts the daemon itself (airspace status); each run starts a "build"
# in a session of its own, then waits
cat > bin/client.sh << 'EOF'
n=$(($(cat "$2/runs" 2> /dev/null || echo 0) + 1))
echo $n > "$2/runs"
if [ $n = 1 ]; then
    until [ -e "$2/go" ]; do sleep 0.05; done
    "$3" status > /dev/null 2>&1
fi
setsid sh -c "sleep 300; : $1-build-$n" &
sleep 300
EOF
commit 00:01 client
cat > .airspace/fleet << EOF
[fleet]
	restarts = 1
	backoff = 0.2
[agent "solo"]
	command = "sh bin/client.sh $MARK $TMP $AIRSPACE_BIN"
	lane = src/**
EOF
setsid sleep 600 &
DECOY=$!
cleanup() {
    as fleet down > /dev/null 2>&1 || :
    tmux kill-server 2> /dev/null || :
    pkill -f "$MARK" 2> /dev/null || :
    kill "$DECOY" 2> /dev/null || :
    as stop > /dev/null 2>&1 || :
    rm -rf "$TMP"
}
trap cleanup EXIT
SOCK="$(pwd)/$(git rev-parse --git-common-dir)/airspace/sock"
F="$(git rev-parse --git-common-dir)/airspace/fleet"

# wait_for CMD...: until it succeeds (15 s)
wait_for() {
    n=0
    until "$@" > /dev/null 2>&1; do
        n=$((n + 1))
        [ $n -lt 150 ] || return 1
        sleep 0.1
    done
}
builds() {
    pgrep -f "$MARK-build-" | while read -r p; do
        tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | sed -n "s/.*$MARK-build-\([0-9]*\).*/\1/p"
    done | sort -n | tr '\n' ' '
}
has_builds() {
    [ "$(builds)" = "$1" ]
}
status_is() {
    as fleet status --json > "$TMP/st" && jq -e "$1" "$TMP/st"
}
no_daemon() {
    ! curl -sf --unix-socket "$SOCK" http://a/v1/status
}

as fleet up > /dev/null 2> "$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
# (once the supervisor has reported: it would start the daemon again)
check "solo runs" wait_for status_is '.agents[0].state == "running"'
as stop > /dev/null 2>&1 || :
check "the daemon fleet up started is stopped" wait_for no_daemon
touch "$TMP/go"
check "the first run's build runs" wait_for has_builds "1 "
check "the daemon runs again" wait_for curl -sf --unix-socket "$SOCK" http://a/v1/status
DP=$(curl -sf --unix-socket "$SOCK" http://a/v1/status | jq .pid)
SUP=$(jq .pid "$F/solo.json")
check "... below the supervisor, as its child" [ "$(ps -o ppid= -p "$DP" | tr -d ' ')" = "$SUP" ]
check "... with the fleet's marker" sh -c "tr '\\0' '\\n' < /proc/$DP/environ | grep -q '^AIRSPACE_FLEET='"

# the client crashes: its build, in a session of its own, goes with it
pkill -KILL -f "bin/client.sh $MARK" || :
check "restarted" wait_for status_is '.agents[0].state == "running" and .agents[0].restarts == 1'
check "... only the new run's build runs" wait_for has_builds "2 "
sleep 0.3
check "... (still)" has_builds "2 "
check "the daemon runs on" kill -0 "$DP"
# the second crash: given up, and nothing of it left
pkill -KILL -f "bin/client.sh $MARK" || :
check "given up" wait_for status_is '.agents[0].state == "given-up"'
check "... no build left" has_builds ""
check "... no process of the client" [ "$(pgrep -f "$MARK" | wc -l)" = 0 ]
check "the daemon runs on" kill -0 "$DP"
check "the test's own process runs on" kill -0 "$DECOY"

as fleet down > /dev/null 2> "$TMP/err" && st=0 || st=$?
check "fleet down: exit 0 ($st: $(cat "$TMP/err"))" [ "$st" = 0 ]
sleep 0.5
check "the daemon runs on after down, with the fleet's marker as it has" kill -0 "$DP"
curl -sf --unix-socket "$SOCK" http://a/v1/agents/solo > "$TMP/body" || :
check "... told that solo exited" jqt "$TMP/body" '.status == "exited"'
check "the test's own process runs on" kill -0 "$DECOY"
finish

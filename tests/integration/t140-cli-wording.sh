# t140-cli-wording.sh - what the commands print says what is so: `stop
# --json` prints a JSON document as its siblings do ({"stopped": true,
# "pid": N}, or {"stopped": false} with no daemon), and `stop --help`
# names the options it takes; `serve --help` names --store in its
# synopsis, `status --help` the alerts it prints and `conflicts --help`
# every shape; an unknown command is one line and a hint, not the whole
# usage; counts of one are singular ("1 agent, 1 pair", "1 file"), while
# --json keeps its keys; `--no-start` with no daemon points at a command
# that starts one, not at the foreground `serve`.
. "$(dirname "$0")/lib.sh"

base_repo "$TMP/repo"
trap '"$AIRSPACE_BIN" stop > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT

# run CMD...: exit code to RC, stdout to $TMP/out, stderr to $TMP/err
run() {
    RC=0
    as "$@" > "$TMP/out" 2> "$TMP/err" || RC=$?
}

# ---- stop --json ----
run stop --json
check "stop --json, no daemon: exit 0 ($RC)" [ "$RC" -eq 0 ]
check "stop --json, no daemon: {\"stopped\": false} ($(cat "$TMP/out"))" \
    jqt "$TMP/out" '. == {"stopped": false}'
run status --json
PID=$(jq -r .daemon.pid "$TMP/out")
run stop --json
check "stop --json: exit 0 ($RC)" [ "$RC" -eq 0 ]
check "stop --json: stopped, with the daemon's pid $PID ($(cat "$TMP/out"))" \
    jqt "$TMP/out" ". == {\"stopped\": true, \"pid\": $PID}"
n=0
while kill -0 "$PID" 2> /dev/null && [ $n -lt 100 ]; do
    sleep 0.05
    n=$((n + 1))
done
check "stop --json: the daemon is gone" sh -c "! kill -0 $PID 2> /dev/null"
run stop --help
check "stop --help names --json and --no-start" \
    grep -q '^usage: airspace stop \[--repo DIR\] \[--json\] \[--no-start\]$' "$TMP/out"

# ---- help texts ----
run serve --help
check "serve --help: --store URL in the synopsis" \
    sh -c "sed -n '1,/^\$/p' '$TMP/out' | grep -q -- '--store URL'"
run status --help
check "status --help names the alerts" grep -q "alerts" "$TMP/out"
run conflicts --help
check "conflicts --help names ownership and integration" \
    sh -c "grep -q ownership '$TMP/out' && grep -q integration '$TMP/out'"
RC=0
as --help > "$TMP/out" || RC=$?
check "airspace --help: conflicts lists every shape" \
    grep -q "^  conflicts .*ownership, integration" "$TMP/out"

# ---- an unknown command ----
run bogus
check "unknown command: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "unknown command: one line naming it, then a hint ($(cat "$TMP/err"))" \
    sh -c "[ \"\$(cat '$TMP/err')\" = \"airspace: unknown command 'bogus'
Try 'airspace --help'.\" ]"

# ---- plurals ----
run scan
check "scan: '1 agent, 0 pairs' ($(head -1 "$TMP/out"))" \
    grep -q ": 1 agent, 0 pairs, 0 resolution, 0 traffic; graph 1 file, 0 edges " "$TMP/out"
run agents
check "agents: '0 files' ($(cat "$TMP/out"))" grep -Eq '^main +agent +[a-z]+ +0 files ' "$TMP/out"
echo y >> x
as api POST /v1/refresh '{"git": true}' > /dev/null
run agents
check "agents: '1 file' ($(cat "$TMP/out"))" grep -Eq '^main +agent +[a-z]+ +1 file  ' "$TMP/out"
as stop > /dev/null 2>&1
git worktree add -q -b airspace/bob "$TMP/bob"
echo y >> "$TMP/bob/x"
run scan
check "scan: '2 agents, 1 pair' ($(head -1 "$TMP/out"))" \
    grep -q ": 2 agents, 1 pair, " "$TMP/out"
run scan --json
check "scan --json keeps its summary" \
    jqt "$TMP/out" '.summary.agents == 2 and .summary.pairs == 1'

# ---- --no-start with no daemon ----
run status --no-start
check "status --no-start, no daemon: exit 3 ($RC)" [ "$RC" -eq 3 ]
check "... points at a command that starts it ($(cat "$TMP/err"))" \
    grep -q "without --no-start, a command such as 'airspace status' starts it" "$TMP/err"

finish

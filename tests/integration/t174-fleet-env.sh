# t174-fleet-env.sh - the agents get the environment `fleet up` ran in,
# also when a tmux server runs already (whose windows get the server's
# environment): a variable exported after the server started reaches the
# agent's command, while what describes its window (TERM, TMUX) stays the
# window's. The environment goes through a file of mode 0600, not tmux's
# command line (no process shows the value), and `fleet down` removes it.
. "$(dirname "$0")/lib.sh"

fleet_tmux t174
R="$TMP/repo"
base_repo "$R"
mkdir -p .airspace
cat > .airspace/fleet << EOF
[agent "probe"]
	command = "env > $TMP/probe.env; sleep 300; : $MARK"
EOF
start_daemon --tick-ms 50 --rescan-ms 60000
cleanup() {
    as fleet down > /dev/null 2>&1 || :
    tmux kill-server 2> /dev/null || :
    pkill -f "$MARK" 2> /dev/null || :
    kill $DPID 2> /dev/null && wait $DPID 2> /dev/null || :
    rm -rf "$TMP"
}
trap cleanup EXIT
F="$(git rev-parse --git-common-dir)/airspace/fleet"

# a tmux server that runs already, started before the key was exported
env -u T174_KEY TERM=xterm tmux new-session -d -s mine "sleep 600"
KEY="t174-secret-$$"
export T174_KEY="$KEY" TERM=t174-outer-term
as fleet up > /dev/null 2> "$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
n=0
until [ -s "$TMP/probe.env" ]; do
    n=$((n + 1))
    [ $n -lt 150 ] || break
    sleep 0.1
done
sleep 0.1
check "the agent has fleet up's variable" grep -qx "T174_KEY=$KEY" "$TMP/probe.env"
check "... and its name" grep -qx "AIRSPACE_AGENT=probe" "$TMP/probe.env"
check "... its window's TERM, not fleet up's" sh -c "grep -q '^TERM=' '$TMP/probe.env' && ! grep -qx 'TERM=t174-outer-term' '$TMP/probe.env'"
check "... its window's TMUX, of the server that runs" grep -q "^TMUX=$TMP/" "$TMP/probe.env"
check "... and one TMUX only" [ "$(grep -c '^TMUX=' "$TMP/probe.env")" = 1 ]
check "the environment file is private (0600)" [ "$(stat -c %a "$F/env")" = 600 ]
ps -eo args > "$TMP/ps"
check "... and no process shows the value on its command line" sh -c "! grep -q 't174-secret' '$TMP/ps'"
as fleet down > /dev/null 2>&1
check "fleet down removes it" [ ! -e "$F/env" ]
finish

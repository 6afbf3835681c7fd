# t125-alerts-restart.sh - the alerts survive a restart of the daemon:
# one that held when it stopped holds again at its start with its since,
# is not raised again and not notified again; one cleared before and
# raised again after a restart is raised, but the notification rate limit
# (alerts.repeat) remembers its last notification.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
AIR="$(git rev-parse --git-common-dir)/airspace"
mkdir -p "$AIR"
chmod 700 "$AIR"
cat > "$AIR/config" << EOF
[alerts]
	waiting = 1
	repeat = 600
	command = cat >> '$TMP/notified'
EOF
: > "$TMP/notified"
start_daemon --tick-ms 50

wait_for() { # wait_for CMD... (at most 10 s)
    n=0
    until "$@" || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
    "$@"
}
notified() { # notified N: the command ran N times in all
    [ "$(grep -c . "$TMP/notified")" = "$1" ]
}
alerts() { # alerts FILTER: GET /v1/alerts satisfies the jq filter
    api GET /v1/alerts && jqt "$TMP/body" "$1"
}
since_of() { # since_of KIND: the alert's since
    api GET /v1/alerts
    jq -r --arg k "$1" '[.alerts[] | select(.kind == $k)][0].since' "$TMP/body"
}
raised() { # raised KIND: how many alert.raised of KIND the ledger holds
    curl -s --unix-socket "$SOCK" 'http://a/v1/ledger?type=alert.raised' |
        jq --arg k "$1" '[.events[] | select(.data.kind == $k)] | length'
}
restart() {
    api POST /v1/stop
    wait "$DPID" 2> /dev/null || true
    start_daemon --tick-ms 50
}

# a question to the supervisor waits; a fleet agent is given up
api POST /v1/agents '{"id":"bob"}'
api POST /v1/messages '{"from":"bob","to":"supervisor","type":"question","body":"may I?"}'
api POST /v1/fleet/crashy '{"state":"given-up","restarts":2,"why":"exit 3"}'
check "both alerts raised" wait_for alerts '[.alerts[].kind] | sort == ["fleet-given-up","waiting"]'
check "... and notified, once each" wait_for notified 2
WAIT_SINCE=$(since_of waiting)
FLEET_SINCE=$(since_of fleet-given-up)
sleep 1.2

for round in 1 2; do
    restart
    check "restart $round: both alerts hold at once" \
        alerts '[.alerts[].kind] | sort == ["fleet-given-up","waiting"]'
    check "... the question's since kept ($(since_of waiting), was $WAIT_SINCE)" \
        [ "$(since_of waiting)" = "$WAIT_SINCE" ]
    check "... the fleet agent's too ($(since_of fleet-given-up), was $FLEET_SINCE)" \
        [ "$(since_of fleet-given-up)" = "$FLEET_SINCE" ]
    # the fleet's supervisor reports again, as it does every 5 s
    api POST /v1/fleet/crashy '{"state":"given-up","restarts":2,"why":"exit 3"}'
    sleep 0.5
    check "... neither raised again ($(raised waiting), $(raised fleet-given-up))" \
        [ "$(raised waiting)$(raised fleet-given-up)" = 11 ]
    check "... nor notified again ($(grep -c . "$TMP/notified"))" notified 2
    check "... still held, since kept" \
        [ "$(since_of fleet-given-up)" = "$FLEET_SINCE" ]
done
as alerts > "$TMP/out"
check "airspace alerts counts from the first raise" \
    grep -Eq '^fleet-given-up +[1-9][0-9]*s ago' "$TMP/out"

# cleared, then raised again after a restart: a new alert, held back by
# the rate limit its notification before the restart set
api POST /v1/fleet/crashy '{"state":"running","restarts":2}'
check "running again: cleared" wait_for alerts '[.alerts[] | select(.kind == "fleet-given-up")] == []'
restart
api POST /v1/fleet/crashy '{"state":"given-up","restarts":3,"why":"exit 3"}'
check "given up again after the restart: raised" \
    wait_for alerts '[.alerts[] | select(.kind == "fleet-given-up")] | length == 1'
check "... as a new alert" [ "$(raised fleet-given-up)" = 2 ]
sleep 0.3
check "... not notified within repeat ($(grep -c . "$TMP/notified"))" notified 2
check "... the daemon says so" \
    grep -q "alerts: fleet-given-up crashy not notified (repeat limit)" "$TMP/daemon.log"

api POST /v1/stop
wait "$DPID" 2> /dev/null || true
finish

# t86-daemon-start-race.sh - commands started together on a repository
# without a daemon (the hooks of several agents at once) start one daemon
# between them: the others wait for it and use it, none fails. Daemons
# started at once: one serves, the others name its pid.
. "$(dirname "$0")/lib.sh"

N=8
ROUNDS=8

# serving REPO: the pids of the daemons of REPO
serving() {
    pgrep -f "^airspace serve --repo $1( |\$)" || true
}

trap 'for p in $(pgrep -f "^airspace serve --repo $TMP/" || true); do
    kill "$p" 2> /dev/null; done; rm -rf "$TMP"' EXIT

round=1
while [ $round -le $ROUNDS ]; do
    # a fresh repository each round: the first start also makes the store
    base_repo "$TMP/r$round"
    R=$(pwd -P)
    i=1
    pids=
    rm -f "$TMP/go"
    while [ $i -le $N ]; do
        (
            while [ ! -e "$TMP/go" ]; do sleep 0.01; done
            exec "$AIRSPACE_BIN" status > "$TMP/out.$round.$i" 2> "$TMP/err.$round.$i"
        ) &
        pids="$pids $!"
        i=$((i + 1))
    done
    sleep 0.2
    : > "$TMP/go" # all at once
    i=1
    for p in $pids; do
        rc=0
        wait "$p" || rc=$?
        check "round $round, status $i: exit 0 ($rc: $(cat "$TMP/err.$round.$i"))" \
            [ "$rc" = 0 ]
        i=$((i + 1))
    done
    n=$(serving "$R" | wc -l)
    check "round $round: one daemon runs ($n)" [ "$n" = 1 ]
    started=$(grep -c "starting: pid" .git/airspace/daemon.log || true)
    check "round $round: one daemon started ($started)" [ "$started" = 1 ]
    d=$(serving "$R")
    as stop > /dev/null 2>&1
    k=0
    while [ -n "$d" ] && kill -0 $d 2> /dev/null && [ $k -lt 200 ]; do
        sleep 0.05
        k=$((k + 1))
    done
    round=$((round + 1))
done

# a daemon that loses the race to one that has taken the lock but not yet
# written its pid (here a holder that writes it 0.2 s after it locks)
# names that pid, not "?"
base_repo "$TMP/serve"
R=$(pwd -P)
mkdir -p -m 700 .git/airspace
flock .git/airspace/daemon.lock sh -c 'sleep 0.2; echo 4242 > .git/airspace/daemon.lock; sleep 3' &
holder=$!
sleep 0.05
rc=0
"$AIRSPACE_BIN" serve --repo "$R" > /dev/null 2> "$TMP/serve.err" || rc=$?
wait "$holder" || true
check "a second daemon does not serve ($rc)" [ "$rc" != 0 ]
check "... and names the holder's pid ($(cat "$TMP/serve.err"))" grep -q "another daemon (pid 4242)" "$TMP/serve.err"

finish

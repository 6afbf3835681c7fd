# lib-clients.sh - helpers for the end-to-end tests that run a real agent
# client (tests/integration/t6*.sh) offline against the scripted model
# server (modelserver.mjs beside this file). Sourced after
# tests/integration/lib.sh, which gives TMP, HOME and the assertions.
# Nothing here knows one client from another.
: "${AIRSPACE_SOURCE_DIR:?AIRSPACE_SOURCE_DIR must point at the source tree}"
CLIENTS="$AIRSPACE_SOURCE_DIR/tests/clients"

# client_skip_unless FILE NAME: when the pinned client FILE is not
# installed, say so and end the test (exit 0, nothing counted).
client_skip_unless() {
    if [ ! -e "$1" ]; then
        echo "SKIP: $2 is not installed ('$1' is missing; scripts/setup.sh --clients installs it)"
        exit 0
    fi
    if ! command -v node > /dev/null 2>&1; then
        echo "FAIL: node not found (scripts/setup.sh installs it)" >&2
        exit 1
    fi
}

# offline: nothing a client starts can leave the machine. Loopback goes
# direct; every other address goes to a proxy on a closed loopback port.
offline() {
    export HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9
    export http_proxy=$HTTP_PROXY https_proxy=$HTTPS_PROXY all_proxy=$ALL_PROXY
    export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
}

# now_ms: milliseconds since the epoch (what the daemon's times are in).
now_ms() {
    date +%s%3N
}

# uuid: a new random UUID (a client's session id).
uuid() {
    cat /proc/sys/kernel/random/uuid
}

# ms_start NAME: a model server answering with the script $TMP/NAME.script
# (JSON, modelserver.mjs's format), logging every request to $TMP/NAME.log;
# its port is MS_PORT, its pid MS_PID. It stops with ms_stop, or when the
# test's shell goes away.
ms_start() {
    rm -f "$TMP/$1.port" "$TMP/$1.log"
    : > "$TMP/$1.log"
    node "$CLIENTS/modelserver.mjs" --script "$TMP/$1.script" --log "$TMP/$1.log" \
        --port-file "$TMP/$1.port" 2>> "$TMP/$1.ms.err" &
    MS_PID=$!
    msn=0
    while [ ! -s "$TMP/$1.port" ]; do
        sleep 0.05
        msn=$((msn + 1))
        if [ $msn -ge 200 ]; then
            echo "model server $1 did not start" >&2
            cat "$TMP/$1.ms.err" >&2
            return 1
        fi
    done
    MS_PORT=$(cat "$TMP/$1.port")
}

ms_stop() {
    kill "$MS_PID" 2> /dev/null || true
    wait "$MS_PID" 2> /dev/null || true
}

# ms_main LOG: the requests that asked the model for its next move (not
# side requests), one JSON line each, in order.
ms_main() {
    jq -c 'select(.side == false and .dialect != null)' "$1"
}

# ms_steps_taken LOG: how many script steps the server has handed out.
ms_steps_taken() {
    ms_main "$1" | wc -l
}

# ms_new_after LOG COND: what the client added to the conversation after
# the first step satisfying the jq condition COND (on the step, e.g.
# '.tool == "Edit"'): the entries of the next request's conversation
# (messages, input or contents, whichever the dialect has) beyond those of
# the request that took the step — the model's own call, the tool's
# result and whatever context came with it. Prints a JSON array (empty when
# there is no such step or no next request).
ms_new_after() {
    ms_main "$1" | jq -s -c "
        def conv: (.body.messages // .body.input // .body.contents // []);
        . as \$m
        | [range(0; \$m | length) | select(\$m[.].step != null and (\$m[.].step | $2))] as \$i
        | if (\$i | length) == 0 or \$i[0] + 1 >= (\$m | length) then []
          else (\$m[\$i[0]] | conv | length) as \$k | \$m[\$i[0] + 1] | conv | .[\$k:] end"
}

# ms_all_after LOG COND: like ms_new_after, but everything the client added
# in every later request (the conversation of the last request beyond that
# of the request that took the step).
ms_all_after() {
    ms_main "$1" | jq -s -c "
        def conv: (.body.messages // .body.input // .body.contents // []);
        . as \$m
        | [range(0; \$m | length) | select(\$m[.].step != null and (\$m[.].step | $2))] as \$i
        | if (\$i | length) == 0 or \$i[0] + 1 >= (\$m | length) then []
          else (\$m[\$i[0]] | conv | length) as \$k | \$m[-1] | conv | .[\$k:] end"
}

# says JSON REGEX...: true when the JSON text (as one string) matches every
# extended regular expression (jq's test, case-sensitive).
says() {
    sj=$1
    shift
    for re in "$@"; do
        printf '%s' "$sj" | jq -e --arg re "$re" 'tostring | test($re)' > /dev/null || return 1
    done
}

# wait_for SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds;
# false after SECONDS.
wait_for() {
    wl=$(($1 * 10))
    shift
    wn=0
    until "$@"; do
        wn=$((wn + 1))
        [ $wn -lt $wl ] || return 1
        sleep 0.1
    done
}

# waiter FILE FLAG: a shell script FILE that waits (at most 40 s) for the
# file FLAG, for a client's shell tool to run while the test does
# something else: a long build, as far as the client can tell.
waiter() {
    cat > "$1" <<EOF
i=0
until [ -e '$2' ] || [ \$i -ge 400 ]; do sleep 0.1; i=\$((i + 1)); done
echo waited
EOF
}

# lib-gemini.sh - run the real Gemini CLI (the pinned one in
# tests/clients/node_modules) headless and offline against the scripted model
# server (modelserver.mjs, dialect_gemini.mjs) on loopback. Sourced after
# tests/integration/lib.sh (TMP, HOME=$TMP/home). POSIX sh.
#
#   gemini_available          true when node and the pinned client are there
#   gemini_home               the throwaway ~/.gemini: settings (API key auth,
#                             no telemetry, no update check)
#   gemini_trust DIR          trust DIR, as the client's trust dialog does
#   gemini_run TAG DIR SCRIPT [GEMINI-ARGS...]
#                             one session, `gemini -p ... --debug` in DIR
#                             against a model server playing SCRIPT (a JSON
#                             file, see modelserver.mjs); leaves
#                             $TMP/TAG.log (every request), $TMP/TAG.out,
#                             $TMP/TAG.err and the exit status in GEMINI_RC
#   gemini_start TAG DIR SCRIPT [GEMINI-ARGS...]   the same in the background
#                             (GEMINI_PID); gemini_wait TAG waits for it
#   gemini_told TAG           everything the model was told in its last turn
#                             (the whole conversation: prompt, context, tool
#                             results), one string per line
#   gemini_result TAG K       the tool result (functionResponse.response, JSON)
#                             of the K-th tool call of the script (from 0)
#   gemini_before TAG K       what the model had been told when it made the
#                             K-th tool call
#
# Nothing leaves the machine: the client talks to 127.0.0.1 only, and any
# other connection goes to a proxy on 127.0.0.1:9, where nobody listens.

GEMINI_CLIENTS=$(cd "$(dirname "$0")/../clients" && pwd)
GEMINI_BIN="$GEMINI_CLIENTS/node_modules/.bin/gemini"
GEMINI_PIN=$(jq -r '.devDependencies["@google/gemini-cli"]' "$GEMINI_CLIENTS/package.json")

gemini_available() {
    command -v node > /dev/null 2>&1 && [ -x "$GEMINI_BIN" ] &&
        [ "$(jq -r .version "$GEMINI_CLIENTS/node_modules/@google/gemini-cli/package.json" 2> /dev/null)" = "$GEMINI_PIN" ]
}

gemini_home() {
    mkdir -p "$HOME/.gemini"
    cat > "$HOME/.gemini/settings.json" << 'JSON'
{
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false },
  "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false },
  "ui": { "hideTips": true, "hideBanner": true }
}
JSON
    echo '{}' > "$HOME/.gemini/trustedFolders.json"
}

gemini_trust() {
    jq --arg d "$1" '.[$d] = "TRUST_FOLDER"' "$HOME/.gemini/trustedFolders.json" \
        > "$HOME/.gemini/trustedFolders.tmp"
    mv "$HOME/.gemini/trustedFolders.tmp" "$HOME/.gemini/trustedFolders.json"
}

# gemini_start TAG DIR SCRIPT [ARGS...]
gemini_start() {
    g_tag=$1 g_dir=$2 g_script=$3
    shift 3
    rm -f "$TMP/$g_tag.log" "$TMP/$g_tag.port"
    node "$GEMINI_CLIENTS/modelserver.mjs" --script "$g_script" \
        --log "$TMP/$g_tag.log" --port-file "$TMP/$g_tag.port" 2> "$TMP/$g_tag.server.err" &
    echo $! > "$TMP/$g_tag.server.pid"
    g_n=0
    until [ -s "$TMP/$g_tag.port" ]; do
        sleep 0.05
        g_n=$((g_n + 1))
        [ $g_n -lt 400 ] || { echo "model server did not start" >&2; cat "$TMP/$g_tag.server.err" >&2; return 1; }
    done
    g_port=$(cat "$TMP/$g_tag.port")
    (
        cd "$g_dir" &&
            GEMINI_API_KEY=dummy-key GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$g_port" \
                HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 \
                http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 all_proxy=http://127.0.0.1:9 \
                NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost \
                exec timeout 60 "$GEMINI_BIN" --debug "$@" \
                > "$TMP/$g_tag.out" 2> "$TMP/$g_tag.err" < /dev/null
    ) &
    GEMINI_PID=$!
    echo $GEMINI_PID > "$TMP/$g_tag.pid"
}

# gemini_wait TAG: wait for the session, stop its model server
gemini_wait() {
    GEMINI_RC=0
    wait "$(cat "$TMP/$1.pid")" || GEMINI_RC=$?
    kill "$(cat "$TMP/$1.server.pid")" 2> /dev/null || true
    [ "$GEMINI_RC" -ne 124 ] || echo "gemini session $1 timed out" >&2
    return 0
}

gemini_run() {
    gemini_start "$@" && gemini_wait "$1"
}

# the requests that asked for a step, in order (JSON lines)
gemini_main() {
    jq -c 'select(.dialect == "gemini" and .side == false)' "$TMP/$1.log"
}

gemini_told() {
    gemini_main "$1" | tail -n 1 | jq -r '[.body.contents | .. | strings] | .[]'
}

# gemini_result TAG K: the tool result the model got for the K-th tool call
gemini_result() {
    gemini_main "$1" | jq -sc --argjson k "$2" '
        [range(0; length) as $i | select(.[$i].step.tool != null) | $i] as $t
        | if ($t | length) > $k then .[$t[$k] + 1].body.contents[-1].parts
            | map(.functionResponse.response // empty) | .[0] else null end'
}

# gemini_before TAG K: every string the model had been told when it made
# the K-th tool call
gemini_before() {
    gemini_main "$1" | jq -sr --argjson k "$2" '
        [range(0; length) as $i | select(.[$i].step.tool != null) | $i] as $t
        | if ($t | length) > $k then [.[$t[$k]].body.contents | .. | strings] | .[]
            else empty end'
}

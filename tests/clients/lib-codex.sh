# lib-codex.sh - run the real Codex CLI (the pinned one in
# tests/clients/node_modules) offline against the scripted model server.
# Sourced by an integration test after tests/integration/lib.sh (TMP, HOME).
#
#   codex_available            true when node and the pinned codex are there
#   codex_home PROJECT...      write $CODEX_HOME/config.toml: the scripted
#                              provider, and each PROJECT directory trusted
#                              (Codex reads a project's .codex/ only then)
#   codex_run NAME DIR SCRIPT [CODEX-ARGS...] -- PROMPT
#                              one `codex exec` session in DIR, its model the
#                              script SCRIPT (a file, tests/clients/
#                              modelserver.mjs); waits for it
#   codex_start ... / codex_wait NAME
#                              the same in the background / wait for it
#   codex_session NAME         the session's id (from its output)
#   codex_calls NAME           JSON: every tool call of the session with
#                              what the model got back, [{name, input,
#                              output}], in order, from its model requests
#   codex_told NAME            every text the model was given after its
#                              first request: tool outputs and the
#                              developer messages hooks added (one string)
#   codex_followed NAME SCRIPT true when the session asked for every step
#                              of SCRIPT, no more, and the model server
#                              understood every request
#   codex_failed_hooks NAME    the "hook: EVENT Failed" lines of its output
#
# Files: $CODEX_DIR/NAME.log (the model server's request log), .out and
# .err (the client's stdout and stderr), .rc (its exit status).
#
# Nothing leaves the machine: the provider is on 127.0.0.1, HTTP(S)_PROXY
# point at 127.0.0.1:9 (nothing listens there), every run has `timeout 60`.
# Hooks run with --dangerously-bypass-hook-trust: Codex runs a project's
# command hooks only once a person trusted them (their hash in
# config.toml); untrusted ones are skipped without a word.

CODEX_CLIENTS="${AIRSPACE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/clients"
CODEX_PIN=$(jq -r '.devDependencies["@openai/codex"]' "$CODEX_CLIENTS/package.json")
CODEX_BIN="$CODEX_CLIENTS/node_modules/.bin/codex"
CODEX_DIR="$TMP/codex"
export CODEX_HOME="$HOME/.codex"
CODEX_MODEL=gpt-5.5 # a model whose bundled metadata gives the freeform apply_patch

codex_available() {
    command -v node > /dev/null 2>&1 && [ -x "$CODEX_BIN" ] &&
        [ "$("$CODEX_BIN" --version 2> /dev/null)" = "codex-cli $CODEX_PIN" ]
}

codex_home() {
    mkdir -p "$CODEX_HOME" "$CODEX_DIR"
    {
        echo "model = \"$CODEX_MODEL\""
        echo 'model_provider = "scripted"'
        echo 'approval_policy = "never"'
        echo 'sandbox_mode = "workspace-write"'
        echo 'check_for_update_on_startup = false'
        echo
        echo '[model_providers.scripted]'
        echo 'name = "scripted"'
        echo 'base_url = "http://127.0.0.1:9/v1"'
        echo 'wire_api = "responses"'
        echo 'env_key = "AIRSPACE_TEST_MODEL_KEY"'
        echo 'request_max_retries = 0'
        echo 'stream_max_retries = 0'
        for p in "$@"; do
            echo
            echo "[projects.\"$p\"]"
            echo 'trust_level = "trusted"'
        done
    } > "$CODEX_HOME/config.toml"
}

# codex_start NAME DIR SCRIPT [CODEX-ARGS...] -- PROMPT
codex_start() {
    _n=$1 _d=$2 _s=$3
    shift 3
    rm -f "$CODEX_DIR/$_n".*
    (
        node "$CODEX_CLIENTS/modelserver.mjs" --script "$_s" --log "$CODEX_DIR/$_n.log" \
            --port-file "$CODEX_DIR/$_n.port" 2> "$CODEX_DIR/$_n.server" &
        sp=$!
        i=0
        while [ ! -s "$CODEX_DIR/$_n.port" ] && [ $i -lt 200 ]; do
            sleep 0.05
            i=$((i + 1))
        done
        port=$(cat "$CODEX_DIR/$_n.port" 2> /dev/null || echo 9)
        # the arguments before "--" go to codex, the one after is the prompt
        prompt=""
        k=$#
        while [ $k -gt 0 ]; do
            a=$1
            shift
            k=$((k - 1))
            if [ "$a" = -- ]; then
                prompt=$1
                shift
                k=$((k - 1))
                continue
            fi
            set -- "$@" "$a"
        done
        rc=0
        cd "$_d" && env AIRSPACE_TEST_MODEL_KEY=dummy \
            HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 \
            http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
            NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost ALL_PROXY= all_proxy= \
            timeout 60 "$CODEX_BIN" exec --dangerously-bypass-hook-trust \
            -c "model_providers.scripted.base_url=\"http://127.0.0.1:$port/v1\"" \
            "$@" "$prompt" < /dev/null > "$CODEX_DIR/$_n.out" 2> "$CODEX_DIR/$_n.err" || rc=$?
        echo $rc > "$CODEX_DIR/$_n.rc"
        kill $sp 2> /dev/null || :
        wait $sp 2> /dev/null || :
    ) &
    eval "CODEX_PID_$_n=\$!"
}

codex_wait() {
    eval "wait \$CODEX_PID_$1" || :
}

# codex_run NAME DIR SCRIPT [CODEX-ARGS...] -- PROMPT
codex_run() {
    codex_start "$@"
    codex_wait "$1"
}

codex_session() {
    sed -n 's/^session id: //p' "$CODEX_DIR/$1.err" | head -1
}

codex_calls() {
    # across all its requests: a compaction replaces the history by a summary
    jq -s '[.[] | select(.side == false) | .body.input[]] as $in |
        [$in[] | select(.type == "function_call" or .type == "custom_tool_call"
                        or .type == "tool_search_call")] |
        reduce .[] as $c ([]; if any(.[]; .call_id == $c.call_id) then . else . + [$c] end) |
        map(. as $c |
            {name: ((if $c.namespace then $c.namespace + "__" else "" end) + ($c.name // $c.type)),
             input: ($c.input // $c.arguments),
             output: ([$in[] | select((.type | endswith("_output")) and .call_id == $c.call_id) |
                       .output | if type == "string" then . elif type == "array" then
                       (map(.text? // "") | join("\n")) else tostring end] | first // "")})' \
        "$CODEX_DIR/$1.log"
}

codex_told() {
    jq -rs '[.[] | select(.side == false)] as $r | ($r[0].body.input | map(tojson)) as $first |
        [$r[] | .body.input[] | tojson as $j | select(any($first[]; . == $j) | not)] |
        unique_by(tojson)[] |
        if .type == "message" and .role != "assistant" then (.content | map(.text? // "") | join("\n"))
        elif (.type | endswith("_output")) then
            (.output | if type == "string" then . elif type == "array" then (map(.text? // "") | join("\n"))
             else tostring end)
        else empty end' "$CODEX_DIR/$1.log"
}

codex_followed() {
    [ "$(jq -s '[.[] | select(.step != null)] | length' "$CODEX_DIR/$1.log")" = \
        "$(jq '.steps | length' "$2")" ] &&
        [ "$(jq -s '[.[] | select(.dialect == null)] | length' "$CODEX_DIR/$1.log")" = 0 ]
}

codex_failed_hooks() {
    grep -E '^hook: [A-Za-z]+ Failed' "$CODEX_DIR/$1.err" || :
}

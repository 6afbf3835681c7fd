# lib-claude.sh - the pinned Claude Code client for the end-to-end tests
# (tests/integration/t60-claude-code.sh, t111-client-subdir.sh), sourced
# after lib-clients.sh: the pin checked (the test is skipped when the
# client is not installed), CLAUDE, HOOKCMD, and the helpers to run one
# headless session against the scripted model server and read what
# happened.
PIN=$(jq -r '.devDependencies["@anthropic-ai/claude-code"]' "$CLIENTS/package.json")
CLAUDE="$CLIENTS/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
client_skip_unless "$CLAUDE" "Claude Code $PIN"
offline
v=$(timeout 20 "$CLAUDE" --version 2> /dev/null || true)
case $v in
"$PIN "*) ;;
*)
    echo "FAIL: '$CLAUDE' is '$v', not the pinned $PIN (scripts/setup.sh --clients)" >&2
    exit 1
    ;;
esac
BIN=$(realpath "$AIRSPACE_BIN")
HOOKCMD="$(dirname "$BIN")/airspace-hook claude-code"

# cc NAME DIR PROMPT [CLAUDE-OPTIONS...]: one headless session in DIR whose
# model answers with the script $TMP/NAME.script; the client's debug log is
# $TMP/NAME.debug, its output $TMP/NAME.out and .err, its exit status
# $TMP/NAME.rc, the requests $TMP/NAME.log. Its temporary files (sockets,
# notes) go under $TMP too.
cc() {
    ccn=$1 ccd=$2 ccp=$3
    shift 3
    ms_start "$ccn" || return 1
    mkdir -p "$TMP/tmp"
    (cd "$ccd" && ANTHROPIC_BASE_URL="http://127.0.0.1:$MS_PORT" TMPDIR="$TMP/tmp" \
        ANTHROPIC_API_KEY=sk-ant-offline-test CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        timeout 60 "$CLAUDE" -p "$ccp" --debug-file "$TMP/$ccn.debug" "$@" \
        > "$TMP/$ccn.out" 2> "$TMP/$ccn.err") && ccrc=0 || ccrc=$?
    echo "$ccrc" > "$TMP/$ccn.rc"
    ms_stop
}
ran() { # ran NAME: the session ended normally, having followed its script
    # to the end, and the model server understood every request it made
    [ "$(cat "$TMP/$1.rc")" = 0 ] || { sed 's/^/  /' "$TMP/$1.err" >&2; return 1; }
    rwant=$(jq '.steps | length' "$TMP/$1.script")
    rgot=$(ms_steps_taken "$TMP/$1.log")
    [ "$rgot" -ge "$rwant" ] || { echo "  $1 took $rgot of its $rwant steps" >&2; return 1; }
    [ "$(jq -s '[.[] | select(.dialect == null)] | length' "$TMP/$1.log")" = 0 ] ||
        { echo "  $1 made requests the model server does not know:" >&2; jq -c 'select(.dialect == null) | [.method, .url]' "$TMP/$1.log" >&2; return 1; }
}
# jt JSON FILTER: the jq filter is true on the JSON text
jt() {
    printf '%s' "$1" | jq -e "$2" > /dev/null
}
# result LOG COND: the tool result the model got for the step COND
result() {
    ms_new_after "$1" "$2" | jq -c '[.[] | .content? | arrays | .[] | select(.type == "tool_result")] | .[0] // {}'
}

# claude_project DIR: the repository DIR (made and committed by the test)
# set up as a user does for Claude Code: `airspace init --claude-code`, its
# shared settings committed (the local ones stay on this machine), a
# daemon ticking every 100 ms with no periodic rescan for a minute,
# started, and stopped at the end of the test; the user trusted DIR once
# (a worktree counts as its main one). Moves into DIR.
claude_project() {
    cd "$1"
    as init --claude-code > "$TMP/init.out"
    git add .claude/settings.json .mcp.json
    git commit -qm "airspace for Claude Code"
    printf '[daemon]\n\ttick-ms = 100\n\trescan-ms = 60000\n' > .git/airspace/config
    as status > "$TMP/status.out"
    CP_DIR=$1
    trap 'as stop --repo "$CP_DIR" > /dev/null 2>&1 || true
        [ -z "${AIRSPACE_KEEP:-}" ] || cp -a "$TMP/." "$AIRSPACE_KEEP/"
        rm -rf "$TMP"' EXIT
    jq -n --arg r "$1" '{projects: {($r): {hasTrustDialogAccepted: true}}}' > "$HOME/.claude.json"
}

# t131-install.sh - `cmake --install BUILD --prefix P` puts airspace and
# airspace-hook in P/bin, and the installed programs work on their own:
# with P/bin on $PATH, `init` points the client's hooks at airspace-hook
# (found there), a hook call starts the installed daemon, and the session
# is registered.
. "$(dirname "$0")/lib.sh"

BUILD=$(dirname "$(realpath "$AIRSPACE_BIN")")
P="$TMP/prefix"
cmake --install "$BUILD" --prefix "$P" > "$TMP/install.out" 2>&1
check "both programs are installed in P/bin" [ -x "$P/bin/airspace" ] && [ -x "$P/bin/airspace-hook" ]
check "the installed airspace runs" sh -c '"$1/bin/airspace" --version | grep -q "^airspace "' x "$P"

base_repo "$TMP/repo"
trap '"$P/bin/airspace" stop > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
PATH="$P/bin:$PATH" airspace init --claude-code > "$TMP/init.out"
# $PATH finds the installed airspace-hook: the hooks name it plainly
check "init points the hooks at airspace-hook, found on \$PATH" jqt .claude/settings.json \
    '[.hooks[][] | .hooks[].command] | length > 0 and all(. == "airspace-hook claude-code")'
cmd=$(jq -r '.hooks.SessionStart[0].hooks[0].command' .claude/settings.json)
printf '{"session_id":"s-1","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}' "$(pwd -P)" |
    PATH="$P/bin:$PATH" sh -c "$cmd" > "$TMP/hook.out"
n=0
until "$P/bin/airspace" status --json > "$TMP/status.json" 2> /dev/null || [ $n -ge 100 ]; do
    sleep 0.1
    n=$((n + 1))
done
pid=$(jq -r .daemon.pid "$TMP/status.json")
check "the hook started the installed daemon ($(readlink "/proc/$pid/exe"))" \
    [ "$(readlink "/proc/$pid/exe")" = "$P/bin/airspace" ]
# the first call only started it; the next is the session's registration
printf '{"session_id":"s-1","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}' "$(pwd -P)" |
    PATH="$P/bin:$PATH" sh -c "$cmd" > "$TMP/hook.out"
check "the session is an agent" sh -c '"$1/bin/airspace" agents --json | jq -e "[.agents[] | select(.client == \"claude-code\")] | length == 1" > /dev/null' x "$P"
finish

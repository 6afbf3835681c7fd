# t44-hook-fixtures.sh - every hook input recorded from the real clients
# (tests/clients/fixtures/<client>/) through `airspace hook`, with the
# whole repository locked by another agent: exit 0; an answer in exactly
# the shape that client accepts for that event (nothing at all for events
# that take no output; never a permission granted); every call that writes
# (each patch shape, each write tool, a shell redirect) denied naming the
# holder, and every call that does not write let through.
. "$(dirname "$0")/lib.sh"
FIX="${AIRSPACE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/clients/fixtures"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/sub"
printf 'line 1\nline 2\nline3\n' > "$R/notes.md"
printf 'one\ntwo\nthree\nline3\n' > "$R/a.txt"
echo bee > "$R/b.txt"
echo dee > "$R/d.txt"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --rescan-ms 60000
api POST /v1/agents '{"id":"other"}'
api POST /v1/locks '{"agent":"other","pattern":"**","reason":"everything"}'

# fill FILE: the fixture with its placeholders made this repository's
fill() {
    sed -e "s|<WORKTREE>|$R|g; s|<REPO>|$R|g; s|<HOME>|$HOME|g" \
        -e 's|<SESSION_ID>|0f6f2b1e-0000-4000-8000-00000000f1f1|g' \
        -e 's|<[A-Z_0-9]*>|x|g' "$1"
}

# accepted CLIENT EVENT OUT: OUT is an answer the client accepts for EVENT
# (from the clients' own validation, tests/clients/fixtures/*/README.md)
accepted() {
    [ -z "$3" ] && return 0
    printf '%s' "$3" | jq -e --arg c "$1" --arg e "$2" '
        def keys_in($ok): (keys - $ok) == [];
        if $c == "gemini" then
            (keys_in(["decision", "reason", "hookSpecificOutput"]))
            and ((.decision // "deny") == "deny")
            and (if .hookSpecificOutput then
                    ([$e] | inside(["SessionStart", "BeforeAgent", "AfterTool"]))
                    and .hookSpecificOutput.hookEventName == $e
                 else true end)
        else
            keys_in(["hookSpecificOutput"])
            and .hookSpecificOutput.hookEventName == $e
            and ((.hookSpecificOutput.permissionDecision // "deny") == "deny")
            and (.hookSpecificOutput | keys_in(
                if $e == "PreToolUse" then ["hookEventName", "permissionDecision", "permissionDecisionReason", "additionalContext"]
                elif ([$e] | inside(["SessionStart", "UserPromptSubmit", "PostToolUse"])) then ["hookEventName", "additionalContext"]
                else [] end))
        end' > /dev/null 2>&1
}

# writes FIXTURE: whether the recorded call writes a file
writes() {
    case $(basename "$1") in
    PreToolUse-Bash.json) [ "$(dirname "$1")" != "$FIX/claude-code" ] ;; # codex's is a redirect
    PreToolUse-mcp.json) false ;;
    PreToolUse*.json | BeforeTool*.json) true ;;
    *) false ;;
    esac
}

for client in claude-code codex gemini; do
    for f in "$FIX/$client"/*.json; do
        name="$client/$(basename "$f")"
        ev=$(jq -r .hook_event_name "$f")
        fill "$f" > "$TMP/in.json"
        rc=0
        out=$("$AIRSPACE_BIN" hook "$client" < "$TMP/in.json" 2> "$TMP/err") || rc=$?
        check "$name: exit 0 ($rc)" [ "$rc" = 0 ]
        check "$name: an answer $client accepts for $ev ($out)" accepted "$client" "$ev" "$out"
        denied=$(printf '%s' "$out" | jq -rs '.[0] | (.hookSpecificOutput.permissionDecision // .decision // "none")')
        if writes "$f"; then
            check "$name: the write is denied ($denied)" [ "$denied" = deny ]
            check "$name: ... naming the holder" sh -c "printf '%s' \"\$1\" | grep -q \"locked by 'other'\"" x "$out"
        else
            check "$name: not denied ($denied)" [ "$denied" = none ]
        fi
    done
done
finish

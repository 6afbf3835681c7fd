# t186-lane-approach.sh - an agent is told before its first edit of a
# file in another agent's lane (its owner holds the lane's files over it,
# and `land` refuses what an agent changed outside its own lanes), held
# once as an approach is: it learned of it only afterwards, through a
# conflict. An edit outside every other lane, or in a lane of its own
# too, is not held.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/alice" "$R/src/bob"
echo 'int a;' > "$R/src/alice/a.c"
echo 'int b;' > "$R/src/bob/b.c"
echo 'int s;' > "$R/src/shared.c"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
as agent new alice > /dev/null 2>&1
as agent new bob > /dev/null 2>&1
WA="$TMP/repo.airspace/alice"
WB="$TMP/repo.airspace/bob"
api POST /v1/agents "{\"id\":\"alice\",\"client\":\"claude-code\",\"worktree\":\"$WA\",\"lanes\":[\"src/alice\",\"src/shared.c\"]}"
check "alice has her lanes ($CODE)" [ "$CODE" = 200 ]
hook_in() { # hook_in SESSION CWD EVENT [EXTRA-JSON-FIELDS]
    printf '{"session_id":"%s","cwd":"%s","hook_event_name":"%s"%s}' "$1" "$2" "$3" "${4:-}" |
        "$AIRSPACE_BIN" hook claude-code
}
hook_in s-bob "$WB" SessionStart > /dev/null
edit() { # edit FILE: bob's PreToolUse of an Edit of FILE: "decision|reason|context"
    hook_in s-bob "$WB" PreToolUse ",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$WB/$1\",\"old_string\":\"int\",\"new_string\":\"long\"}" |
        jq -rs '.[0].hookSpecificOutput | (.permissionDecision // "none") + "|" + (.permissionDecisionReason // "") + "|" + (.additionalContext // "")'
}
d=$(edit src/alice/a.c)
check "bob's first edit in alice's lane is held ($d)" sh -c 'case "$1" in "deny|"*"in the lane of '"'"'alice'"'"' (src/alice)"*"repeat it"*) true;; *) false;; esac' x "$d"
d=$(edit src/alice/a.c)
check "repeated, it goes through with the warning as context ($d)" sh -c 'case "$1" in "none||"*"the lane of '"'"'alice'"'"' (src/alice)"*) true;; *) false;; esac' x "$d"
check "his own file: nothing said ($(edit src/bob/b.c))" [ "$(edit src/bob/b.c)" = "none||" ]
# a lane of his own too: no warning
api POST /v1/agents "{\"id\":\"bob\",\"client\":\"claude-code\",\"worktree\":\"$WB\",\"lanes\":[\"src/bob\",\"src/shared.c\"]}"
check "a file in both their lanes: nothing said ($(edit src/shared.c))" [ "$(edit src/shared.c)" = "none||" ]
finish

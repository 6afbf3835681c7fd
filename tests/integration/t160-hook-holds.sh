# t160-hook-holds.sh - the first approach to other agents' changed lines
# is held once, then the repeated call goes through: with two agents near
# the lines, once in all (it was held once per agent, so the repeat the
# model was told to make was refused again). A new session under the same
# name has not seen the warning: it is held again, and the other agents
# are told again of its approach.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
i=1
while [ $i -le 40 ]; do echo "int v$i = $i;" >> "$R/src/t.c"; i=$((i + 1)); done
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
for a in alice bob carol; do as agent new $a > /dev/null 2>&1; done
W="$TMP/repo.airspace"
hook_in() { # hook_in SESSION CWD EVENT [EXTRA-JSON-FIELDS]
    printf '{"session_id":"%s","cwd":"%s","hook_event_name":"%s"%s}' "$1" "$2" "$3" "${4:-}" |
        "$AIRSPACE_BIN" hook claude-code
}
edit() { # edit SESSION AGENT LINE: the session changes that line and reports it
    e=",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$W/$2/src/t.c\",\"old_string\":\"int v$3 = $3;\",\"new_string\":\"int v$3 = 0;\"}"
    hook_in "$1" "$W/$2" PreToolUse "$e" > /dev/null
    sed -i "s/^int v$3 = $3;/int v$3 = 0;/" "$W/$2/src/t.c"
    hook_in "$1" "$W/$2" PostToolUse "$e,\"tool_response\":{}" > /dev/null
}
for s in alice bob carol; do hook_in "s-$s" "$W/$s" SessionStart > /dev/null; done
edit s-alice alice 20
edit s-carol carol 22
n=0
until [ "$(as agents --json | jq '[.agents[] | select(.fileCount == 1)] | length')" = 2 ] || [ $n -gt 100 ]; do
    sleep 0.05
    n=$((n + 1))
done
APPROACH=",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$W/bob/src/t.c\",\"old_string\":\"int v21 = 21;\",\"new_string\":\"int v21 = 7;\"}"
decision() { printf '%s' "$1" | jq -r '.hookSpecificOutput.permissionDecision // "none"'; }
pre=$(hook_in s-bob "$W/bob" PreToolUse "$APPROACH")
check "bob's first approach, near alice and carol, is held ($(decision "$pre"))" [ "$(decision "$pre")" = deny ]
check "... naming both" sh -c 'printf "%s" "$1" | jq -e ".hookSpecificOutput.permissionDecisionReason | test(\"alice\") and test(\"carol\") and test(\"repeat it\")" > /dev/null' x "$pre"
pre=$(hook_in s-bob "$W/bob" PreToolUse "$APPROACH")
check "repeated, it goes through with the warning ($(decision "$pre"))" [ "$(decision "$pre")" = none ]
check "... as context" sh -c 'printf "%s" "$1" | jq -e ".hookSpecificOutput.additionalContext | test(\"alice\")" > /dev/null' x "$pre"
told() { # told AGENT: the messages in its inbox saying bob approaches
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1/inbox?peek=1" |
        jq --arg re "'bob' is about to change" '[.messages[] | select(.body | test($re))] | length'
}
check "alice was told once ($(told alice))" [ "$(told alice)" = 1 ]

# bob's session ends; a new one takes the name: held again, told again
hook_in s-bob "$W/bob" SessionEnd ",\"reason\":\"other\"" > /dev/null
hook_in s-bob-2 "$W/bob" SessionStart > /dev/null
pre=$(hook_in s-bob-2 "$W/bob" PreToolUse "$APPROACH")
check "a new session under bob's name is held before its first approach ($(decision "$pre"))" [ "$(decision "$pre")" = deny ]
check "... and alice is told of it ($(told alice))" [ "$(told alice)" = 2 ]
pre=$(hook_in s-bob-2 "$W/bob" PreToolUse "$APPROACH")
check "... once ($(decision "$pre"))" [ "$(decision "$pre")" = none ]
finish

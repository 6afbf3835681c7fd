# t42-hooks-codex.sh - the hook scenario for Codex: apply_patch edits are
# parsed for their paths; two sessions in two worktrees meet on one file;
# the one that steers is denied, the holder is allowed; a lock is honoured;
# the end of a session releases its locks.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/lib"
printf 'def total(xs):\n    return sum(xs)\n' > "$R/lib/calc.py"
printf 'def mean(xs):\n    return sum(xs) / len(xs)\n' > "$R/lib/stats.py"
git -C "$R" add -A
git -C "$R" commit -qm base
git -C "$R" worktree add -q -b one "$TMP/one" main
git -C "$R" worktree add -q -b two "$TMP/two" main
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
hook() { printf '%s' "$1" | "$AIRSPACE_BIN" hook codex; }
patch() { # patch FILE: an apply_patch body updating FILE
    printf '*** Begin Patch\\n*** Update File: %s\\n@@\\n-    return sum(xs)\\n+    return sum(xs) or 0\\n*** End Patch\\n' "$1"
}
for s in one two; do
    hook "{\"session_id\":\"sess-$s-0001\",\"cwd\":\"$TMP/$s\",\"hook_event_name\":\"SessionStart\"}" > /dev/null
done
api GET /v1/agents
check "both Codex sessions registered" jqt "$TMP/body" '[.agents[] | select(.client == "codex")] | length == 2'
# session one patches calc.py (on disk, then PostToolUse)
sed -i 's/    return sum(xs)/    return sum(xs) or 0/' "$TMP/one/lib/calc.py"
hook "{\"session_id\":\"sess-one-0001\",\"cwd\":\"$TMP/one\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"apply_patch\",\"tool_input\":{\"input\":\"$(patch lib/calc.py)\"}}" > /dev/null
# session two patches the same line
sed -i 's/    return sum(xs)/    return sum(xs) + 0/' "$TMP/two/lib/calc.py"
n=0
until curl -s --unix-socket "$SOCK" http://a/v1/advisories | jq -e '[.advisories[] | select(.level == "resolution")] | length == 1' > /dev/null || [ $n -gt 100 ]; do sleep 0.05; n=$((n + 1)); done
pre() { # pre SESSION FILE -> decision
    hook "{\"session_id\":\"sess-$1-0001\",\"cwd\":\"$TMP/$1\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"apply_patch\",\"tool_input\":{\"input\":\"$(patch "$2")\"}}" |
        jq -r .hookSpecificOutput.permissionDecision
}
api GET /v1/advisories
HOLD=$(jq -r '.advisories[0].hold' "$TMP/body")
STEER=$(jq -r '.advisories[0].steer' "$TMP/body")
check "a resolution between the two sessions ($HOLD holds)" [ -n "$HOLD" ] && [ "$HOLD" != null ]
sh_of() { case $1 in *one*) echo one ;; *) echo two ;; esac; }
check "the steering session's patch is denied" [ "$(pre "$(sh_of "$STEER")" lib/calc.py)" = deny ]
check "the holder's patch is allowed" [ "$(pre "$(sh_of "$HOLD")" lib/calc.py)" = allow ]
# a lock held by the holder denies the other's patch on another file
api POST /v1/locks "{\"agent\":\"$HOLD\",\"pattern\":\"lib/stats.py\"}"
check "a locked file's patch is denied" [ "$(pre "$(sh_of "$STEER")" lib/stats.py)" = deny ]
hook "{\"session_id\":\"sess-$(sh_of "$HOLD")-0001\",\"cwd\":\"$TMP/$(sh_of "$HOLD")\",\"hook_event_name\":\"SessionEnd\"}" > /dev/null
check "after the holder's session ends, the lock is gone" [ "$(pre "$(sh_of "$STEER")" lib/stats.py)" = allow ]
finish

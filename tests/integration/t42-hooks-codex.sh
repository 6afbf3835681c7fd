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
        jq -rs '.[0].hookSpecificOutput.permissionDecision // "none"'
}
api GET /v1/advisories
HOLD=$(jq -r '.advisories[0].hold' "$TMP/body")
STEER=$(jq -r '.advisories[0].steer' "$TMP/body")
check "a resolution between the two sessions ($HOLD holds)" [ -n "$HOLD" ] && [ "$HOLD" != null ]
ONE=$(hook_agent codex sess-one-0001)
sh_of() { if [ "$1" = "$ONE" ]; then echo one; else echo two; fi; }
check "the steering session's patch is denied" [ "$(pre "$(sh_of "$STEER")" lib/calc.py)" = deny ]
check "the holder's patch is allowed" [ "$(pre "$(sh_of "$HOLD")" lib/calc.py)" = none ]
# a lock held by the holder denies the other's patch on another file
api POST /v1/locks "{\"agent\":\"$HOLD\",\"pattern\":\"lib/stats.py\"}"
check "a locked file's patch is denied" [ "$(pre "$(sh_of "$STEER")" lib/stats.py)" = deny ]
hook "{\"session_id\":\"sess-$(sh_of "$HOLD")-0001\",\"cwd\":\"$TMP/$(sh_of "$HOLD")\",\"hook_event_name\":\"SessionEnd\"}" > /dev/null
check "after the holder's session ends, the lock is gone" [ "$(pre "$(sh_of "$STEER")" lib/stats.py)" = none ]

# Codex session ids are time-ordered: two sessions started in the same
# minute share their first characters, and are still two agents
for s in 019abcde-0000-7000-8000-00000000000a 019abcde-0000-7000-8000-00000000000b; do
    hook "{\"session_id\":\"$s\",\"cwd\":\"$TMP/one\",\"hook_event_name\":\"SessionStart\"}" > /dev/null
done
api GET /v1/agents
check "two sessions of one minute are two agents" jqt "$TMP/body" \
    "[.agents[] | select(.id == \"$(hook_agent codex 019abcde-0000-7000-8000-00000000000a)\" or .id == \"$(hook_agent codex 019abcde-0000-7000-8000-00000000000b)\")] | length == 2"

# the patch as the shell tool's command: ["apply_patch", PATCH], and as a
# here-document in a shell command, with the call's workdir
api POST /v1/locks "{\"agent\":\"$ONE\",\"pattern\":\"lib/calc.py\",\"reason\":\"patch shapes\"}"
TWO=$(hook_agent codex sess-two-0001)
shape() { # shape TOOL_INPUT -> decision for session two
    hook "{\"session_id\":\"sess-two-0001\",\"cwd\":\"$TMP/two\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"shell\",\"tool_input\":$1}" |
        jq -rs '.[0].hookSpecificOutput.permissionDecision // "none"'
}
P=$(patch lib/calc.py)
check "command [apply_patch, PATCH] on a locked file: deny" \
    [ "$(shape "{\"command\":[\"apply_patch\",\"$P\"]}")" = deny ]
check "a here-document patch in bash -lc: deny" \
    [ "$(shape "{\"command\":[\"bash\",\"-lc\",\"apply_patch <<'EOF'\\n$P\\nEOF\"]}")" = deny ]
PSUB=$(patch calc.py)
check "cd lib && a here-document patch: deny" \
    [ "$(shape "{\"command\":\"cd lib && apply_patch <<'EOF'\\n$PSUB\\nEOF\"}")" = deny ]
check "the same from the worktree's top, of lib/calc.py's namesake: not denied" \
    [ "$(shape "{\"command\":\"apply_patch <<'EOF'\\n$PSUB\\nEOF\"}")" = none ]
check "a patch relative to the call's workdir: deny" \
    [ "$(shape "{\"command\":[\"apply_patch\",\"$PSUB\"],\"workdir\":\"$TMP/two/lib\"}")" = deny ]
PO=$(patch lib/other.py)
check "a patch of an unlocked file: not denied" \
    [ "$(shape "{\"command\":[\"apply_patch\",\"$PO\"]}")" = none ]
finish

# t105-parked.sh - an agent whose session ended while its worktree still
# holds its work is parked: it stays in the airspace, its pairs with active
# agents are scored at most traffic (it cannot act), whoever comes near its
# lines is told (advisory, approach warning, crew update) through the
# hooks as the clients call them; two parked agents make no pair; it leaves
# the airspace when its work is gone, and a session that takes its
# worktree over flies with that worktree's events.
. "$(dirname "$0")/lib.sh"
new_repo "$TMP/repo"
cd "$TMP/repo"
seq -f 'line %g' 1 40 > t.txt
commit 00:00 C0
git worktree add -q -b alice "$TMP/alice" main
git worktree add -q -b bob "$TMP/bob" main
start_daemon --debounce-ms 50 --tick-ms 50 --rescan-ms 60000

hook() { printf '%s' "$2" | "$AIRSPACE_BIN" hook "$1"; }
session() { # session ID DIR EVENT [EXTRA JSON]
    hook claude-code "{\"session_id\":\"$1\",\"cwd\":\"$2\",\"hook_event_name\":\"$3\"${4:+,$4}}"
}
id_of() { api GET /v1/agents && jq -r --arg w "$1" '.agents[] | select(.worktree == $w and .status != "gone") | .id' "$TMP/body" | head -1; }
pair() { # pair A B FIELD
    api GET '/v1/advisories?all=1' && jq -r --arg a "$1" --arg b "$2" \
        ".advisories[] | select((.a == \$a and .b == \$b) or (.a == \$b and .b == \$a)) | $3" "$TMP/body"
}
wait_for() { # wait_for CMD... (at most 5 s)
    n=0
    until "$@" || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
}

session aaaa-alice "$TMP/alice" SessionStart '"source":"startup"' > /dev/null
session bbbb-bob "$TMP/bob" SessionStart '"source":"startup"' > /dev/null
A=$(id_of "$TMP/alice")
B=$(id_of "$TMP/bob")
check "two sessions registered ($A, $B)" [ -n "$A" ] && [ -n "$B" ] && [ "$A" != "$B" ]

# both change lines 10-11: a resolution while both fly
sed -i 's/^line 10$/bob 10/; s/^line 11$/bob 11/' "$TMP/bob/t.txt"
sed -i 's/^line 10$/alice 10/' "$TMP/alice/t.txt"
is_level() { [ "$(pair "$A" "$B" .level)" = "$1" ]; }
wait_for is_level resolution
check "both active: resolution" is_level resolution

# bob's session ends; his change stays in his worktree
session bbbb-bob "$TMP/bob" SessionEnd '"reason":"exit"' > /dev/null
wait_for is_level traffic
check "bob exited: the pair comes down to traffic ($(pair "$A" "$B" .level))" is_level traffic
api GET /v1/agents
check "bob: exited and parked" jqt "$TMP/body" ".agents[] | select(.id == \"$B\") | .status == \"exited\" and .parked"
check "alice: not parked" jqt "$TMP/body" ".agents[] | select(.id == \"$A\") | .parked == false"
check "the pair names bob parked, holding; alice steers" \
    [ "$(pair "$A" "$B" '"\(.parked) \(.hold) \(.steer)"')" = "$B $B $A" ]
check "its risk is still the whole risk ($(pair "$A" "$B" .risk))" [ "$(pair "$A" "$B" '.risk >= 0.7')" = true ]
sleep 0.5
check "at most traffic, also after ticks" is_level traffic

# alice is about to edit the same lines: told bob's work is parked there
out=$(session aaaa-alice "$TMP/alice" PreToolUse "\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$TMP/alice/t.txt\",\"old_string\":\"line 12\",\"new_string\":\"alice 12\"}")
printf '%s' "$out" > "$TMP/pre.json"
check "PreToolUse: not denied for the advisory (traffic only): held once for the approach" \
    jqt "$TMP/pre.json" '.hookSpecificOutput.permissionDecision == "deny" and (.hookSpecificOutput.permissionDecisionReason | test("repeat it"))'
check "PreToolUse: the approach names bob's lines and that he is parked" \
    jqt "$TMP/pre.json" ".hookSpecificOutput.permissionDecisionReason | test(\"'$B' \\\\(claude-code, parked: not active now, its work not landed\\\\) has changed lines 10-11 of t.txt\")"
out=$(session aaaa-alice "$TMP/alice" PreToolUse "\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$TMP/alice/t.txt\",\"old_string\":\"line 12\",\"new_string\":\"alice 12\"}")
printf '%s' "$out" > "$TMP/pre2.json"
check "PreToolUse repeated: goes through with the advisory as context" \
    jqt "$TMP/pre2.json" ".hookSpecificOutput.permissionDecision != \"deny\" and (.hookSpecificOutput.additionalContext | test(\"traffic advisory with '$B' \\\\(parked: not active now, its work not landed\\\\)\"))"
out=$(session aaaa-alice "$TMP/alice" UserPromptSubmit '"prompt":"go on"')
printf '%s' "$out" > "$TMP/ups.json"
check "crew update: bob's parked work and the advisory" \
    jqt "$TMP/ups.json" ".hookSpecificOutput.additionalContext | test(\"- $B \\\\(claude-code, parked: not active now, its work not landed\\\\) changed t.txt \\\\(lines 10-11\\\\)\") and test(\"traffic advisory with $B \\\\(parked\")"

# two parked agents: no pair
session aaaa-alice "$TMP/alice" SessionEnd '"reason":"exit"' > /dev/null
# (a pair that ended is not listed, or is clear)
gone_pair() { case "$(pair "$A" "$B" .level)" in "" | clear) true ;; *) false ;; esac; }
wait_for gone_pair
check "both parked: the pair ends ($(pair "$A" "$B" .level))" gone_pair
api GET /v1/agents
check "both parked" jqt "$TMP/body" "[.agents[] | select(.parked)] | length == 2"

# bob is back (a new session in his worktree, the same id): traffic again
# with alice parked; once alice's work is gone she leaves the airspace
session bbbb-bob "$TMP/bob" SessionStart '"source":"resume"' > /dev/null
check "bob back under his id" [ "$(id_of "$TMP/bob")" = "$B" ]
wait_for is_level traffic
check "bob back, alice parked: traffic ($(pair "$A" "$B" '"\(.level) \(.parked)"'))" [ "$(pair "$A" "$B" '"\(.level) \(.parked)"')" = "traffic $A" ]
git -C "$TMP/alice" checkout -q -- t.txt
wait_for gone_pair
check "alice's work gone: the pair ends" gone_pair
api GET /v1/agents
check "alice: exited, no longer parked" jqt "$TMP/body" ".agents[] | select(.id == \"$A\") | .status == \"exited\" and (.parked | not)"

# a new session (another id) in bob's worktree after his exit: the
# worktree's work is its own, its edits are read for it, bob is not parked
session bbbb-bob "$TMP/bob" SessionEnd '"reason":"exit"' > /dev/null
session cccc-carol "$TMP/bob" SessionStart '"source":"startup"' > /dev/null
api GET /v1/agents
C=$(jq -r --arg w "$TMP/bob" '.agents[] | select(.worktree == $w and .status == "active") | .id' "$TMP/body")
check "carol registered in bob's worktree ($C)" [ -n "$C" ] && [ "$C" != "$B" ]
sed -i 's/^line 30$/carol 30/' "$TMP/bob/t.txt"
carol_lines() { api GET "/v1/agents/$C" && jq -c '[.files[] | .lines]' "$TMP/body"; }
has30() { [ "$(carol_lines)" = '[[[10,11],[30,30]]]' ]; }
wait_for has30
check "carol's edit is read for her ($(carol_lines))" has30
api GET /v1/agents
check "bob is not parked where carol flies" jqt "$TMP/body" ".agents[] | select(.id == \"$B\") | .parked == false"
# dave's session in a third worktree changes line 31 and ends: parked, at
# traffic with carol; his worktree deleted by hand takes his work with it:
# he is no longer parked, nothing of his is in flight, the pair ends
git worktree add -q -b dave "$TMP/dave" main
session dddd-dave "$TMP/dave" SessionStart '"source":"startup"' > /dev/null
D=$(id_of "$TMP/dave")
sed -i 's/^line 31$/dave 31/' "$TMP/dave/t.txt"
dave_has() { api GET "/v1/agents/$D" && [ "$(jq -r .fileCount "$TMP/body")" = "$1" ]; }
wait_for dave_has 1
session dddd-dave "$TMP/dave" SessionEnd '"reason":"exit"' > /dev/null
cd_level() { pair "$C" "$D" '"\(.level) \(.parked)"'; }
cd_traffic() { [ "$(cd_level)" = "traffic $D" ]; }
wait_for cd_traffic
check "dave ($D) parked, at traffic with carol ($(cd_level))" cd_traffic
rm -rf "$TMP/dave"
wait_for dave_has 0
api GET "/v1/agents/$D"
check "dave's worktree deleted: not parked, no files" jqt "$TMP/body" '.parked == false and .fileCount == 0'
cd_over() { l=$(cd_level); [ -z "$l" ] || [ "${l%% *}" = clear ]; }
wait_for cd_over
check "and his pair with carol ends ($(cd_level))" cd_over
finish

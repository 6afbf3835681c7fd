# t137-agent-rm-at-once.sh - `agent rm` takes effect in the daemon before
# it returns: the removed agent is exited with no work (not parked with
# the files its worktree had) in the very next `airspace agents`, forced
# (uncommitted work discarded) or not, its branch deleted or kept; and
# the same for `agent prune`. The watch is slow here (--debounce-ms), so
# only the command itself can have told the daemon.
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
base_repo "$R"
seq 1 20 > t.txt
commit 00:01 t
start_daemon --tick-ms 50 --rescan-ms 600000 --debounce-ms 30000
W="$TMP/repo.airspace"

gone_clean() { # gone_clean ID: exited, no files, not parked
    as agents --json > "$TMP/agents.json"
    jqt "$TMP/agents.json" "[.agents[] | select(.id == \"$1\")] | length == 1 and (.[0] | .status == \"exited\" and .fileCount == 0 and (.parked | not))"
}
files_of() { # files_of ID: its file count as the daemon has it
    api GET "/v1/agents/$1" && jq -r .fileCount "$TMP/body"
}

# carol: uncommitted work, removed with --force
as agent new carol > /dev/null 2>&1
sed -i 's/^5$/carol 5/' "$W/carol/t.txt"
api POST /v1/refresh
check "carol's work is seen ($(files_of carol) files)" [ "$(files_of carol)" = 1 ]
as agent rm carol --force --json > "$TMP/rm.json" 2> /dev/null
check "agent rm --force: carol exited" jqt "$TMP/rm.json" '.exited == ["carol"] and .forced'
check "... and at once gone with her work, not parked" gone_clean carol

# bob: a commit not merged (its branch kept) and a clean worktree
as agent new bob > /dev/null 2>&1
echo b > "$W/bob/b.txt"
git -C "$W/bob" add b.txt
git -C "$W/bob" commit -qm bob
api POST /v1/refresh
check "bob's work is seen ($(files_of bob) files)" [ "$(files_of bob)" = 1 ]
as agent rm bob --json > "$TMP/rm.json" 2> /dev/null
check "agent rm: bob's branch kept" jqt "$TMP/rm.json" '.branchDeleted == false and .exited == ["bob"]'
check "... and bob at once exited, no work, not parked" gone_clean bob

# dana: her session over (parked with her work), then her worktree
# deleted by hand and pruned
as agent new dana > /dev/null 2>&1
sed -i 's/^9$/dana 9/' "$W/dana/t.txt"
api POST /v1/refresh
api POST /v1/agents/dana/exit
api GET /v1/agents/dana
check "dana exited with her work: parked" jqt "$TMP/body" '.parked == true and .fileCount == 1'
rm -rf "$W/dana"
as agent prune > /dev/null 2>&1
check "agent prune: dana at once no longer parked" gone_clean dana
finish

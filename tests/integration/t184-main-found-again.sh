# t184-main-found-again.sh - a session that took over the main checkout
# and then went silent is forgotten after agent-timeout-ms; the main
# checkout is found again at once, as the discovered agent `main` with its
# changed file, not left nobody's until the next periodic rescan (here a
# minute away), when nobody would be warned near that file.
. "$(dirname "$0")/lib.sh"

base_repo "$TMP/repo"
R=$(pwd -P)
echo 'int a;' > a.c
git add a.c
git commit -qm a
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000 \
    --stale-ms 300 --agent-timeout-ms 1000
printf '{"session_id":"s-gone","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}' "$R" |
    "$AIRSPACE_BIN" hook claude-code > /dev/null
echo 'int a = 1;' > a.c
SID=$(hook_agent cc s-gone)
gone() { ! as agents --json | jq -e --arg s "$SID" '.agents[] | select(.id == $s)' > /dev/null; }
n=0
until gone || [ $n -gt 200 ]; do sleep 0.05; n=$((n + 1)); done
check "the silent session is forgotten" gone
main_has() {
    as agents --json | jq -e --arg r "$R" '[.agents[] | select(.worktree == $r and .status != "exited")] |
        length == 1 and .[0].id == "main" and .[0].fileCount == 1' > /dev/null
}
n=0
until main_has || [ $n -gt 60 ]; do sleep 0.05; n=$((n + 1)); done
check "the main checkout is agent main again, with its file, at once ($(as agents --json | jq -c '[.agents[] | {id, worktree, fileCount}]'))" main_has
finish

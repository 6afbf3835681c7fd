# t106-map-parked.sh - a parked agent (its session over, its work still in
# its worktree) on the live map in a real browser (Debian's chromium,
# headless, playwright-core): the agents panel lists it as parked, and the
# advisory board shows its pair with the active agent at traffic, naming
# it parked. SKIP without chromium.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map_lib.sh"
need_browser

new_repo "$TMP/repo"
cd "$TMP/repo"
seq -f 'line %g' 1 20 > t.txt
commit 00:00 C0
git worktree add -q -b alice "$TMP/alice" main
git worktree add -q -b bob "$TMP/bob" main
start_daemon --debounce-ms 50
api POST /v1/agents "{\"id\":\"alice\",\"client\":\"claude-code\",\"worktree\":\"$TMP/alice\"}"
api POST /v1/agents "{\"id\":\"bob\",\"client\":\"codex\",\"worktree\":\"$TMP/bob\"}"
sed -i 's/^line 5$/bob 5/' "$TMP/bob/t.txt"
sed -i 's/^line 5$/alice 5/' "$TMP/alice/t.txt"
api POST /v1/agents/bob/exit
level() { api GET '/v1/advisories?all=1' && jq -r '.advisories[] | select(.a == "alice" and .b == "bob") | "\(.level) \(.parked)"' "$TMP/body"; }
n=0
until [ "$(level)" = "traffic bob" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "bob exited, parked: traffic ($(level))" [ "$(level)" = "traffic bob" ]
map_url
check "open prints the map's address" [ -n "$PORT" ]
node "$BROWSER_DIR/t106-map-parked.mjs" "$URL" > "$TMP/out" 2>&1 && st=0 || st=$?
cat "$TMP/out"
check "the browser scenario passes" [ "$st" = 0 ]
finish

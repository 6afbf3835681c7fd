# t81-map.sh - the live map in a real browser (Debian's chromium, headless,
# driven by playwright-core): a daemon on a repository with two worktrees;
# the page loads with no console error and no request to any host but the
# daemon; the agents appear; edits in both worktrees make the advisory link
# and its board entry appear within 2 s; a lock shows; following an agent
# opens its panel; a reply as the human reaches the agent; its
# connections cut (ss -K), the stream resumes after the last event it had
# with no event lost or twice; the page says when the daemon is gone.
# The screenshot is kept as a test artefact
# (<build>/test-artefacts/t81-map.png). SKIP without chromium.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map_lib.sh"
need_browser

map_repo "$TMP/repo"
start_daemon
as api POST /v1/agents "{\"id\":\"alice\",\"client\":\"claude-code\",\"worktree\":\"$TMP/alice\"}" > /dev/null
as api POST /v1/agents "{\"id\":\"bob\",\"client\":\"codex\",\"worktree\":\"$TMP/bob\"}" > /dev/null
map_url
check "open prints the map's address" [ -n "$PORT" ]
node "$BROWSER_DIR/t81-map.mjs" "$URL" "$AIRSPACE_BIN" "$TMP/alice" "$TMP/bob" \
    "$ARTEFACTS/t81-map.png" > "$TMP/out" 2>&1 && st=0 || st=$?
cat "$TMP/out"
check "the browser scenario passes" [ "$st" = 0 ]
check "the screenshot is kept" [ -s "$ARTEFACTS/t81-map.png" ]
finish

# t113-map-panels.sh - the live map's panels over time, in a real browser
# (Debian's chromium, headless, playwright-core): a lock's time left
# counts down between events; an agent's 64-character id neither scrolls
# the follow panel sideways nor widens the reply form past the side panel
# (at 1280 and 1920 px: screenshots kept as test artefacts,
# <build>/test-artefacts/t113-map-*.png); an unread answer to the human is
# still shown after 120 newer messages and a reload; a restarted daemon (a
# new token) makes the page say to run `airspace open` again, and it stops
# asking. SKIP without chromium.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map_lib.sh"
need_browser

map_repo "$TMP/repo"
start_daemon
# the restart is `open`'s start on demand: stop that daemon too
trap '"$AIRSPACE_BIN" stop > /dev/null 2>&1 || :; kill $DPID 2> /dev/null && wait $DPID 2> /dev/null; rm -rf "$TMP"' EXIT
LONG=eve-long-name-$(printf "a%.0s" $(seq 50))
as api POST /v1/agents "{\"id\":\"alice\",\"client\":\"claude-code\",\"worktree\":\"$TMP/alice\"}" > /dev/null
as api POST /v1/agents "{\"id\":\"$LONG\",\"client\":\"codex\",\"worktree\":\"$TMP/bob\"}" > /dev/null
check "the long id is 64 characters" [ ${#LONG} = 64 ]
echo 'int x;' >> "$TMP/bob/src/core/m2.c"
map_url
check "open prints the map's address" [ -n "$PORT" ]
node "$BROWSER_DIR/t113-map-panels.mjs" "$URL" "$AIRSPACE_BIN" "$TMP/alice" "$LONG" \
    "$ARTEFACTS/t113-map" > "$TMP/out" 2>&1 && st=0 || st=$?
cat "$TMP/out"
check "the browser scenario passes" [ "$st" = 0 ]
finish

# t104-map-integration.sh - an integration conflict (alice's committed
# work conflicts with what main changed after her base) on the live map in
# a real browser (Debian's chromium, headless, playwright-core): the
# conflicts panel names alice against "branch main", and her notice is
# among the messages. SKIP without chromium.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map_lib.sh"
need_browser

new_repo "$TMP/repo"
cd "$TMP/repo"
seq -f 'line %g' 1 20 > t.txt
commit 00:00 C0
git worktree add -q -b alice "$TMP/alice" main
sed -i 's/^line 5$/alice 5/' "$TMP/alice/t.txt"
(cd "$TMP/alice" && commit 00:10 "alice 5")
sed -i 's/^line 5$/main 5/' t.txt
commit 00:20 "main 5"
start_daemon
map_url
check "open prints the map's address" [ -n "$PORT" ]
node "$BROWSER_DIR/t104-map-integration.mjs" "$URL" > "$TMP/out" 2>&1 && st=0 || st=$?
cat "$TMP/out"
check "the browser scenario passes" [ "$st" = 0 ]
finish

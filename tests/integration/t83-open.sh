# t83-open.sh - `airspace open`: with no daemon running it starts one,
# prints http://127.0.0.1:PORT/#token=... with the daemon's token, and
# hands $BROWSER (detached) a private page that leads there: no argument
# of the browser holds the token (a command line is readable by every
# local user), the page is the user's alone (0600, in the 0700 airspace
# directory) and, in a real browser when there is one, opens the map;
# again, the same address and no second listener; --no-browser only
# prints; without a browser it says so; a port taken by another daemon is
# refused (exit 1) and a bad option or port is a usage error (exit 2).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map_lib.sh"

map_repo "$TMP/repo"
trap '"$AIRSPACE_BIN" stop --repo "$TMP/repo" > /dev/null 2>&1 || :; "$AIRSPACE_BIN" stop --repo "$TMP/two" > /dev/null 2>&1 || :; rm -rf "$TMP"' EXIT
# the browser records its arguments, one a line
cat > "$TMP/browser" <<'SH'
#!/bin/sh
printf '%s\n' "$@" > "$0.args.tmp"
mv "$0.args.tmp" "$0.args"
SH
chmod +x "$TMP/browser"

BROWSER="$TMP/browser" as open > "$TMP/out" 2> "$TMP/err" && st=0 || st=$?
check "open: exit 0" [ "$st" = 0 ]
URL=$(cat "$TMP/out")
check "it prints the map's address" grep -Eq '^http://127\.0\.0\.1:[0-9]+/#token=[0-9a-f]{48}$' "$TMP/out"
check "... with the daemon's token" [ "${URL##*#token=}" = "$(cat .git/airspace/token)" ]
check "it started the daemon" as status > /dev/null
TOKEN=${URL##*#token=}
wait_args() {
    n=0
    while [ ! -s "$TMP/browser.args" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
}
wait_args
check "the browser is started" [ -s "$TMP/browser.args" ]
check "... with no argument that holds the token" \
    sh -c "! grep -q '$TOKEN' '$TMP/browser.args'"
PAGE=$(git rev-parse --path-format=absolute --git-common-dir)/airspace/map.html
check "... with the private page to open" [ "$(cat "$TMP/browser.args")" = "file://$PAGE" ]
check "... and open says which" grep -q "opening it with $TMP/browser" "$TMP/err"
check "the page is the user's alone (0600)" [ "$(stat -c '%a %u' "$PAGE")" = "600 $(id -u)" ]
check "... in a directory only the user can enter" [ "$(stat -c '%a' "$(dirname "$PAGE")")" = 700 ]
check "... and sends the browser to the address" grep -qF "url=$URL\"" "$PAGE"
PORT=$(printf '%s' "$URL" | sed 's|^http://127\.0\.0\.1:\([0-9]*\)/.*|\1|')
check "the page is served there" [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")" = 200 ]
if command -v chromium > /dev/null 2>&1 &&
    [ -f "$AIRSPACE_SOURCE_DIR/tests/browser/node_modules/playwright-core/package.json" ]; then
    node "$AIRSPACE_SOURCE_DIR/tests/browser/t83-open.mjs" "file://$PAGE" "$URL" > "$TMP/browser.out" 2>&1 && st=0 || st=$?
    cat "$TMP/browser.out"
    check "in a real browser the page opens the map" [ "$st" = 0 ]
else
    echo "skip: no chromium with playwright-core: the page not opened in a browser"
fi

# a $BROWSER command line with %s: the page in place of it, no token
rm -f "$TMP/browser.args"
BROWSER="$TMP/browser --new-window %s" as open > /dev/null 2> "$TMP/err1"
wait_args
check "\$BROWSER with %s: the page's address in its place" \
    [ "$(cat "$TMP/browser.args" 2> /dev/null)" = "$(printf -- '--new-window\nfile://%s' "$PAGE")" ]

rm -f "$TMP/browser.args"
BROWSER="$TMP/browser" as open --no-browser > "$TMP/out2" 2> "$TMP/err2"
check "again: the same address" [ "$(cat "$TMP/out2")" = "$URL" ]
sleep 0.3
check "--no-browser: no browser" [ ! -e "$TMP/browser.args" ]
env -u BROWSER -u DISPLAY -u WAYLAND_DISPLAY "$AIRSPACE_BIN" open > "$TMP/out3" 2> "$TMP/err3" && st=0 || st=$?
check "no browser at hand: still exit 0 with the address" [ "$st" = 0 ] && [ "$(cat "$TMP/out3")" = "$URL" ]
check "... saying there is none" grep -q "no browser found" "$TMP/err3"
as open --no-browser --port 1 > /dev/null 2> "$TMP/err4"
check "a different --port on a daemon that serves the map: says where it is" \
    grep -q "already serves the map on port $PORT" "$TMP/err4"

# a second repository's daemon cannot take the first one's port
new_repo "$TMP/two"
echo x > "$TMP/two/x"
git -C "$TMP/two" add -A
git -C "$TMP/two" commit -qm base
as open --repo "$TMP/two" --no-browser --port "$PORT" > /dev/null 2> "$TMP/err5" && st=0 || st=$?
check "a port taken: exit 1" [ "$st" = 1 ]
check "... naming it" grep -q "cannot listen on 127.0.0.1:$PORT" "$TMP/err5"
as open --repo "$TMP/two" --no-browser > "$TMP/out6"
check "... and a free port then" grep -Eq '^http://127\.0\.0\.1:[0-9]+/#token=' "$TMP/out6"
check "... not the first daemon's" sh -c "! grep -q ':$PORT/' '$TMP/out6'"

as open --port nope > /dev/null 2>&1 && st=0 || st=$?
check "--port nope: exit 2" [ "$st" = 2 ]
as open --port 70000 > /dev/null 2>&1 && st=0 || st=$?
check "--port 70000: exit 2" [ "$st" = 2 ]
as open --bogus > /dev/null 2>&1 && st=0 || st=$?
check "an unknown option: exit 2" [ "$st" = 2 ]
as open extra > /dev/null 2>&1 && st=0 || st=$?
check "an argument: exit 2" [ "$st" = 2 ]
finish

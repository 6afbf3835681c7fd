# t83-open.sh - `airspace open`: with no daemon running it starts one,
# prints http://127.0.0.1:PORT/#token=... with the daemon's token, and
# hands that address to $BROWSER (detached); again, the same address and
# no second listener; --no-browser only prints; without a browser it says
# so; a port taken by another daemon is refused (exit 1) and a bad option
# or port is a usage error (exit 2).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map_lib.sh"

map_repo "$TMP/repo"
trap '"$AIRSPACE_BIN" stop --repo "$TMP/repo" > /dev/null 2>&1 || :; "$AIRSPACE_BIN" stop --repo "$TMP/two" > /dev/null 2>&1 || :; rm -rf "$TMP"' EXIT
cat > "$TMP/browser" <<'SH'
#!/bin/sh
echo "$1" > "$0.url"
SH
chmod +x "$TMP/browser"

BROWSER="$TMP/browser" as open > "$TMP/out" 2> "$TMP/err" && st=0 || st=$?
check "open: exit 0" [ "$st" = 0 ]
URL=$(cat "$TMP/out")
check "it prints the map's address" grep -Eq '^http://127\.0\.0\.1:[0-9]+/#token=[0-9a-f]{48}$' "$TMP/out"
check "... with the daemon's token" [ "${URL##*#token=}" = "$(cat .git/airspace/token)" ]
check "it started the daemon" as status > /dev/null
n=0
while [ ! -s "$TMP/browser.url" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
check "the browser got the address" [ "$(cat "$TMP/browser.url" 2> /dev/null)" = "$URL" ]
check "... and open says which" grep -q "opening it with $TMP/browser" "$TMP/err"
PORT=$(printf '%s' "$URL" | sed 's|^http://127\.0\.0\.1:\([0-9]*\)/.*|\1|')
check "the page is served there" [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")" = 200 ]

rm -f "$TMP/browser.url"
BROWSER="$TMP/browser" as open --no-browser > "$TMP/out2" 2> "$TMP/err2"
check "again: the same address" [ "$(cat "$TMP/out2")" = "$URL" ]
sleep 0.3
check "--no-browser: no browser" [ ! -e "$TMP/browser.url" ]
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

# t82-map-security.sh - the map's listener refuses what is not this
# daemon's page talking to it: no token, a wrong token, the token in the
# query of any route but the event stream, a foreign Host (DNS rebinding)
# or a foreign Origin (403 before the token is looked at; a refused
# message is not delivered); the page's own files need no token and carry
# a Content-Security-Policy. Then the page without WebGL: the same picture
# on a 2-D canvas, no console error (chromium; that half SKIPs without it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map_lib.sh"

map_repo "$TMP/repo"
start_daemon
as api POST /v1/agents "{\"id\":\"alice\",\"client\":\"claude-code\",\"worktree\":\"$TMP/alice\"}" > /dev/null
as api POST /v1/agents "{\"id\":\"bob\",\"client\":\"codex\",\"worktree\":\"$TMP/bob\"}" > /dev/null
map_url
U="http://127.0.0.1:$PORT"
check "the token file is the user's alone" [ "$(stat -c %a .git/airspace/token)" = 600 ]
check "the address carries that token" [ "$TOKEN" = "$(cat .git/airspace/token)" ]

# code ARGS...: the HTTP status of one request (body in $TMP/body)
code() {
    curl -s -o "$TMP/body" -w '%{http_code}' --max-time 2 "$@" || :
}
A="Authorization: Bearer $TOKEN"
check "the page needs no token" [ "$(code "$U/")" = 200 ]
check "... and says where it may load from" sh -c \
    "curl -s -D - -o /dev/null '$U/' | grep -qi \"^content-security-policy: default-src 'none'; script-src 'self'\""
check "... no sniffing" sh -c "curl -s -D - -o /dev/null '$U/map/app.js' | grep -qi '^x-content-type-options: nosniff'"
check "an unknown page file: 404" [ "$(code "$U/map/nope.js")" = 404 ]
check "layout without a token: 401" [ "$(code "$U/v1/map/layout")" = 401 ]
check "... in JSON" jqt "$TMP/body" '.error.code == "unauthorized"'
check "layout with a wrong token: 401" [ "$(code -H "Authorization: Bearer x$TOKEN" "$U/v1/map/layout")" = 401 ]
check "layout with a token of another length: 401" [ "$(code -H "Authorization: Bearer ${TOKEN%?}" "$U/v1/map/layout")" = 401 ]
check "layout with the token: 200" [ "$(code -H "$A" "$U/v1/map/layout")" = 200 ]
check "... every file with its position" jqt "$TMP/body" \
    '(.paths | length) == 23 and (.xyz | length) == 69 and (.dir | length) == 23 and (.lang | length) == 23'
check "... its directory and language" jqt "$TMP/body" \
    '(.paths | index("src/core/m1.c")) as $i | .dirs[.dir[$i]] == "src/core" and .langs[.lang[$i]] == "c"'
check "the token in the query of another route: 401" [ "$(code "$U/v1/map/layout?token=$TOKEN")" = 401 ]
check "the event stream with a wrong token: 401" [ "$(code "$U/v1/events?token=nope")" = 401 ]
check "the event stream with the token in its query: 200" [ "$(code "$U/v1/events?token=$TOKEN&after=0")" = 200 ]
check "... streams the events" grep -q '^event: agent.registered' "$TMP/body"

# DNS rebinding: another site's name resolving to 127.0.0.1
check "a foreign Host: 403, even with the token" [ "$(code -H "$A" -H "Host: evil.example:$PORT" "$U/v1/status")" = 403 ]
check "... in JSON" jqt "$TMP/body" '.error.code == "forbidden"'
check "a foreign Host: no page either" [ "$(code -H "Host: evil.example:$PORT" "$U/")" = 403 ]
check "another port in Host: 403" [ "$(code -H "$A" -H "Host: 127.0.0.1:1" "$U/v1/status")" = 403 ]
check "no Host: 403" [ "$(code -H "$A" -H "Host:" "$U/v1/status")" = 403 ]
check "localhost:PORT is this daemon" [ "$(code -H "$A" -H "Host: localhost:$PORT" "$U/v1/status")" = 200 ]
check "a foreign Origin: 403, even with the token" [ "$(code -H "$A" -H "Origin: http://evil.example" "$U/v1/status")" = 403 ]
check "Origin null: 403" [ "$(code -H "$A" -H "Origin: null" "$U/v1/status")" = 403 ]
check "this daemon's Origin: 200" [ "$(code -H "$A" -H "Origin: http://localhost:$PORT" "$U/v1/status")" = 200 ]
check "a message from a foreign Origin: 403" [ "$(code -X POST -H "$A" -H "Origin: http://evil.example" \
    -H 'Content-Type: application/json' --data '{"from":"alice","to":"bob","body":"rm -rf"}' "$U/v1/messages")" = 403 ]
check "... not delivered" sh -c "'$AIRSPACE_BIN' inbox --agent bob | grep -q 'no new messages'"

# ---- without WebGL: the 2-D canvas ----
need_browser
node "$BROWSER_DIR/t82-fallback.mjs" "$URL" "$ARTEFACTS/t82-map-2d.png" > "$TMP/out" 2>&1 && st=0 || st=$?
cat "$TMP/out"
check "the page draws in 2-D without WebGL" [ "$st" = 0 ]
finish

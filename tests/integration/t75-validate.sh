# t75-validate.sh - input the daemon would store and then ignore is refused
# up front (regions, lanes), and absolute paths are taken against the
# repository, never silently made relative; a refused request changes
# nothing.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
printf 'x\n' > "$R/src/x.c"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"

start_daemon --tick-ms 50 --rescan-ms 600000
api POST /v1/agents '{"id":"alice"}'

# regions
api POST /v1/intents '{"agent":"alice","files":["src/x.c"],"regions":{"src/x.c":[{"name":"()"}]}}'
check "an empty region name is refused (400, got $CODE)" [ "$CODE" = 400 ]
check "the error names it" grep -q "region name '()' is empty" "$TMP/body"
api POST /v1/intents '{"agent":"alice","files":["src/x.c"],"regions":{"src/x.c":[{"lines":[0,3]}]}}'
check "line 0 is refused (got $CODE)" [ "$CODE" = 400 ]
api POST /v1/intents '{"agent":"alice","files":["src/x.c"],"regions":{"src/x.c":[{"nam":"f"}]}}'
check "a region that is neither name nor lines is refused (got $CODE)" [ "$CODE" = 400 ]
api POST /v1/intents '{"agent":"alice","files":["src/x.c"],"regions":{"src/y.c":[{"name":"f"}]}}'
check "regions of a file not in the intent are refused (got $CODE)" [ "$CODE" = 400 ]
api GET /v1/intents
check "no intent was stored" jqt "$TMP/body" '.intents | length == 0'
api POST /v1/intents "{\"agent\":\"alice\",\"files\":[\"./src/x.c\"],\"regions\":{\"$R/src/x.c\":[{\"name\":\"fn parse()\"},{\"lines\":[9,3]}]}}"
check "valid regions are accepted (got $CODE)" [ "$CODE" = 200 ]
check "stored under the normalised path" jqt "$TMP/body" \
    '.files == ["src/x.c"] and (.regions | keys) == ["src/x.c"] and (.regions["src/x.c"] | length) == 2'
check "lines given end first are kept in order" jqt "$TMP/body" '.regions["src/x.c"][1].lines == [3, 9]'

# lanes
api POST /v1/agents '{"id":"bob","lanes":["src/[abc"]}'
check "a lane that is not a glob is refused (400, got $CODE)" [ "$CODE" = 400 ]
check "the error names the lane" grep -q "src/\[abc" "$TMP/body"
api GET /v1/agents
check "bob was not registered" jqt "$TMP/body" '.agents | map(.id) | index("bob") == null'
api POST /v1/agents '{"id":"bob","lanes":["src/db/**","@backend"]}'
check "good lanes are accepted (got $CODE)" [ "$CODE" = 200 ]

# absolute paths
api POST /v1/intents '{"agent":"alice","files":["/etc/passwd"]}'
check "an absolute path outside the repository is refused (got $CODE)" [ "$CODE" = 400 ]
check "as bad_path" jqt "$TMP/body" '.error.code == "bad_path"'
api POST /v1/intents "{\"agent\":\"alice\",\"files\":[\"$R/src/new.c\"]}"
check "an absolute path inside is accepted (got $CODE)" [ "$CODE" = 200 ]
check "and made relative" jqt "$TMP/body" '.files == ["src/new.c"]'
api POST /v1/agents/alice/edits '{"path":"/etc/passwd"}'
check "an edit outside the repository is refused (got $CODE)" [ "$CODE" = 400 ]
check "as bad_path too" jqt "$TMP/body" '.error.code == "bad_path"'
api POST /v1/agents/alice/edits "{\"path\":\"$R/src/x.c\",\"lines\":[[1,1]]}"
check "an edit inside is accepted (got $CODE)" [ "$CODE" = 200 ]
check "under its relative path" jqt "$TMP/body" '.files | map(.path) == ["src/x.c"]'
api GET /v1/agents/alice
check "nothing of /etc/passwd was kept" jqt "$TMP/body" '.files | map(.path) | index("etc/passwd") == null'

api POST /v1/stop
wait "$DPID" 2>/dev/null || true
finish

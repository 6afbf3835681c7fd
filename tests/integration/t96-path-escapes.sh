# t96-path-escapes.sh - paths and patterns an agent gives stay names inside
# the repository: `..` escapes and absolute paths outside the worktrees are
# refused 400 bad_path (locks, intents, reported edits, the CLI), and a path
# through a symbolic link inside a worktree is kept as the link's name — the
# daemon never follows it to the file outside, which stays untouched.
. "$(dirname "$0")/lib.sh"

base_repo "$TMP/repo"
R=$(pwd -P)
mkdir -p "$TMP/outside" src
echo secret > "$TMP/outside/secret"
ln -s "$TMP/outside" link
before=$(stat -c '%Y %s' "$TMP/outside/secret")
AIR="$(git rev-parse --git-common-dir)/airspace"
mkdir -p "$AIR"
chmod 700 "$AIR"
cat > "$AIR/config" << CFG
[alerts]
	waiting = 1
	command = cat >> '$TMP/notified'
CFG
start_daemon --tick-ms 50
api POST /v1/agents "{\"id\":\"al\",\"worktree\":\"$R\"}"

for p in "../x" "src/../../x" "/etc/passwd" "$TMP/outside/secret" "$R/link/../../outside/secret"; do
    api POST /v1/locks "{\"agent\":\"al\",\"pattern\":\"$p\"}"
    check "lock '$p': 400 bad_path ($CODE $(cat "$TMP/body"))" \
        sh -c "[ $CODE = 400 ] && jq -e '.error.code == \"bad_path\"' '$TMP/body' > /dev/null"
    api POST /v1/intents "{\"agent\":\"al\",\"files\":[\"$p\"]}"
    check "intent '$p': 400 bad_path ($CODE)" \
        sh -c "[ $CODE = 400 ] && jq -e '.error.code == \"bad_path\"' '$TMP/body' > /dev/null"
    api POST /v1/agents/al/edits "{\"path\":\"$p\",\"lines\":[[1,2]]}"
    check "edits '$p': 400 bad_path ($CODE)" \
        sh -c "[ $CODE = 400 ] && jq -e '.error.code == \"bad_path\"' '$TMP/body' > /dev/null"
done
rc=0
as lock --agent al ../x 2> /dev/null || rc=$?
check "the CLI refuses '../x' before sending (exit $rc)" [ "$rc" = 2 ]

# through the link: a name in the repository, never the file outside
api POST /v1/locks "{\"agent\":\"al\",\"pattern\":\"$R/link/secret\"}"
check "a lock through the link is the link's name ($(jq -r .pattern "$TMP/body"))" \
    jq -e '.pattern == "link/secret"' "$TMP/body"
api POST /v1/intents "{\"agent\":\"al\",\"files\":[\"$R/link/secret\"]}"
check "an intent through the link is the link's name" jq -e '.files == ["link/secret"]' "$TMP/body"
api POST /v1/agents/al/edits "{\"path\":\"link/secret\",\"lines\":[[1,1]]}"
check "an edit report through the link is accepted as a name ($CODE)" [ "$CODE" = 200 ]
api GET /v1/status
check "the outside file is untouched" [ "$(stat -c '%Y %s' "$TMP/outside/secret")" = "$before" ]
check "its content is untouched" [ "$(cat "$TMP/outside/secret")" = secret ]
check "the daemon holds nothing open outside the repository" \
    sh -c "! ls -l /proc/$DPID/fd 2> /dev/null | grep -q '$TMP/outside'"

# shell syntax in what an agent sends goes nowhere near a shell
body='$(touch '"$TMP"'/pwned) `touch '"$TMP"'/pwned`; touch '"$TMP"'/pwned | touch '"$TMP"'/pwned'
jq -n --arg b "$body" '{from: "al", to: "supervisor", body: $b}' > "$TMP/msg.json"
api POST /v1/messages "$(cat "$TMP/msg.json")"
check "a message full of shell syntax is sent ($CODE)" [ "$CODE" = 200 ]
n=0
until grep -q 'touch' "$TMP/notified" 2> /dev/null || [ $n -gt 100 ]; do sleep 0.1; n=$((n + 1)); done
check "the alert command got it as JSON on stdin" grep -q 'pwned' "$TMP/notified"
check "... and nothing of it ran" [ ! -e "$TMP/pwned" ]
finish

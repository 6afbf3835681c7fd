# t33-shared-tree.sh - several agents in ONE working tree: each one's work
# is what it reported; changes nobody reported belong to the human at the
# keyboard, who is seen and holds right of way.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
i=1
while [ $i -le 40 ]; do echo "line $i" >> "$R/src/a.txt"; i=$((i + 1)); done
cp "$R/src/a.txt" "$R/src/b.txt"
cp "$R/src/a.txt" "$R/src/c.txt"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
files_of() { # files_of AGENT: its working set paths, space separated
    curl -s --unix-socket "$SOCK" "http://a/v1/agents/$1" |
        jq -r '[.files[].path] | join(" ")'
}
wait_for() { # wait_for DESC COMMAND...: up to 5 s
    shift
    n=0
    while ! "$@" && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
    "$@"
}

api POST /v1/agents "{\"id\":\"cc-1\",\"client\":\"claude-code\",\"worktree\":\"$R\"}"
api POST /v1/agents "{\"id\":\"cc-2\",\"client\":\"claude-code\",\"worktree\":\"$R\"}"
api GET /v1/agents
check "a human agent appears for the shared tree" jqt "$TMP/body" \
    '[.agents[] | select(.kind == "human" and .client == "human")] | length == 1'
HUMAN=$(jq -r '.agents[] | select(.kind == "human") | .id' "$TMP/body")

# cc-1 edits a.txt (on disk, and reports it); cc-2 edits b.txt the same way
sed -i '3s/.*/changed by cc-1/' src/a.txt
api POST /v1/agents/cc-1/edits '{"path":"src/a.txt","lines":[[3,3]]}'
sed -i '30s/.*/changed by cc-2/' src/b.txt
api POST /v1/agents/cc-2/edits '{"path":"src/b.txt","lines":[[30,30]]}'
# the human edits c.txt directly: nobody reports it
sed -i '10s/.*/typed by a person/' src/c.txt
has_c() { [ "$(files_of "$HUMAN")" = "src/c.txt" ]; }
check "the human's work is the unreported change only ($(files_of "$HUMAN"))" wait_for x has_c
check "cc-1's work is what it reported" [ "$(files_of cc-1)" = "src/a.txt" ]
check "cc-2's work is what it reported" [ "$(files_of cc-2)" = "src/b.txt" ]

# cc-2 now reports an edit of the very line the human typed: resolution,
# and the human holds
sed -i '10s/.*/cc-2 rewrote it/' src/c.txt
api POST /v1/agents/cc-2/edits '{"path":"src/c.txt","lines":[[10,10]]}'
# the person types again right next to it
sed -i '11s/.*/the person again/' src/c.txt
pair() {
    curl -s --unix-socket "$SOCK" 'http://a/v1/advisories?all=1' |
        jq -r --arg a "$1" --arg b "$2" \
            "[.advisories[] | select((.a==\$a and .b==\$b) or (.a==\$b and .b==\$a))][0] | $3"
}
is_res() { [ "$(pair cc-2 "$HUMAN" .level)" = resolution ]; }
check "human and cc-2 on adjacent lines: resolution" wait_for x is_res
check "the human holds" [ "$(pair cc-2 "$HUMAN" .hold)" = "$HUMAN" ]
check "cc-2 steers" [ "$(pair cc-2 "$HUMAN" .steer)" = cc-2 ]
check "cc-1 and cc-2 clear (different files)" [ "$(pair cc-1 cc-2 .level)" = clear ]
finish

# t41-hooks-shared-tree.sh - two Claude Code sessions in ONE working tree
# and a person editing a file directly: the person is seen (a human agent)
# and holds right of way; the session that edits next to the person's
# change is denied on that file, the other session is not. Edits are
# reported on the right path through a symlinked directory and from a
# subdirectory's relative shell paths. The lines an edit removes are the
# session's, not the person's.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src"
i=1
while [ $i -le 30 ]; do echo "line $i" >> "$R/src/a.txt"; i=$((i + 1)); done
cp "$R/src/a.txt" "$R/src/c.txt"
cp "$R/src/a.txt" "$R/src/d.txt"
cp "$R/src/a.txt" "$R/src/e.txt"
cp "$R/src/a.txt" "$R/src/f.txt"
printf 'one\ntwo\nthree\n' > "$R/src/b.txt"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
# adjacent lines in one tree (no merge to decide) are overlap 2/3: traffic
# by the default weights; the tree channel weighted as before (0.25) makes
# them resolution, whose right of way is what is tested here
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000 \
    --set weight.tree=0.25
hook() { printf '%s' "$2" | "$AIRSPACE_BIN" hook "$1"; }
for s in 11111111 22222222; do
    hook claude-code "{\"session_id\":\"$s\",\"cwd\":\"$R\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" > /dev/null
done
api GET /v1/agents
check "a human agent stands for the person at the keyboard" jqt "$TMP/body" \
    '[.agents[] | select(.kind == "human")] | length == 1'
HUMAN=$(jq -r '.agents[] | select(.kind == "human") | .id' "$TMP/body")

# the person types in c.txt; session 2 edits the next line through its tool
sed -i '10s/.*/typed by the person/' src/c.txt
sed -i '11s/.*/written by session two/' src/c.txt
hook claude-code "{\"session_id\":\"22222222\",\"cwd\":\"$R\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$R/src/c.txt\",\"old_string\":\"line 11\",\"new_string\":\"written by session two\"},\"tool_response\":{}}" > /dev/null
level() {
    curl -s --unix-socket "$SOCK" "http://a/v1/advisories?all=1&agent=cc-865f5bc0" |
        jq -r --arg h "$HUMAN" '[.advisories[] | select(.a == $h or .b == $h)][0].level // "none"'
}
n=0
while [ "$(level)" != resolution ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
check "the session and the person: resolution ($(level))" [ "$(level)" = resolution ]
pre() {
    hook claude-code "{\"session_id\":\"$1\",\"cwd\":\"$R\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$R/$2\"}}" |
        jq -rs '(.[0].hookSpecificOutput.permissionDecision // "none") + "|" + (.[0].hookSpecificOutput.permissionDecisionReason // "")'
}
d=$(pre 22222222 src/c.txt)
check "session two is denied on the person's file, the person holds ($d)" \
    sh -c "case \"\$1\" in deny*$HUMAN*) true;; *) false;; esac" x "$d"
d=$(pre 11111111 src/a.txt)
check "session one, elsewhere, is allowed ($d)" sh -c "case \"\$1\" in none*) true;; *) false;; esac" x "$d"

# the exact changed lines, from the file before and after the tool: a
# Write that changes lines 5-7 of a 30-line file reports 5-7, not 1-30
hook claude-code "{\"session_id\":\"11111111\",\"cwd\":\"$R\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$R/src/a.txt\",\"content\":\"...\"}}" > /dev/null
sed -i '5,7s/line/LINE/' src/a.txt
hook claude-code "{\"session_id\":\"11111111\",\"cwd\":\"$R\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$R/src/a.txt\",\"content\":\"...\"},\"tool_response\":{}}" > /dev/null
api GET /v1/agents/cc-8ae145ba
check "a Write reports exactly the lines it changed" jqt "$TMP/body" \
    '[.files[] | select(.path == "src/a.txt") | .lines] == [[[5, 7]]]'

# an Edit through a symlink to the tree is reported on the file it names
ln -s "$R" "$TMP/link"
ev() { # ev CWD TOOL-INPUT: PreToolUse, then the change, then PostToolUse
    hook claude-code "{\"session_id\":\"11111111\",\"cwd\":\"$1\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"$2\",\"tool_input\":$3}" > /dev/null
    eval "$4"
    hook claude-code "{\"session_id\":\"11111111\",\"cwd\":\"$1\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"$2\",\"tool_input\":$3,\"tool_response\":{}}" > /dev/null
}
ev "$R" Edit "{\"file_path\":\"$TMP/link/src/d.txt\",\"old_string\":\"line 3\",\"new_string\":\"LINE 3\"}" "sed -i '3s/line/LINE/' src/d.txt"
api GET /v1/agents/cc-8ae145ba
check "an Edit through a symlinked directory is reported on its file" jqt "$TMP/body" \
    '[.files[] | select(.path == "src/d.txt") | .lines] == [[[3, 3]]]'
# a shell command in src/ writing a relative path reports src/<path>
ev "$R/src" Bash '{"command":"sed -i 9s/line/LINE/ d.txt"}' "sed -i '9s/line/LINE/' src/d.txt"
api GET /v1/agents/cc-8ae145ba
check "a relative shell path is reported from the hook's cwd" jqt "$TMP/body" \
    '[.files[] | select(.path == "src/d.txt") | .lines] == [[[3, 3], [9, 9]]]'
check "and not from the worktree root" jqt "$TMP/body" \
    '[.files[] | select(.path == "d.txt")] == []'

# the lines an edit removes are the session's: git's change holds them (in
# base coordinates), so a report of the new lines alone would leave them
# to the person, who would then hold right of way on a file only the
# session touched
ev "$R" Write "{\"file_path\":\"$R/src/b.txt\",\"content\":\"ONE\\n\"}" "printf 'ONE\\n' > src/b.txt"
ev "$R" Edit "{\"file_path\":\"$R/src/e.txt\",\"old_string\":\"line 5\\nline 6\\nline 7\\n\",\"new_string\":\"\"}" "sed -i '5,7d' src/e.txt"
# without the copy the PreToolUse takes: new_string's place, as long as
# old_string
sed -i '12,14d' src/f.txt
sed -i '12i L12' src/f.txt
hook claude-code "{\"session_id\":\"11111111\",\"cwd\":\"$R\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$R/src/f.txt\",\"old_string\":\"line 12\\nline 13\\nline 14\",\"new_string\":\"L12\"},\"tool_response\":{}}" > /dev/null
removed() { # the session's lines of b.txt, e.txt, f.txt; the person's files
    curl -s --unix-socket "$SOCK" 'http://a/v1/agents?files=1' |
        jq -c --arg h "$HUMAN" '[(.agents[] | select(.id == "cc-8ae145ba") |
            [.files[] | select(.path | test("src/[bef].txt")) | [.path, .lines]]),
            [.agents[] | select(.id == $h) | .files[].path]]'
}
want='[[["src/b.txt",[[1,3]]],["src/e.txt",[[5,7]]],["src/f.txt",[[12,14]]]],["src/c.txt"]]'
n=0
while [ "$(removed)" != "$want" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
check "removed lines are the session's, none the person's ($(removed))" \
    [ "$(removed)" = "$want" ]
level_b() {
    curl -s --unix-socket "$SOCK" "http://a/v1/advisories?all=1&agent=cc-8ae145ba" |
        jq -r --arg h "$HUMAN" '[.advisories[] | select((.a == $h or .b == $h) and
            ([.contested[]?.path] | any(test("src/[bef].txt"))))] | length'
}
check "no advisory with the person on them ($(level_b))" [ "$(level_b)" = 0 ]
d=$(pre 11111111 src/b.txt)
check "the session edits its file again ($d)" sh -c "case \"\$1\" in none*) true;; *) false;; esac" x "$d"
finish

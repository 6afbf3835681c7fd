# t150-lane-right-of-way.sh - lanes decide right of way: alice and bob fly
# in their own worktrees with lanes registered (POST /v1/agents: alice
# src/alice, bob src/bob); bob commits a change in alice's lane, more
# committed work than alice has, and alice then edits the same lines of her
# own file, uncommitted. Without lanes bob would hold (more commits) and
# alice would be told to wait for bob, who can never land there. With
# them alice holds: her PreToolUse on her file is not denied, bob's on it
# is, with guidance naming her lane and telling him to leave it
# (docs/risk-model.md §5-6).
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/alice" "$R/src/bob"
i=1
while [ $i -le 30 ]; do echo "line $i" >> "$R/src/alice/x.txt"; i=$((i + 1)); done
cp "$R/src/alice/x.txt" "$R/src/bob/y.txt"
git -C "$R" add -A
git -C "$R" commit -qm base
git -C "$R" worktree add -q -b alice "$TMP/alice" main
git -C "$R" worktree add -q -b bob "$TMP/bob" main
cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000
api POST /v1/agents "{\"id\":\"alice\",\"worktree\":\"$TMP/alice\",\"lanes\":[\"src/alice\"]}"
check "alice registered with her lane ($CODE)" jqt "$TMP/body" '.lanes == ["src/alice"]'
api POST /v1/agents "{\"id\":\"bob\",\"worktree\":\"$TMP/bob\",\"lanes\":[\"src/bob\"]}"
check "bob registered with his lane ($CODE)" jqt "$TMP/body" '.lanes == ["src/bob"]'

# bob commits lines 10-12 of alice's file; alice edits line 11, uncommitted
sed -i '10,12s/line/bob/' "$TMP/bob/src/alice/x.txt"
git -C "$TMP/bob" commit -qam 'bob: in alice lane'
sed -i '11s/.*/alice 11/' "$TMP/alice/src/alice/x.txt"

pair() { # the alice-bob advisory, or null
    curl -s --unix-socket "$SOCK" 'http://a/v1/advisories?all=1' |
        jq -c '[.advisories[] | select((.a == "alice" and .b == "bob") or
            (.a == "bob" and .b == "alice"))][0]'
}
n=0
while [ "$(pair | jq -r '.level // "none"')" != resolution ] && [ $n -lt 200 ]; do
    sleep 0.05
    n=$((n + 1))
done
pair > "$TMP/pair.json"
check "alice and bob: resolution ($(jq -r '.level // "none"' "$TMP/pair.json"))" \
    jqt "$TMP/pair.json" '.level == "resolution"'
curl -s --unix-socket "$SOCK" 'http://a/v1/agents' > "$TMP/agents.json"
check "bob has more committed work than alice" jqt "$TMP/agents.json" \
    '([.agents[] | select(.id == "bob") | .commitsAhead][0] // 0) >
     ([.agents[] | select(.id == "alice") | .commitsAhead][0] // 0)'
check "the owner of the lane holds, the intruder steers ($(jq -c '[.hold, .steer]' "$TMP/pair.json"))" \
    jqt "$TMP/pair.json" '.hold == "alice" and .steer == "bob"'
check "the contested file is alice's" jqt "$TMP/pair.json" \
    '[.contested[].path] == ["src/alice/x.txt"]'
check "the guidance names her lane" jqt "$TMP/pair.json" \
    '.guidance | test("in its lane \\(src/alice\\)")'

hook() { printf '%s' "$2" | AIRSPACE_AGENT="$1" "$AIRSPACE_BIN" hook claude-code; }
pre() { # pre AGENT OLD-STRING: decision|reason of an Edit of x.txt in its tree
    hook "$1" "{\"session_id\":\"$1-session\",\"cwd\":\"$TMP/$1\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$TMP/$1/src/alice/x.txt\",\"old_string\":\"$2\",\"new_string\":\"changed\"}}" |
        jq -rs '(.[0].hookSpecificOutput.permissionDecision // "none") + "|" + (.[0].hookSpecificOutput.permissionDecisionReason // "")'
}
d=$(pre alice "alice 11")
check "alice edits her own file in her lane ($d)" \
    sh -c 'case "$1" in deny*) false;; *) true;; esac' x "$d"
d=$(pre bob "bob 11")
check "bob is denied on it ($d)" sh -c 'case "$1" in deny*) true;; *) false;; esac' x "$d"
check "... told it is in alice's lane, to leave it, not to wait" sh -c '
    case "$1" in *"in its lane (src/alice)"*"leave these files to '"'alice'"'"*) ;; *) exit 1;; esac
    case "$1" in *"wait until"*) exit 1;; esac' x "$d"
check "... and that land refuses it outside his lanes" sh -c \
    'case "$1" in *"airspace land refuses files outside your lanes"*) true;; *) false;; esac' x "$d"
# bob's own lane stays his to edit
d=$(hook bob "{\"session_id\":\"bob-session\",\"cwd\":\"$TMP/bob\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$TMP/bob/src/bob/y.txt\",\"old_string\":\"line 3\",\"new_string\":\"changed\"}}" |
    jq -rs '.[0].hookSpecificOutput.permissionDecision // "none"')
check "bob edits his own lane ($d)" [ "$d" != deny ]
finish

# t173-fleet-down-unlanded.sh - `fleet down` names the work a worktree
# keeps that is committed but not landed ("2 commits not landed on
# main"), alone or after its uncommitted work, and calls a worktree clean
# only when it has neither (once landed, it is); `--json` counts them
# (notLanded). `fleet up` and `fleet status` show every lane of an agent,
# and a long lane does not push the ADVISORIES column out of line.
. "$(dirname "$0")/lib.sh"

fleet_tmux t173
R="$TMP/repo"
base_repo "$R"
mkdir -p src/a src/c
echo a > src/a/f.txt
echo c > src/c/h.txt
commit 00:01 files
mkdir -p .airspace
cat > .airspace/fleet << EOF
[agent "bob"]
	command = "sleep 300; : $MARK"
	lane = src/a/some/longer/path/**
	lane = src/a/**
[agent "cy"]
	command = "sleep 300; : $MARK"
	lane = src/c/**
[agent "dee"]
	command = "sleep 300; : $MARK"
	lane = src/c/**
EOF
start_daemon --tick-ms 50 --rescan-ms 60000
cleanup() {
    as fleet down > /dev/null 2>&1 || :
    tmux kill-server 2> /dev/null || :
    pkill -f "$MARK" 2> /dev/null || :
    kill $DPID 2> /dev/null && wait $DPID 2> /dev/null || :
    rm -rf "$TMP"
}
trap cleanup EXIT
W="$TMP/repo.airspace"

as fleet up > "$TMP/up" 2> "$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
check "up names every lane" grep -q "^bob .* lane src/a/some/longer/path/\*\* src/a/\*\*$" "$TMP/up"
n=0
until as fleet status --json > "$TMP/st" && jq -e '[.agents[].state] == ["running","running","running"]' "$TMP/st" > /dev/null; do
    n=$((n + 1))
    [ $n -lt 150 ] || break
    sleep 0.1
done
as fleet status > "$TMP/status"
check "status shows every lane" grep -Eq '^bob +running +0  src/a/some/longer/path/\*\* src/a/\*\* +-$' "$TMP/status"
# the ADVISORIES column starts where its heading does, in every line
check "... in columns" awk '
    /^AGENT/ { at = index($0, "ADVISORIES"); next }
    at && NF { if (substr($0, at - 1, 2) !~ /^ [^ ]$/) bad = 1; rows++ }
    END { exit !(at && rows == 3 && !bad) }' "$TMP/status"

# bob: two commits; dee: one, and a file not committed; cy: nothing
echo a2 > "$W/bob/src/a/f.txt"
git -C "$W/bob" commit -qam 'bob: one'
echo a3 > "$W/bob/src/a/f.txt"
git -C "$W/bob" commit -qam 'bob: two'
echo c2 > "$W/dee/src/c/h.txt"
git -C "$W/dee" commit -qam 'dee: one'
echo new > "$W/dee/src/c/new.txt"
as fleet down > "$TMP/down" 2> "$TMP/err" && st=0 || st=$?
check "fleet down: exit 0 ($st: $(cat "$TMP/err"))" [ "$st" = 0 ]
check "bob: 2 commits not landed" grep -Fxq "bob              left in place with 2 commits not landed on main: $W/bob" "$TMP/down"
check "dee: uncommitted work and 1 commit not landed" grep -Fxq \
    "dee              left in place with uncommitted work (1 file: src/c/new.txt) and 1 commit not landed on main: $W/dee" "$TMP/down"
check "cy: clean" grep -Fxq "cy               clean, left in place: $W/cy" "$TMP/down"
as fleet down --json > "$TMP/down.json"
check "--json counts them" jqt "$TMP/down.json" \
    '[.agents[] | {name, uncommitted, notLanded}] == [{"name":"bob","uncommitted":0,"notLanded":2},{"name":"cy","uncommitted":0,"notLanded":0},{"name":"dee","uncommitted":1,"notLanded":1}]'
# landed: clean
as land bob > /dev/null 2> "$TMP/err" || cat "$TMP/err" >&2
as fleet down > "$TMP/down"
check "bob, landed: clean" grep -Fxq "bob              clean, left in place: $W/bob" "$TMP/down"
finish

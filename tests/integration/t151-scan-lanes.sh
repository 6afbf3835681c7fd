# t151-scan-lanes.sh - `airspace scan` gives right of way as the daemon
# does in a fleet: the lanes of .airspace/fleet count (docs/risk-model.md
# §5), so the owner of a lane holds its files over an agent outside it
# whatever the commits, and the guidance tells the other to leave them.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/alice" "$R/src/bob" "$R/.airspace"
i=1
while [ $i -le 30 ]; do echo "line $i" >> "$R/src/alice/f.txt"; i=$((i + 1)); done
cp "$R/src/alice/f.txt" "$R/src/bob/g.txt"
cat > "$R/.airspace/fleet" << 'EOF2'
[agent "alice"]
	command = true
	lane = src/alice
[agent "bob"]
	command = true
	lane = src/bob
EOF2
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
as agent new alice > /dev/null 2>&1
as agent new bob > /dev/null 2>&1
WA="$R.airspace/alice" WB="$R.airspace/bob"
# bob, outside his lane, changes lines 10-12 of alice's file and commits
# twice; alice changes the same lines, not yet committed
sed -i '10s/.*/bob was here/' "$WB/src/alice/f.txt"
git -C "$WB" commit -qam "bob 1"
sed -i '11,12s/.*/bob again/' "$WB/src/alice/f.txt"
git -C "$WB" commit -qam "bob 2"
sed -i '10,12s/.*/alice reworks it/' "$WA/src/alice/f.txt"
pair() { # pair JSON: "level hold steer" of alice and bob
    jq -r '.pairs[] | select([.a, .b] | sort == ["alice", "bob"]) | "\(.level) \(.hold) \(.steer)"' "$1"
}
as scan --json --explain > "$TMP/scan.json"
check "alice and bob: a resolution ($(pair "$TMP/scan.json"))" sh -c 'case "$1" in resolution*) true;; *) false;; esac' x "$(pair "$TMP/scan.json")"
check "alice, the owner of the lane, holds over bob's commits" [ "$(pair "$TMP/scan.json")" = "resolution alice bob" ]
check "the guidance tells bob the files are in alice's lane" jqt "$TMP/scan.json" \
    '.pairs[] | select([.a, .b] | sort == ["alice", "bob"]) | .evidence.guidance | test("in its lane .src/alice.")'
# a branch with no worktree flies under --branches as NAME, not
# airspace/NAME, as the daemon and `agent new` name it
git branch -q airspace/carol
as scan --json --branches > "$TMP/scan3.json"
check "--branches: airspace/carol flies as carol" jqt "$TMP/scan3.json" \
    '[.agents[].id] | index("carol") != null and index("airspace/carol") == null'
# without lanes, the commits decide, as before
mv .airspace/fleet "$TMP/fleet"
as scan --json > "$TMP/scan2.json"
check "without the fleet file bob holds (more commits)" [ "$(pair "$TMP/scan2.json")" = "resolution bob alice" ]
finish

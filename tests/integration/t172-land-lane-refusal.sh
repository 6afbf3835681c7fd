# t172-land-lane-refusal.sh - a fleet agent's land refused for files
# outside its lane says what can be done: a claim does not widen a lane
# (its claims are there and change nothing), the change can move to the
# agent whose lane has the file (named), a file in no lane can be added
# to one, or --force; never "claim them", also once its session is over.
# `land --json` carries the refusal: the files outside the lane, the
# agent's lanes and the lanes' owners. An agent outside the fleet whose
# session is over is not told to claim either.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
mkdir -p src/a src/b
echo a > src/a/f.txt
echo b > src/b/g.txt
echo readme > README.md
commit 00:01 files
mkdir -p .airspace
cat > .airspace/fleet << 'EOF'
[agent "alice"]
	command = "true"
	lane = src/a/**
[agent "bob"]
	command = "true"
	lane = src/b/**
EOF
start_daemon --tick-ms 50 --rescan-ms 60000
as agent new bob > /dev/null 2>&1
as agent new alice > /dev/null 2>&1
WB="$TMP/repo.airspace/bob"
landed() {
    as land "$@" > "$TMP/out" 2> "$TMP/err" && RC=0 || RC=$?
}
# bob changes his file, one in alice's lane and one in nobody's, and
# claims those two: the claims do not make them his to land
echo b2 > "$WB/src/b/g.txt"
echo a2 > "$WB/src/a/f.txt"
echo readme2 > "$WB/README.md"
git -C "$WB" commit -qam 'bob: his file and two others'
api POST /v1/locks '{"agent":"bob","pattern":"src/a/f.txt","kind":"claim","ttlMs":3600000}'
api POST /v1/locks '{"agent":"bob","pattern":"README.md","kind":"claim","ttlMs":3600000}'
WANT="fleet agent 'bob' changes 2 files outside its lane (src/b/**): README.md, src/a/f.txt; nothing landed (a claim does not widen a lane: move the change to the agent whose lane has it (src/a/f.txt: 'alice'), add README.md to a lane in .airspace/fleet (no agent's lane has it), or use --force)"
before=$(git rev-parse main)
landed bob
check "outside the lane, claimed: refused (exit $RC)" [ "$RC" = 1 ]
check "... saying what can be done, naming the lanes' owners" grep -qF "$WANT" "$TMP/err"
check "... not to claim them" sh -c "! grep -q 'claim them' '$TMP/err'"
check "... nothing landed" [ "$(git rev-parse main)" = "$before" ]
landed bob --dry-run --json
check "--json: refused (exit $RC)" [ "$RC" = 1 ]
check "... the files outside the lane, the lanes, their owners" jqt "$TMP/out" \
    '(.landed | not) and .outside_lane == ["README.md","src/a/f.txt"] and .lanes == ["src/b/**"] and .lane_owners == {"src/a/f.txt":["alice"]}'
# his session over: his claims are gone, the advice is the same
api POST /v1/agents/bob/exit
landed bob
check "after bob's exit: refused (exit $RC)" [ "$RC" = 1 ]
check "... with the same advice, not to claim" grep -qF "$WANT" "$TMP/err"
check "... (only that)" sh -c "! grep -q 'claim them' '$TMP/err'"
landed bob --force
check "--force lands (exit $RC: $(cat "$TMP/err"))" [ "$RC" = 0 ]
check "... with a note" grep -q "landing anyway (--force): outside agent 'bob''s lane (src/b/\*\*): README.md, src/a/f.txt" "$TMP/err"

# alice's land, in her lane: nothing outside it
WA="$TMP/repo.airspace/alice"
git -C "$WA" merge -q --ff-only main
echo a3 > "$WA/src/a/f.txt"
git -C "$WA" commit -qam 'alice: in her lane'
landed alice --dry-run --json
check "in the lane: would land (exit $RC: $(cat "$TMP/err"))" [ "$RC" = 0 ]
check "... nothing outside the lane, her lanes, no owners" jqt "$TMP/out" \
    '.outside_lane == [] and .lanes == ["src/a/**"] and .lane_owners == null'

# carol is no fleet agent: her scope is her claims, which she cannot take
# once her session is over
as agent new carol > /dev/null 2>&1
WC="$TMP/repo.airspace/carol"
echo x2 > "$WC/x"
git -C "$WC" commit -qam 'carol: x'
landed carol
check "carol, running, out of scope: told to claim (exit $RC)" grep -q \
    "holds no lock, claim or intent on: x; nothing landed (claim them, or use --force)" "$TMP/err"
api POST /v1/agents/carol/exit
landed carol --json
check "carol, exited: refused (exit $RC)" [ "$RC" = 1 ]
check "... told her session is over, not to claim" grep -q \
    "holds no lock, claim or intent on: x; nothing landed (its session is over, so it cannot claim them: use --force)" "$TMP/err"
check "... no lane in her JSON" jqt "$TMP/out" '.out_of_scope == ["x"] and .outside_lane == [] and .lanes == null'
finish

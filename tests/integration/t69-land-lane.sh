# t69-land-lane.sh - `airspace land` keeps a fleet agent to its lane: a
# branch changing a file outside the agent's lane (.airspace/fleet) is
# refused, even when a claim covers it, naming the file and the lane, and
# nothing lands; --force lands with a note; a file inside the lane lands;
# a fleet agent's lanes count as its scope after its session is over;
# an agent the fleet file does not name is checked as before; a file
# another agent holds exclusively is refused (--force lands it).
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
mkdir -p src/net docs
echo a > src/net/a.c
echo d > docs/d.md
commit 00:01 files
mkdir -p .airspace
cat > .airspace/fleet << 'EOF'
[agent "alice"]
	command = "true"
	lane = src/net/**
	lane = docs/net.md
EOF
start_daemon --tick-ms 50 --rescan-ms 60000
as agent new alice > /dev/null 2>&1
WA="$TMP/repo.airspace/alice"
landed() {
    as land "$@" > "$TMP/out" 2> "$TMP/err" && RC=0 || RC=$?
}
# alice claims both files: only the lane stops her
api POST /v1/locks '{"agent":"alice","pattern":"src/net/**","kind":"claim","ttlMs":3600000}'
api POST /v1/locks '{"agent":"alice","pattern":"docs/d.md","kind":"claim","ttlMs":3600000}'
echo a2 > "$WA/src/net/a.c"
echo d2 > "$WA/docs/d.md"
git -C "$WA" commit -qam 'alice: net and docs'
before=$(git rev-parse main)
landed alice
check "outside the lane: refused (exit $RC)" [ "$RC" = 1 ]
check "... naming the file and the lane" grep -q \
    "fleet agent 'alice' changes 1 file outside its lane (src/net/\*\* docs/net.md): docs/d.md; nothing landed (a claim does not widen a lane: add docs/d.md to a lane in .airspace/fleet (no agent's lane has it), or use --force)" "$TMP/err"
check "... nothing landed" [ "$(git rev-parse main)" = "$before" ]
landed alice --force
check "--force lands (exit $RC: $(cat "$TMP/err"))" [ "$RC" = 0 ]
check "... with a note" grep -q "landing anyway (--force): outside agent 'alice''s lane (src/net/\*\* docs/net.md): docs/d.md" "$TMP/out" "$TMP/err"
check "... main moved" [ "$(git rev-parse main)" != "$before" ]
# inside the lane: lands
git -C "$WA" merge -q --ff-only main
echo a3 > "$WA/src/net/a.c"
echo n > "$WA/docs/net.md"
api POST /v1/locks '{"agent":"alice","pattern":"docs/net.md","kind":"claim","ttlMs":3600000}'
git -C "$WA" add -A
git -C "$WA" commit -qm 'alice: in her lane'
landed alice
check "inside the lane: lands (exit $RC: $(cat "$TMP/err"))" [ "$RC" = 0 ]
# her session over (her claims and intents gone, as when her fleet
# command exits): her lanes still count as her scope
api POST /v1/agents/alice/exit
git -C "$WA" merge -q --ff-only main
echo a4 > "$WA/src/net/a.c"
git -C "$WA" commit -qam 'alice: after her session'
landed alice
check "after her exit her lane is her scope (exit $RC: $(cat "$TMP/err"))" [ "$RC" = 0 ]
check "... main has it" [ "$(git show main:src/net/a.c)" = a4 ]
# bob is no fleet agent: only his claims count
as agent new bob > /dev/null 2>&1
WB="$TMP/repo.airspace/bob"
api POST /v1/locks '{"agent":"bob","pattern":"x","kind":"claim","ttlMs":3600000}'
echo x2 > "$WB/x"
git -C "$WB" commit -qam 'bob: x'
landed bob
check "an agent outside the fleet lands by its claims (exit $RC: $(cat "$TMP/err"))" [ "$RC" = 0 ]
# another agent's exclusive lock on a landed file refuses the land, as it
# refuses a commit: naming the holder, the lock and its time left
as agent new carol > /dev/null 2>&1
api POST /v1/locks '{"agent":"carol","pattern":"y","ttlMs":3600000,"reason":"carol rewrites y"}'
api POST /v1/intents '{"agent":"bob","files":["y"],"summary":"y"}'
git -C "$WB" merge -q --ff-only main
echo y > "$WB/y"
git -C "$WB" add -A
git -C "$WB" commit -qm 'bob: y'
before=$(git rev-parse main)
landed bob
check "a file another agent holds: refused (exit $RC)" [ "$RC" = 1 ]
check "... naming the holder, the lock and the time left" grep -Eq \
    "'y' is held by carol \(exclusive lock 'y', 3[56][0-9]{2} s left, reason: carol rewrites y\)" "$TMP/err"
check "... and why" grep -q "land refused: 1 file is held by another agent; nothing landed (ask the holder, wait, or use --force)" "$TMP/err"
check "... nothing landed" [ "$(git rev-parse main)" = "$before" ]
landed bob --dry-run --json
check "--dry-run: refused too (exit $RC)" [ "$RC" = 1 ]
check "... JSON lists it as held" jqt "$TMP/out" '.held == ["y"] and (.landed | not)'
landed bob --force
check "--force lands (exit $RC: $(cat "$TMP/err"))" [ "$RC" = 0 ]
check "... with a note" grep -q "landing anyway (--force): 'y' is held by carol" "$TMP/err"
check "... main has it" [ "$(git show main:y)" = y ]
finish

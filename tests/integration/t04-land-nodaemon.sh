# t04-land-nodaemon.sh - `airspace land NAME --no-start` with the daemon
# down, for an agent whose branch is not airspace/NAME (the demo's agents
# work on branches named after them): only the daemon knows that branch,
# so it is exit 3 (the daemon is needed), saying so and how to go on
# (--branch), not "unknown agent" (exit 2); nothing lands. With --branch it
# lands (--force: no scope check without the daemon).
. "$(dirname "$0")/lib.sh"
base_repo "$TMP/repo"
git worktree add -q -b alice "$TMP/alice" main
echo y > "$TMP/alice/y"
git -C "$TMP/alice" add y
git -C "$TMP/alice" commit -qm "alice: y"
trap 'as stop > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
as stop > /dev/null 2>&1 || true
before=$(git rev-parse main)
set +e
as land alice --no-start > "$TMP/out" 2> "$TMP/err"
rc=$?
set -e
check "land NAME, daemon down: exit 3 ($rc)" [ "$rc" -eq 3 ]
check "... says the daemon is needed and names --branch" \
    sh -c "grep -q 'daemon' '$TMP/err' && grep -q -- '--branch' '$TMP/err'"
check "... is not told the agent is unknown" sh -c "! grep -q 'unknown agent' '$TMP/err'"
check "... nothing landed" [ "$(git rev-parse main)" = "$before" ]
check "land --branch alice --force, daemon down: lands" \
    sh -c "'$AIRSPACE_BIN' land --branch alice --force --no-start > /dev/null 2>&1"
check "... main is alice's tip" [ "$(git rev-parse main)" = "$(git -C "$TMP/alice" rev-parse HEAD)" ]
# with the daemon, an agent nobody knows is still exit 2
set +e
as land zed > /dev/null 2> "$TMP/err"
rc=$?
set -e
check "unknown agent with the daemon: exit 2 ($rc)" [ "$rc" -eq 2 ]
check "... says so" grep -q "unknown agent 'zed'" "$TMP/err"
finish

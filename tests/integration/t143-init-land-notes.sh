# t143-init-land-notes.sh - notes that say what is so. `init` with no
# `airspace` on $PATH says there is none (not that the one on $PATH is
# another), and with another one there names it; either way the settings
# carry this binary's path. `land` of an agent whose branch the target
# already contains, with work not committed, says that work is not landed.
# `commit` where several agents fly names each with its client, so the
# person at the keyboard sees which one is theirs ("human@DIR (human)").
. "$(dirname "$0")/lib.sh"

BIN=$(realpath "$AIRSPACE_BIN")
base_repo "$TMP/repo"
R=$(pwd -P)
trap '"$AIRSPACE_BIN" stop --repo "$R" > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT

# ---- init: no airspace on $PATH ----
mkdir "$TMP/empty"
PATH="$TMP/empty:/usr/bin:/bin" "$AIRSPACE_BIN" init --claude-code --dry-run > "$TMP/init1.out"
check "no airspace on \$PATH: says so ($(grep note "$TMP/init1.out"))" \
    grep -qF "note: no 'airspace' on \$PATH: the settings name $BIN by its path" "$TMP/init1.out"
check "... not that the one there is another" sh -c "! grep -q 'on \\\$PATH is' '$TMP/init1.out'"

# ---- init: another airspace on $PATH ----
mkdir "$TMP/other"
printf '#!/bin/sh\nexit 0\n' > "$TMP/other/airspace"
chmod 755 "$TMP/other/airspace"
PATH="$TMP/other:/usr/bin:/bin" "$AIRSPACE_BIN" init --claude-code --dry-run > "$TMP/init2.out"
check "another airspace on \$PATH: named ($(grep note "$TMP/init2.out"))" \
    grep -qF "note: 'airspace' on \$PATH is $TMP/other/airspace, not $BIN: the settings name $BIN by its path" "$TMP/init2.out"

# ---- land: nothing committed to land, work not committed ----
git worktree add -q -b airspace/carol "$TMP/carol"
echo y >> "$TMP/carol/x"
echo z > "$TMP/carol/new.txt"
as api POST /v1/refresh '{"git": true}' > /dev/null
RC=0
as land carol > "$TMP/out" 2> "$TMP/err" || RC=$?
check "land carol: exit 0 ($RC)" [ "$RC" -eq 0 ]
check "land carol: nothing to land" grep -q "already contains 'airspace/carol': nothing to land" "$TMP/out"
check "land carol: says the uncommitted work is not landed ($(cat "$TMP/err"))" \
    grep -qF "agent 'carol' has 2 uncommitted files: not landed until committed ('airspace commit')" "$TMP/err"
git -C "$TMP/carol" checkout -q -- x
rm "$TMP/carol/new.txt"
as api POST /v1/refresh '{"git": true}' > /dev/null
as land carol > "$TMP/out" 2> "$TMP/err"
check "land carol, clean: no such note ($(cat "$TMP/err"))" sh -c "! grep -q uncommitted '$TMP/err'"

# ---- commit: several agents in one worktree, each named with its client ----
as api POST /v1/agents "{\"id\":\"dave\",\"client\":\"claude-code\",\"worktree\":\"$R\"}" > /dev/null
as api POST /v1/agents "{\"id\":\"erin\",\"client\":\"codex\",\"worktree\":\"$R\"}" > /dev/null
echo w >> x
RC=0
as commit -m x > "$TMP/out" 2> "$TMP/err" || RC=$?
check "commit, two agents here: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "... names each with its client ($(cat "$TMP/err"))" \
    sh -c "grep -qF \"several agents fly in '$R': \" '$TMP/err' &&
        grep -qF 'dave (claude-code)' '$TMP/err' && grep -qF 'erin (codex)' '$TMP/err'"

finish

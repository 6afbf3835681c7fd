# t49-cli-paths.sh - paths and globs given to lock, unlock, claim, contest,
# release and intent are relative to the current directory (in src, "x.c"
# is src/x.c and "*.c" src's .c files); absolute paths inside the working
# tree are made relative; anything outside is a usage error (exit 2) that
# changes nothing. In a linked worktree, from outside the repository with
# --repo, and through a symbolic link too.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/sub" "$R/docs"
echo 'int x;' > "$R/src/x.c"
echo '# r' > "$R/README.md"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
start_daemon --tick-ms 50 --rescan-ms 60000
as api POST /v1/agents '{"id":"alice"}' > /dev/null
as api POST /v1/agents '{"id":"bob"}' > /dev/null
export AIRSPACE_AGENT=alice

# holds PATTERN: whether alice holds exactly that pattern
holds() {
    [ "$(as locks --repo "$R" --json | jq --arg p "$1" \
        '[.locks[] | select(.pattern == $p and .holder == "alice")] | length == 1')" = true ]
}
# lock_is PATTERN JQ-CONDITION: whether that lock meets the condition
lock_is() {
    [ "$(as locks --repo "$R" --json | jq --arg p "$1" \
        "[.locks[] | select(.pattern == \$p) | $2] == [true]")" = true ]
}
nlocks() {
    as locks --repo "$R" --json | jq '.locks | length'
}

cd "$R/src"
check "in src: lock x.c locks src/x.c" as lock x.c
check "... src/x.c held" holds src/x.c
check "... not x.c at the top" [ "$(nlocks)" = 1 ]
check "in src: unlock x.c releases it" as unlock x.c
check "... gone" [ "$(nlocks)" = 0 ]
check "in src: a glob" as lock '*.c'
check "... is src/*.c" holds 'src/*.c'
cd "$R/src/sub"
check "in src/sub: ../y.c" as lock ../y.c
check "... is src/y.c" holds src/y.c
check "in src/sub: ../../*.md" as lock '../../*.md'
check "... is the top's .md files, anchored" holds '/*.md'
cd "$R/src"
check "an absolute path inside the worktree" as lock "$R/README.md"
check "... is README.md" holds README.md
check "a directory: ." as lock .
check "... is src" holds src

# outside: exit 2, nothing changed, not even the patterns before it
before=$(nlocks)
for bad in ../../outside.c /etc/passwd .. "$TMP"; do
    as lock ok.c "$bad" > /dev/null 2> "$TMP/err" && st=0 || st=$?
    check "lock '$bad' is a usage error ($st)" [ "$st" = 2 ]
    check "... saying why" grep -q "outside the working tree\|top of the working tree" "$TMP/err"
done
check "... and nothing was locked (not even ok.c)" [ "$(nlocks)" = "$before" ]
as unlock '*.c' ../../y.c > /dev/null 2>&1 && st=0 || st=$?
check "... nor released: unlock with an outside path is exit 2" [ "$st" = 2 ]
check "... src/*.c still held" holds 'src/*.c'

# claim, contest, release
check "in src: claim c.c" as claim c.c
check "... is src/c.c" lock_is src/c.c '.kind == "claim"'
check "bob contests c.c from src" as contest --agent bob c.c
check "... src/c.c contested by bob" lock_is src/c.c '.contestedBy == "bob"'
check "release c.c from src" as release c.c
check "... src/c.c released" [ "$(as locks --repo "$R" --json | jq '[.locks[] | select(.pattern == "src/c.c")] | length')" = 0 ]

# intent
check "in src: intent i.c and a glob" as intent --summary here i.c 'sub/*.h'
as api GET /v1/intents?agent=alice > "$TMP/in.json"
check "... files src/i.c and src/sub/*.h" \
    jqt "$TMP/in.json" '.intents[0].files == ["src/i.c", "src/sub/*.h"]'
as intent ../../x > /dev/null 2>&1 && st=0 || st=$?
check "intent outside: exit 2" [ "$st" = 2 ]

# at the top a glob without '/' keeps matching at any depth
cd "$R"
check "at the top: *.h" as lock '*.h'
check "... is *.h" holds '*.h'

# a linked worktree: paths from its own top
git worktree add -q "$TMP/wt" 2> /dev/null
mkdir -p "$TMP/wt/src"
cd "$TMP/wt/src"
check "in a linked worktree's src: w.c" as lock w.c
check "... is src/w.c" holds src/w.c
check "... its absolute path too" as lock "$TMP/wt/src/w2.c"
check "... is src/w2.c" holds src/w2.c

# through a symbolic link to the repository
ln -s "$R" "$TMP/link"
cd "$TMP/link/src"
check "through a link: l.c" as lock l.c
check "... is src/l.c" holds src/l.c
check "... the link's absolute path" as lock "$TMP/link/src/l2.c"
check "... is src/l2.c" holds src/l2.c

# from outside the repository with --repo: paths from its top
cd "$TMP"
check "--repo from outside: top.c" as lock --repo "$R" top.c
check "... is top.c" holds top.c
check "--repo from outside: an absolute path" as lock --repo "$R" "$R/src/abs.c"
check "... is src/abs.c" holds src/abs.c
as lock --repo "$R" ../x.c > /dev/null 2>&1 && st=0 || st=$?
check "--repo from outside: ../x.c is outside" [ "$st" = 2 ]
finish

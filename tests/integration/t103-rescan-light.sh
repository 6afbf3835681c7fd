# t103-rescan-light.sh - the periodic rescan reads a worktree again only
# when its git state changed (a commit, the integration branch moved): an
# idle crowd costs no walk of its files (the daemon stays answering on a
# large repository), a commit with no file event is still seen, an edit's
# read is limited to what changed and agrees with a full one, and the
# status says how the worktrees are watched.
. "$(dirname "$0")/lib.sh"
new_repo "$TMP/repo"
cd "$TMP/repo"
seq -f 'line %g' 1 40 > t.txt
commit 00:00 C0
git worktree add -q -b alice "$TMP/alice" main
git worktree add -q -b bob "$TMP/bob" main
sed -i 's/^line 10$/alice 10/' "$TMP/alice/t.txt"
start_daemon --rescan-ms 200 --debounce-ms 50

st() { api GET /v1/status && jq -r "$1" "$TMP/body"; }
ahead() { api GET /v1/agents && jq -r --arg a "$1" '.agents[] | select(.id == $a) | .commitsAhead' "$TMP/body"; }
# settle: until the reads stop changing over a second (at most 10 s)
settle() {
    r=$(st .watch.reads)
    sn=0
    while sleep 1; r2=$(st .watch.reads); [ "$r2" != "$r" ] && [ $sn -lt 10 ]; do
        r=$r2
        sn=$((sn + 1))
    done
}
settle
check "status: every worktree watched" [ "$(st .watch.state)" = complete ]
R0=$(st .watch.reads)
N0=$(st .watch.rescans)
sleep 1.5
check "idle: periodic rescans ran ($(st .watch.rescans) from $N0)" [ "$(st .watch.rescans)" -ge $((N0 + 4)) ]
check "idle: no worktree read again ($(st .watch.reads) from $R0)" [ "$(st .watch.reads)" = "$R0" ]
check "idle: no full rescan" [ "$(st .watch.fullRescans)" = 0 ]

# a commit changes no file of the worktree, only its git state
check "alice has no commit yet" [ "$(ahead alice)" = 0 ]
(cd "$TMP/alice" && git commit -qam "alice 10")
seen() { [ "$(ahead alice)" = 1 ]; }
n=0
until seen || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "commit: seen by the rescan ($(ahead alice) commits ahead)" seen
settle
check "commit: alice alone read again ($(st .watch.reads) from $R0)" [ "$(st .watch.reads)" = $((R0 + 1)) ]

# what git hooks send: the commit is read before the answer, nothing else
R2=$(st .watch.reads)
(cd "$TMP/alice" && sed -i 's/^line 30$/alice 30/' t.txt && git commit -qam "alice 30")
api POST /v1/refresh '{"git": true}'
check "refresh git: answered" [ "$CODE" = 200 ]
check "refresh git: the commit is read by then" [ "$(ahead alice)" = 2 ]
settle
# (her edit's own event may be read apart from the commit: one or two)
check "refresh git: alice alone read ($(st .watch.reads) from $R2)" [ "$(st .watch.reads)" -le $((R2 + 2)) ]
api POST /v1/refresh '{"git": 1}'
check "refresh git: a non-boolean is refused" [ "$CODE" = 400 ]
api POST /v1/refresh '{"full": true}'
check "refresh: an unknown field is refused" [ "$CODE" = 400 ]

# an edit is still read through the watch
R1=$(st .watch.reads)
sed -i 's/^line 20$/bob 20/' "$TMP/bob/t.txt"
files() { api GET /v1/agents && jq -r '.agents[] | select(.id == "bob") | .fileCount' "$TMP/body"; }
n=0
until [ "$(files)" = 1 ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "edit: bob's change read" [ "$(files)" = 1 ]
settle
check "edit: bob alone read again" [ "$(st .watch.reads)" = $((R1 + 1)) ]
check "edit: read limited to what changed" [ "$(st .watch.limitedReads)" -ge 1 ]

# An edit's read is limited to the paths the watch named and those the
# last read found changed: each step's working set is the whole read's
paths() { api GET /v1/agents/bob && jq -r '[.files[].path] | join(" ")' "$TMP/body"; }
# wait until bob's paths are $1, then check them against a full rescan
step() {
    n=0
    until [ "$(paths)" = "$1" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
    check "$2: bob's files are '$1' ($(paths))" [ "$(paths)" = "$1" ]
    check "$2: the read was limited ($(st .watch.limitedReads) from $L)" [ "$(st .watch.limitedReads)" -gt "$L" ]
    L=$(st .watch.limitedReads)
}
settle
L=$(st .watch.limitedReads)
# a directory moved in, files and all: one event names only the directory
mkdir -p "$TMP/stage/pkg/sub" && echo "int x;" > "$TMP/stage/pkg/sub/new.c"
mv "$TMP/stage/pkg" "$TMP/bob/pkg"
step "pkg/sub/new.c t.txt" "directory moved in"
sed -i 's/^bob 20$/line 20/' "$TMP/bob/t.txt"
step "pkg/sub/new.c" "file back as in the base"
git -C "$TMP/bob" mv t.txt u.txt
mv "$TMP/bob/u.txt" "$TMP/bob/pkg/u.txt"
# (git mv staged a rename: the index changed, so that read is whole)
n=0
until [ "$(paths)" = "pkg/sub/new.c t.txt" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "rename moved on: bob's files ($(paths))" [ "$(paths)" = "pkg/sub/new.c t.txt" ]
api GET /v1/agents/bob
check "rename moved on: t.txt renamed to pkg/u.txt" [ "$(jq -r '.files[] | select(.path == "t.txt") | .newPath' "$TMP/body")" = pkg/u.txt ]
settle
L=$(st .watch.limitedReads)
rm -rf "$TMP/bob/pkg"
step "t.txt" "directory removed"
api GET /v1/agents/bob
check "directory removed: t.txt deleted" [ "$(jq -r '.files[0].status' "$TMP/body")" = deleted ]
# .gitignore changes what every path is: the read is whole
settle
L=$(st .watch.limitedReads)
R4=$(st .watch.reads)
echo "x" > "$TMP/bob/x.log"
echo "*.log" > "$TMP/bob/.gitignore"
n=0
until [ "$(paths)" = ".gitignore t.txt" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check ".gitignore: x.log ignored ($(paths))" [ "$(paths)" = ".gitignore t.txt" ]
settle
check ".gitignore: read whole ($(st .watch.limitedReads) limited of $(st .watch.reads))" \
    [ "$(st .watch.reads)" -gt "$R4" ] && [ "$(st .watch.limitedReads)" = "$L" ]
BEFORE=$(api GET /v1/agents/bob && jq -c '[.files[] | {path, status, newPath, lines}]' "$TMP/body")
api POST /v1/refresh
check "a full rescan finds the same working set" \
    [ "$(api GET /v1/agents/bob && jq -c '[.files[] | {path, status, newPath, lines}]' "$TMP/body")" = "$BEFORE" ]
rm -f "$TMP/bob/.gitignore" "$TMP/bob/x.log"
(cd "$TMP/bob" && git reset -q --hard && sed -i 's/^line 20$/bob 20/' t.txt)
n=0
until [ "$(paths)" = "t.txt" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
settle

# while git holds a worktree's index lock (a checkout, a merge, a land),
# its files are half written: the read waits until the lock is gone
R3=$(st .watch.reads)
LOCK="$TMP/repo/.git/worktrees/bob/index.lock"
: > "$LOCK"
sed -i 's/^line 25$/bob 25/' "$TMP/bob/t.txt"
sleep 1
check "index lock held: bob not read ($(st .watch.reads) from $R3)" [ "$(st .watch.reads)" = "$R3" ]
rm -f "$LOCK"
n=0
until [ "$(st .watch.reads)" != "$R3" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "index lock gone: bob read" [ "$(st .watch.reads)" = $((R3 + 1)) ]

# a worktree git is still making (`git worktree add`, `agent new`: its
# git directory written, no index yet) reads as every file deleted: it is
# not read until git has checked it out, so nobody is warned about it
git worktree add -q --no-checkout -b carol "$TMP/carol" main
n=0
until api GET /v1/agents/carol && [ "$CODE" = 200 ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
sleep 1 # five rescans
api POST /v1/refresh # and a full one (every worktree read)
api GET /v1/agents/carol
check "carol's worktree, not checked out yet, is discovered but not read ($(jq -c '[.fileCount, .status]' "$TMP/body"))" \
    jqt "$TMP/body" '.fileCount == 0'
api GET '/v1/advisories?all=1'
check "nobody is in an advisory with her" \
    jqt "$TMP/body" '[.advisories[] | select((.a == "carol" or .b == "carol") and .level != "clear")] | length == 0'
git -C "$TMP/carol" reset -q --hard
sed -i 's/^line 30$/carol 30/' "$TMP/carol/t.txt"
carol_read() { api GET /v1/agents/carol && jqt "$TMP/body" '[.files[].path] == ["t.txt"]'; }
n=0
until carol_read || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "checked out and edited: she is read ($(jq -c '[.files[] | {path, lines}]' "$TMP/body"))" \
    jqt "$TMP/body" '[.files[] | {path, lines}] == [{"path": "t.txt", "lines": [[30, 30]]}]'

# the integration branch moves (a commit on main, as a land makes): the
# main worktree is read again, the others are not: their bases, where
# their HEADs meet main, did not move (each was read again, in whole: a
# land with 16 agents kept the daemon from answering for 3 s)
settle
R5=$(st .watch.reads)
# (a commit of nothing: a file written, added and committed is up to three
# changes of main's worktree, read more than once by a loaded daemon)
git -C "$TMP/repo" commit -q --allow-empty -m "main moves"
api POST /v1/refresh '{"git": true}'
settle
check "main moved: only its worktree read again ($(st .watch.reads) from $R5)" \
    [ "$(st .watch.reads)" -le $((R5 + 1)) ]
check "main moved: carol's working set as it was" carol_read

# stop, while the daemon does not answer for a while (stopped for 3 s,
# longer than the client's answer time): waited for, then stopped
kill -STOP "$DPID"
(sleep 3; kill -CONT "$DPID") &
set +e
as stop > "$TMP/stop.out" 2> "$TMP/stop.err"
rc=$?
set -e
check "stop, busy daemon: exit 0 ($rc: $(cat "$TMP/stop.err"))" [ "$rc" = 0 ]
check "stop, busy daemon: not taken for none" sh -c "! grep -q 'no daemon' '$TMP/stop.err'"
gone() { ! kill -0 "$DPID" 2> /dev/null; }
n=0
until gone || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
check "stop, busy daemon: it is gone" gone
set +e
as stop > /dev/null 2> "$TMP/stop.err"
rc=$?
(cd "$TMP" && as stop > /dev/null 2> "$TMP/stop2.err")
rc2=$?
set -e
check "stop, no daemon: exit 0 ($rc)" [ "$rc" = 0 ]
check "stop, no daemon: says so" grep -q "no daemon is running" "$TMP/stop.err"
check "stop outside a repository: exit 2 ($rc2)" [ "$rc2" = 2 ]
finish

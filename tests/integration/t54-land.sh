# t54-land.sh - `airspace land`: a fast-forward; a true merge (the target
# moved meanwhile, with a rename) whose tree is git merge --no-ff's; a
# conflicting land refused with the paths and nothing changed; the scope
# check (a file outside the agent's locks refused, --force lands, an
# intent counts); --dry-run changes nothing; the checked-out target (main
# worktree) follows, or the land is refused when it has uncommitted
# changes to a landed path; a landed path through a filter driver is
# refused; bad input and no daemon; `agent prune`.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
base_repo "$R"
printf 'one\ntwo\nthree\nfour\nfive\nsix\n' > r.txt
echo c > c.txt
echo d > d.txt
commit 00:01 files
start_daemon --tick-ms 50 --rescan-ms 60000
lock() { # lock AGENT PATTERN
    api POST /v1/locks "{\"agent\":\"$1\",\"pattern\":\"$2\",\"ttlMs\":3600000}"
    [ "$CODE" = 200 ] || echo "lock $1 $2: $CODE $(cat "$TMP/body")" >&2
}
state() { # the refs, and the main worktree's status and files
    git for-each-ref --format='%(refname) %(objectname)'
    git status --porcelain
    cat ./*.txt 2> /dev/null | cksum
}
objects() { # how many objects the repository holds
    git count-objects -v | awk '/^(count|in-pack):/ { s += $2 } END { print s }'
}
# landed NAME ARGS...: run land; RC, output in $TMP/out and $TMP/err
landed() {
    as land "$@" > "$TMP/out" 2> "$TMP/err" && RC=0 || RC=$?
}

# ---- a fast-forward ----
as agent new alice > /dev/null 2>&1
WA="$TMP/repo.airspace/alice"
lock alice 'a/**'
mkdir -p "$WA/a"
echo a > "$WA/a/a.txt"
git -C "$WA" add -A && git -C "$WA" commit -qm 'alice: a'
landed alice --json
check "fast-forward: exit 0 ($RC: $(cat "$TMP/err"))" [ "$RC" -eq 0 ]
check "main is alice's tip" [ "$(git rev-parse main)" = "$(git rev-parse airspace/alice)" ]
check "JSON: landed, fast_forward, files" jqt "$TMP/out" \
    '.landed and .fast_forward and .target == "main" and .from == "airspace/alice" and .files == ["a/a.txt"] and .conflicts == [] and .out_of_scope == []'
check "the main worktree has the file" [ "$(cat a/a.txt)" = a ]
check "... and is clean" [ -z "$(git status --porcelain)" ]
check "JSON says the checkout followed" jqt "$TMP/out" ".worktree_updated and .worktree == \"$R\""
sleep 0.2
api GET '/v1/ledger?type=git.commit&agent=alice'
check "the daemon recorded the land" sh -c "jq -e '.events | length >= 1' '$TMP/body' > /dev/null"

# ---- a true merge: main moved meanwhile; alice renamed r.txt, main edited it
git -C "$WA" merge -q --ff-only main
lock alice r.txt
lock alice 'renamed/**'
mkdir -p "$WA/renamed"
git -C "$WA" mv r.txt renamed/r.txt
echo b > "$WA/a/b.txt"
git -C "$WA" add -A && git -C "$WA" commit -qm 'alice: b, rename'
sed -i 's/^two$/TWO/' r.txt
echo m > m.txt
commit 00:02 'main moves'
echo 'human at work' >> x # uncommitted, on a path the land does not change
OLD=$(git rev-parse main)
TIP=$(git rev-parse airspace/alice)
landed alice -m 'Land alice' --json
check "merge: exit 0 ($RC: $(cat "$TMP/err"))" [ "$RC" -eq 0 ]
NEW=$(git rev-parse main)
check "a merge commit: parents are main's old tip, then alice's" \
    [ "$(git rev-parse "$NEW^1") $(git rev-parse "$NEW^2")" = "$OLD $TIP" ]
check "its message" [ "$(git log -1 --format=%s "$NEW")" = "Land alice" ]
check "JSON: not a fast-forward" jqt "$TMP/out" ".landed and (.fast_forward | not) and .commit == \"$NEW\""
git clone -q --no-local "$R" "$TMP/clone"
(
    cd "$TMP/clone"
    git checkout -q -b t "$OLD"
    git merge -q --no-ff -m m "$TIP"
)
check "the tree is git merge --no-ff's" \
    [ "$(git rev-parse "$NEW^{tree}")" = "$(git -C "$TMP/clone" rev-parse 'HEAD^{tree}')" ]
check "the rename carried main's edit" grep -qx TWO renamed/r.txt
check "the main worktree followed: renamed/r.txt, a/b.txt, no r.txt" \
    test -f renamed/r.txt -a -f a/b.txt -a ! -e r.txt
check "the human's change to x is still there, and only it" \
    [ "$(git status --porcelain)" = " M x" ]
git checkout -q -- x

# ---- a conflict: nothing changes ----
git -C "$WA" merge -q --ff-only main
lock alice c.txt
echo alice > "$WA/c.txt"
git -C "$WA" commit -qam 'alice: c'
echo main > c.txt
commit 00:03 'main: c'
before=$(state)
landed alice --json
check "conflict: exit 1 ($RC)" [ "$RC" -eq 1 ]
check "... names the path" grep -q "conflicts in 1 path: c.txt" "$TMP/err"
check "... JSON lists it" jqt "$TMP/out" '.conflicts == ["c.txt"] and (.landed | not)'
check "... nothing changed" [ "$(state)" = "$before" ]
git -C "$WA" reset -q --hard HEAD~1

# ---- scope: a file outside the agent's locks ----
as agent new bob > /dev/null 2>&1
WB="$TMP/repo.airspace/bob"
lock bob 'b1.txt'
echo 1 > "$WB/b1.txt"
echo 2 > "$WB/b2.txt"
git -C "$WB" add -A && git -C "$WB" commit -qm 'bob'
before=$(state)
landed bob --json
check "out of scope: exit 1 ($RC)" [ "$RC" -eq 1 ]
check "... names the file" grep -q "holds no lock, claim or intent on: b2.txt" "$TMP/err"
check "... JSON lists it" jqt "$TMP/out" '.out_of_scope == ["b2.txt"] and (.landed | not)'
check "... nothing changed" [ "$(state)" = "$before" ]
api POST /v1/intents '{"agent":"bob","files":["b2.txt"],"summary":"b2"}'
landed bob --dry-run --json
check "an intent puts it in scope ($RC)" [ "$RC" -eq 0 ]
api GET /v1/intents?agent=bob
IID=$(jq -r '.intents[0].id' "$TMP/body")
api POST "/v1/intents/$IID/drop" '{"agent":"bob"}'
landed bob --force
check "--force lands it ($RC: $(cat "$TMP/err"))" [ "$RC" -eq 0 ]
check "... saying so" grep -q "landing anyway (--force)" "$TMP/err"
check "... b2.txt is on main" [ "$(git show main:b2.txt)" = 2 ]

# ---- --dry-run changes nothing ----
as agent new carol > /dev/null 2>&1
WC="$TMP/repo.airspace/carol"
lock carol 'carol.txt'
echo c > "$WC/carol.txt"
git -C "$WC" add -A && git -C "$WC" commit -qm carol
echo more > m.txt
commit 00:04 'main: m'
before=$(state)
objs=$(objects)
landed carol --dry-run --json
check "dry run: exit 0 ($RC: $(cat "$TMP/err"))" [ "$RC" -eq 0 ]
check "... says what would happen" jqt "$TMP/out" \
    '(.landed | not) and .dry_run and (.fast_forward | not) and .files == ["carol.txt"] and .changed == [{"path":"carol.txt","status":"added"}]'
check "... nothing changed" [ "$(state)" = "$before" ]
check "... no object written" [ "$(objects)" = "$objs" ]
landed carol --dry-run
check "... in text ($RC)" grep -q "would land airspace/carol into main: a merge commit (1 file changed)" "$TMP/out"

# ---- the checked-out target with uncommitted changes to a landed path ----
echo 'human edit' > carol.txt # untracked where the land adds carol.txt
before=$(state)
landed carol
check "untracked file in the way: exit 1 ($RC)" [ "$RC" -eq 1 ]
check "... names it" grep -q "has uncommitted changes to 1 path this land changes: carol.txt" "$TMP/err"
check "... nothing changed" [ "$(state)" = "$before" ]
rm carol.txt
as agent new dave > /dev/null 2>&1
WD="$TMP/repo.airspace/dave"
lock dave d.txt
echo dave > "$WD/d.txt"
git -C "$WD" commit -qam dave
echo 'human edit' > d.txt
before=$(state)
landed dave --dry-run
check "modified landed path, even --dry-run: exit 1 ($RC)" [ "$RC" -eq 1 ]
landed dave
check "modified landed path: exit 1 ($RC)" [ "$RC" -eq 1 ]
check "... names it" grep -q "d.txt" "$TMP/err"
check "... the human's edit is kept, nothing changed" [ "$(state)" = "$before" ]
git checkout -q -- d.txt
touch "$(git rev-parse --git-dir)/index.lock"
before=$(state)
landed dave
check "index locked: exit 1 ($RC)" [ "$RC" -eq 1 ]
check "... says so" grep -q "stayed locked" "$TMP/err"
check "... nothing changed" [ "$(state)" = "$before" ]
rm "$(git rev-parse --git-dir)/index.lock"
landed dave
check "then it lands ($RC: $(cat "$TMP/err"))" [ "$RC" -eq 0 ]
check "... and the main worktree follows" [ "$(cat d.txt)" = dave ] && [ -z "$(git status --porcelain)" ]
landed dave
check "landing again: nothing to land ($RC)" grep -q "already contains" "$TMP/out"

# ---- a filter driver on a landed path: refused, as libgit2 cannot smudge
git config filter.fake.smudge cat
git config filter.fake.clean cat
echo '*.bin filter=fake' > .gitattributes
commit 00:05 'main: attributes'
as agent new gus > /dev/null 2>&1
WG="$TMP/repo.airspace/gus"
lock gus g.bin
lock gus g.dat
echo g > "$WG/g.bin"
echo g > "$WG/g.dat"
git -C "$WG" add -A && git -C "$WG" commit -qm gus
before=$(state)
landed gus --json
check "filter driver: exit 1 ($RC)" [ "$RC" -eq 1 ]
check "... names the path and the filter, says git merge" \
    grep -q "'g.bin' goes through git's filter driver 'fake'.*git merge" "$TMP/err"
check "... JSON: nothing landed" jqt "$TMP/out" '(.landed | not) and .files == ["g.bin", "g.dat"]'
check "... nothing changed" [ "$(state)" = "$before" ] && [ ! -e g.bin ]
landed gus --dry-run
check "... even --dry-run ($RC)" [ "$RC" -eq 1 ]
git config --unset filter.fake.smudge
landed gus --dry-run
check "a clean filter alone does not matter on land ($RC: $(cat "$TMP/err"))" [ "$RC" -eq 0 ]
git config filter.fake.smudge cat
git rm -q .gitattributes && commit 00:06 'main: no attributes'
as agent new hal > /dev/null 2>&1
WH="$TMP/repo.airspace/hal"
lock hal h.dat
lock hal .gitattributes
echo '*.dat filter=fake' > "$WH/.gitattributes"
echo h > "$WH/h.dat"
git -C "$WH" add -A && git -C "$WH" commit -qm hal
before=$(state)
landed hal
check "a filter the branch brings: exit 1 ($RC)" [ "$RC" -eq 1 ]
check "... names it" grep -q "'h.dat' goes through git's filter driver 'fake'" "$TMP/err"
check "... nothing changed" [ "$(state)" = "$before" ] && [ ! -e h.dat ]
git config --unset filter.fake.smudge
git config --unset filter.fake.clean

# ---- bad input ----
landed zed
check "unknown agent: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "... says so" grep -q "unknown agent 'zed'" "$TMP/err"
landed --branch no-such
check "unknown branch: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "... says so" grep -q "no branch 'no-such'" "$TMP/err"
landed carol --into no-such
check "unknown target: exit 2 ($RC)" [ "$RC" -eq 2 ]
landed carol --branch x
check "NAME and --branch: exit 2 ($RC)" [ "$RC" -eq 2 ]
landed
check "in the main worktree on main: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "... says so" grep -q "the branch to land on" "$TMP/err"
(cd "$WC" && as land --dry-run > "$TMP/out" 2> "$TMP/err") && RC=0 || RC=$?
check "from the agent's worktree it lands its own branch ($RC)" grep -q "would land airspace/carol" "$TMP/out"

# ---- no daemon ----
R2="$TMP/solo"
new_repo "$R2"
echo s > "$R2/s"
git -C "$R2" add -A && git -C "$R2" commit -qm s
git -C "$R2" branch feature
git -C "$R2" checkout -q feature
echo f > "$R2/f"
git -C "$R2" add -A && git -C "$R2" commit -qm f
git -C "$R2" checkout -q main
(cd "$R2" && as land --branch feature --no-start > "$TMP/out" 2> "$TMP/err") && RC=0 || RC=$?
check "no daemon: exit 3 ($RC)" [ "$RC" -eq 3 ]
check "... says why" grep -q "daemon cannot be reached" "$TMP/err"
check "... nothing landed" [ "$(git -C "$R2" rev-parse main)" != "$(git -C "$R2" rev-parse feature)" ]
(cd "$R2" && as land --branch feature --no-start --force > "$TMP/out" 2> "$TMP/err") && RC=0 || RC=$?
check "no daemon, --force: lands ($RC)" [ "$(git -C "$R2" rev-parse main)" = "$(git -C "$R2" rev-parse feature)" ]
check "... and the checkout follows" [ "$(cat "$R2/f")" = f ]

# ---- agent prune ----
as agent new erin > /dev/null 2>&1
as agent new fay > /dev/null 2>&1
WF="$TMP/repo.airspace/fay"
echo f > "$WF/f.txt"
git -C "$WF" add -A && git -C "$WF" commit -qm fay
rm -rf "$TMP/repo.airspace/erin" "$WF"
as agent prune --dry-run --json > "$TMP/out" 2> "$TMP/err" && RC=0 || RC=$?
check "prune --dry-run lists both ($RC)" jqt "$TMP/out" '[.pruned[].agent] == ["erin", "fay"] and .dry_run'
check "... and removes nothing" [ "$(git worktree list | grep -c airspace/)" -ge 2 ]
as agent prune --json > "$TMP/out" 2> "$TMP/err" && RC=0 || RC=$?
check "prune: exit 0 ($RC)" [ "$RC" -eq 0 ]
check "prune: erin's merged branch deleted, fay's kept" jqt "$TMP/out" \
    '(.pruned | map({(.agent): .branchDeleted}) | add) == {"erin": true, "fay": false} and (.pruned[1].branchKept | test("1 commit not merged"))'
check "git no longer lists them" sh -c "! git worktree list | grep -q -e '/erin ' -e '/fay '"
check "the branches: erin's gone, fay's there" \
    [ "$(git branch --list airspace/erin airspace/fay | tr -d ' ')" = airspace/fay ]
check "the daemon was told they exited" jqt "$TMP/out" '(.exited | sort) == ["erin", "fay"]'
as agent prune > "$TMP/out" 2>&1
check "prune again: nothing" grep -q "no agent worktree to prune" "$TMP/out"

finish

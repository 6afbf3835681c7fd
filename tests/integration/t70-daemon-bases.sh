# t70-daemon-bases.sh - the daemon with agents on different bases, as
# `airspace scan` in t15: their work is compared in the newest base's line
# coordinates, and the merge channel blames a pair only for conflicts
# between the two agents, never for one agent's conflict with what the
# integration branch did since its base. When the integration branch moves
# on and one agent follows, every other agent moves onto the new base
# without a rescan.
#
#   C0: t.txt = "line 1".."line 100", u.txt = "u 1".."u 40"
#   alice, carol, erin branch at C0; main then commits C1 (50 new lines at
#   the top of t.txt, u.txt line 10 changed); bob, dave, frank branch at C1.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
seq -f 'line %g' 1 100 > "$R/t.txt"
seq -f 'u %g' 1 40 > "$R/u.txt"
cd "$R"
commit 00:00 C0
for w in alice carol erin; do
    git worktree add -q -b "$w" "$TMP/$w" main
done
{ seq -f 'new %g' 1 50; cat t.txt; } > t.tmp && mv t.tmp t.txt
sed -i 's/^u 10$/main u 10/' u.txt
commit 01:00 C1
for w in bob dave frank; do
    git worktree add -q -b "$w" "$TMP/$w" main
done
C1=$(git rev-parse main)

# A1: the same text line (line 10 of C0, line 60 of C1)
sed -i 's/^line 10$/alice 10/' "$TMP/alice/t.txt"
sed -i 's/^line 10$/bob 10/' "$TMP/bob/t.txt"
# A2: line 10 of C0 and line 10 of C1 are different text lines
sed -i 's/^line 10$/carol 10/' "$TMP/carol/t.txt"
sed -i 's/^new 10$/dave 10/' "$TMP/dave/t.txt"
# B: erin (C0) changes u.txt line 10 as C1 did; frank (C1) changes line 30
sed -i 's/^u 10$/erin u 10/' "$TMP/erin/u.txt"
sed -i 's/^u 30$/frank u 30/' "$TMP/frank/u.txt"

start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000

A="$TMP/adv.json"
advisories() { api GET '/v1/advisories?all=1' && cp "$TMP/body" "$A"; }
pair() { # pair A B FILTER-on-the-pair (from the last advisories())
    jq -r --arg a "$1" --arg b "$2" \
        "[.advisories[] | select((.a==\$a and .b==\$b) or (.a==\$b and .b==\$a))][0] | $3" "$A"
}
# lines AGENT PATH: the agent's changed ranges of PATH, as "s-e,s-e".
lines() {
    api GET "/v1/agents/$1"
    jq -r --arg p "$2" \
        '[.files[] | select(.path==$p) | .lines[]? | "\(.[0])-\(.[1])"] | join(",")' "$TMP/body"
}
base() { # base AGENT
    api GET "/v1/agents/$1"
    jq -r '.base // ""' "$TMP/body"
}
wait_for() { # wait_for COMMAND...: up to 10 s
    n=0
    while ! "$@" 2> /dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
    "$@"
}

advisories
check "A1: alice's base is C1 (the newest base)" [ "$(base alice)" = "$C1" ]
check "A1: alice's edit is at line 60 of C1" [ "$(lines alice t.txt)" = 60-60 ]
check "A1: bob's edit is at line 60 of C1" [ "$(lines bob t.txt)" = 60-60 ]
check "A1: alice-bob resolution" [ "$(pair alice bob .level)" = resolution ]
check "A1: alice-bob overlap near 1" [ "$(pair alice bob '.channels.overlap > 0.9')" = true ]
check "A1: a true pair conflict across bases: merge 1" \
    [ "$(pair alice bob .channels.merge)" = 1 ]
check "A1: merge conflicts name t.txt" \
    [ "$(pair alice bob '.mergeConflicts // [] | join(" ")')" = t.txt ]
check "A2: carol's edit is at line 60 of C1" [ "$(lines carol t.txt)" = 60-60 ]
check "A2: dave's edit is at line 10" [ "$(lines dave t.txt)" = 10-10 ]
check "A2: carol-dave overlap 0" [ "$(pair carol dave .channels.overlap)" = 0 ]
check "A2: carol-dave merge 0" [ "$(pair carol dave .channels.merge)" = 0 ]
check "A2: carol-dave not a resolution" [ "$(pair carol dave .level)" != resolution ]
check "B: erin's work, on C1, still changes line 10" [ "$(lines erin u.txt)" = 10-10 ]
check "B: erin-frank merge 0 (main's conflict is not the pair's)" \
    [ "$(pair erin frank .channels.merge)" = 0 ]
check "B: erin-frank no merge conflicts" \
    [ "$(pair erin frank '.mergeConflicts // [] | length')" = 0 ]
check "B: erin-frank overlap 0" [ "$(pair erin frank .channels.overlap)" = 0 ]
check "B: erin-frank not a resolution" [ "$(pair erin frank .level)" != resolution ]

# a live edit of an agent on an old base is moved too (inotify, no rescan)
sed -i 's/^line 20$/carol 20/' "$TMP/carol/t.txt"
carol_moved() { [ "$(lines carol t.txt)" = "60-60,70-70" ]; }
check "live: carol's new edit is at line 70 of C1" wait_for carol_moved
check "live: carol is still on C1" [ "$(base carol)" = "$C1" ]

# the integration branch moves on (C2: 10 more lines at the top of t.txt)
# and bob merges it: every agent moves onto C2 on bob's refresh alone
{ seq -f 'newer %g' 1 10; cat t.txt; } > t.tmp && mv t.tmp t.txt
commit 02:00 C2
C2=$(git rev-parse main)
git -C "$TMP/bob" commit -qam bob
git -C "$TMP/bob" merge -q --no-edit main > /dev/null
on_c2() { [ "$(base bob)" = "$C2" ] && [ "$(base alice)" = "$C2" ]; }
check "C2: bob's and alice's base is C2" wait_for on_c2
check "C2: alice's edit is at line 70 of C2" [ "$(lines alice t.txt)" = 70-70 ]
check "C2: bob's edit is at line 70 of C2" [ "$(lines bob t.txt)" = 70-70 ]
check "C2: frank (C1) is on C2" [ "$(base frank)" = "$C2" ]
advisories
check "C2: alice-bob still resolution, merge 1" \
    [ "$(pair alice bob '"\(.level) \(.channels.merge)"')" = "resolution 1" ]
check "C2: erin-frank still merge 0" [ "$(pair erin frank .channels.merge)" = 0 ]
# a full rescan drops every in-memory tree and aligns them again
api POST /v1/refresh
check "refresh answers 200" [ "$CODE" = 200 ]
advisories
check "rescan: alice's edit is at line 70 of C2" [ "$(lines alice t.txt)" = 70-70 ]
check "rescan: alice-bob resolution, merge 1" \
    [ "$(pair alice bob '"\(.level) \(.channels.merge)"')" = "resolution 1" ]
check "rescan: erin-frank merge 0" [ "$(pair erin frank .channels.merge)" = 0 ]
check "rescan: carol-dave overlap 0" [ "$(pair carol dave .channels.overlap)" = 0 ]
check "no alignment warning" sh -c "! grep -q 'own base' '$TMP/daemon.log'"
finish

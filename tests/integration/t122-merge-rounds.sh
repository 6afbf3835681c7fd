# t122-merge-rounds.sh - a round of scoring runs speculative merges for
# --merge-budget-ms and leaves the rest for rounds after the requests
# waiting (the loop answered nothing while it merged: with 25 agents an
# edit cost 0.2 s of merges, and a hook's lock check timed out). With a
# budget of 0 every round runs one new merge: the rounds end, and the
# daemon comes to the very advisories and merge verdicts `scan` finds.
# A command meeting a daemon that busy waits for it.
. "$(dirname "$0")/lib.sh"
new_repo "$TMP/repo"
cd "$TMP/repo"
seq -f 'line %g' 1 40 > f.txt
seq -f 'other %g' 1 40 > g.txt
commit 00:00 C0
for a in a1 a2 a3 a4 a5 a6; do
    git worktree add -q -b "$a" "$TMP/$a" main
    sed -i "s/^line 11\$/$a 11/" "$TMP/$a/f.txt"
done
# a7 changes g.txt only: it shares no path, so no merge is run for its pairs
git worktree add -q -b a7 "$TMP/a7" main
sed -i 's/^other 5$/a7 5/' "$TMP/a7/g.txt"
start_daemon --merge-budget-ms 0 --rescan-ms 60000

st() { api GET /v1/status && jq -r "$1" "$TMP/body"; }
# settled: every pair of a1..a6 scored with its merge (15 of them) and no
# round left
merged() {
    api GET '/v1/advisories?all=1' &&
        jq -e '[.advisories[] | select(.a != "main" and .b != "main" and .a != "a7" and .b != "a7" and .channels.merge == 1)] | length == 15' "$TMP/body" > /dev/null
}
n=0
until merged || [ $n -ge 200 ]; do sleep 0.1; n=$((n + 1)); done
check "every pair of a1..a6 has its merge conflict ($(jq -c '[.advisories[] | {a, b, m: .channels.merge}]' "$TMP/body"))" merged
check "merges were left for later rounds ($(st .merges.later) of $(st .merges.run))" [ "$(st .merges.later)" -gt 0 ]
check "every merge ran in the end ($(st .merges.run))" [ "$(st .merges.run)" -ge 15 ]
api GET '/v1/advisories?all=1'
jq -c '[.advisories[] | select(.level == "resolution") | [.a, .b] | sort] | sort' "$TMP/body" > "$TMP/daemon.txt"
as scan --json > "$TMP/scan.json"
jq -c '[.pairs[] | select(.level == "resolution") | [.a, .b] | sort] | sort' "$TMP/scan.json" > "$TMP/scan.txt"
check "the daemon's resolutions are scan's ($(cat "$TMP/daemon.txt"))" cmp -s "$TMP/daemon.txt" "$TMP/scan.txt"
# a daemon that takes the connection and answers late (busy: stopped for
# 12 s here, longer than the probes of a start that fails) is waited for, not taken for gone
# (the command started a second daemon, which failed on the lock, and
# exited 3)
kill -STOP "$DPID"
(sleep 12; kill -CONT "$DPID") &
WAKE=$!
set +e
as locks > "$TMP/locks.out" 2> "$TMP/locks.err"
rc=$?
set -e
wait "$WAKE"
check "a busy daemon is waited for: exit 0 ($rc: $(cat "$TMP/locks.err"))" [ "$rc" = 0 ]
check "... and no second daemon was started" sh -c "! grep -q 'another daemon' '$TMP/daemon.log' .git/airspace/daemon.log 2> /dev/null"
check "a bad budget is refused" sh -c "! '$AIRSPACE_BIN' serve --merge-budget-ms -1 --repo '$TMP/repo' > /dev/null 2>&1"
finish

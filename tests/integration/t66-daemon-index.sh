# t66-daemon-index.sh - the daemon serves while it builds the import graph
# of a large repository: it answers at once, GET /v1/status says how far
# the index is (`index`), `airspace status` says "indexing N/M files";
# once built, the graph is used (a dependency-only pair is scored again);
# a stop while indexing ends the build and keeps what was parsed in the
# cache. `airspace scan` draws its index's progress on stderr when it is a
# terminal, and never with --json or into a file or pipe.
. "$(dirname "$0")/lib.sh"
trap 'kill $DPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT

R="$TMP/repo"
python3 "$(dirname "$0")/../../bench/index_repo.py" "$R" 800 > /dev/null
# a caller and a callee two hops apart: a.c -> b.h -> b.c
mkdir -p "$R/pair"
printf '#include "b.h"\nint\nmain(void)\n{\n    return b(1);\n}\n' > "$R/pair/a.c"
printf 'int b(int x);\n' > "$R/pair/b.h"
printf '#include "b.h"\nint\nb(int x)\n{\n    return x + 1;\n}\n' > "$R/pair/b.c"
git -c init.defaultBranch=main init -q "$R"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
SOCK="$R/.git/airspace/sock"
serve() { # serve: the daemon in the background, one parsing thread
    "$AIRSPACE_BIN" serve --log-stderr --threads 1 --tick-ms 50 \
        2>> "$TMP/daemon.log" &
    DPID=$!
    n=0
    until curl -sf --unix-socket "$SOCK" http://a/v1/status > "$TMP/first" 2> /dev/null; do
        sleep 0.01
        n=$((n + 1))
        [ $n -lt 1000 ] || return 1
    done
}
index() { curl -s --unix-socket "$SOCK" http://a/v1/status | jq -c .index; }
wait_ready() {
    n=0
    until [ "$(index | jq -r .state)" = ready ]; do
        sleep 0.05
        n=$((n + 1))
        [ $n -lt 1200 ] || return 1
    done
}

check "the daemon answers" serve
check "at once, indexing" jqt "$TMP/first" \
    '.index.state == "indexing" and (.index.done | type) == "number" and
     (.index.total | type) == "number" and (.index.startedAt | type) == "number"'
as status > "$TMP/st"
check "airspace status says what it does" \
    grep -Eq "^indexing ([0-9]+/[0-9]+ files|: listing the files)" "$TMP/st"
as status --json > "$TMP/sj"
check "status --json carries it" jqt "$TMP/sj" '.daemon.index.state == "indexing"'
# while the graph is built, the pair is scored without it
api POST /v1/agents '{"id":"alice"}'
api POST /v1/agents '{"id":"bob"}'
api POST /v1/agents/alice/edits '{"path":"pair/b.c","lines":[[4,6]]}'
api POST /v1/agents/bob/edits '{"path":"pair/a.c","lines":[[5,5]]}'
check "the index is built" wait_ready
index > "$TMP/ix"
check "status: ready, with its figures" jqt "$TMP/ix" \
    '.state == "ready" and .files == 805 and .parsed > 700 and .cached == 0 and .ms > 0'
check "it served before the graph was done" sh -c \
    "grep -n 'serving on\|graph: ' '$TMP/daemon.log' | head -2 | tr '\n' ' ' | grep -q 'serving on.*graph: 805 files'"
api GET '/v1/advisories?all=1'
check "the graph is used once built: the pair's dependency channel" jqt "$TMP/body" \
    '[.advisories[] | select(.a == "alice" and .b == "bob")][0].channels.dependency > 0'
as status > "$TMP/st"
check "status says nothing of a ready index" sh -c "! grep -q indexing '$TMP/st'"
api POST /v1/stop
wait "$DPID" 2> /dev/null || true

# a stop while indexing: prompt, clean, and what was parsed stays cached
rm -f .git/airspace/graph.cache*
serve
jqt "$TMP/first" '.index.state == "indexing"' || fail "the second start indexes"
sleep 0.3
api POST /v1/stop
T0=$(date +%s)
rc=0
wait "$DPID" || rc=$?
check "a stop while indexing exits 0 (got $rc)" [ $rc -eq 0 ]
check "promptly" [ $(($(date +%s) - T0)) -lt 10 ]
serve
check "the next index is built" wait_ready
check "on what the stopped one parsed" jqt /dev/stdin '.cached > 0' <<EOF
$(index)
EOF
api POST /v1/stop
wait "$DPID" 2> /dev/null || true

# scan: progress on a terminal only
S="$TMP/small"
imports_repo "$S"
cd "$S"
if command -v script > /dev/null; then
    rm -f .git/airspace/graph.cache*
    script -qec "'$AIRSPACE_BIN' scan" /dev/null > "$TMP/tty" 2>&1
    check "scan on a terminal draws its progress" grep -aq "airspace scan: indexing [0-9]*/[0-9]* files" "$TMP/tty"
    rm -f .git/airspace/graph.cache*
    script -qec "'$AIRSPACE_BIN' scan --json" /dev/null > "$TMP/tty" 2>&1
    check "not with --json" sh -c "! grep -aq indexing '$TMP/tty'"
    script -qec "'$AIRSPACE_BIN' scan" /dev/null > "$TMP/tty" 2>&1
    check "nor when every file is cached" sh -c "! grep -aq indexing '$TMP/tty'"
fi
rm -f .git/airspace/graph.cache*
as scan > /dev/null 2> "$TMP/err"
check "into a file, scan is quiet" [ ! -s "$TMP/err" ]

finish

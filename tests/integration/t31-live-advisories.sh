# t31-live-advisories.sh - the daemon sees two real worktrees approach step
# by step (files edited on disk, picked up by inotify): clear -> traffic
# (through the import graph) -> resolution (same lines), then back to clear
# after the dwell when one reverts; events carry the breakdown and who
# holds and who steers.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/net" "$R/src/app"
cat > "$R/src/net/conn.h" <<'C'
#ifndef CONN_H
#define CONN_H
int conn_open(int port);
#endif
C
cat > "$R/src/net/conn.c" <<'C'
#include "conn.h"

int
conn_open(int port)
{
    int fd = port;
    return fd;
}
C
cat > "$R/src/app/page.c" <<'C'
#include "../net/conn.h"

int
page_fetch(void)
{
    return conn_open(80);
}
C
git -C "$R" add -A
git -C "$R" commit -qm base
git -C "$R" worktree add -q -b alice "$TMP/alice" main
git -C "$R" worktree add -q -b bob "$TMP/bob" main
cd "$R"
"$AIRSPACE_BIN" serve --log-stderr --tick-ms 50 --debounce-ms 50 \
    --rescan-ms 60000 --set dwell_ms=400 2> "$TMP/daemon.log" &
DPID=$!
trap 'kill $DPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT
SOCK="$R/.git/airspace/sock"
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
until curl -sf --unix-socket "$SOCK" http://a/v1/status > /dev/null; do sleep 0.05; done
"$AIRSPACE_BIN" watch --json --after 0 > "$TMP/events.json" 2>/dev/null &
WPID=$!
trap 'kill $DPID $WPID 2>/dev/null || true; wait $DPID 2>/dev/null || true; rm -rf "$TMP"' EXIT

level() { # level A B: the pair's current level
    curl -s --unix-socket "$SOCK" 'http://a/v1/advisories?all=1' |
        jq -r --arg a "$1" --arg b "$2" \
            '[.advisories[] | select((.a==$a and .b==$b) or (.a==$b and .b==$a))][0].level // "none"'
}
wait_level() { # wait_level A B LEVEL: up to 10 s
    n=0
    while [ "$(level "$1" "$2")" != "$3" ] && [ $n -lt 200 ]; do
        sleep 0.05
        n=$((n + 1))
    done
    [ "$(level "$1" "$2")" = "$3" ]
}

check "start: alice-bob clear" wait_level alice bob clear
# alice changes conn_open's body; bob changes the caller two directories away
sed -i 's/    int fd = port;/    int fd = port + 1;/' "$TMP/alice/src/net/conn.c"
sed -i 's/    return conn_open(80);/    return conn_open(8080);/' "$TMP/bob/src/app/page.c"
check "import coupling: traffic" wait_level alice bob traffic
# bob now edits the very lines alice changed
sed -i 's/    int fd = port;/    int fd = port * 2;/' "$TMP/bob/src/net/conn.c"
check "same lines: resolution" wait_level alice bob resolution
merge_ch() {
    curl -s --unix-socket "$SOCK" 'http://a/v1/advisories?all=1' |
        jq -r '[.advisories[] | select((.a=="alice" and .b=="bob") or (.a=="bob" and .b=="alice"))][0].channels.merge'
}
check "the merge channel sees the conflict" [ "$(merge_ch)" = "1" ]
# a rescan drops every in-memory snapshot and re-reads the worktrees: the
# speculative merge still finds both trees
curl -sf -X POST --unix-socket "$SOCK" http://a/v1/refresh > /dev/null
curl -sf -X POST --unix-socket "$SOCK" http://a/v1/refresh > /dev/null
after=$(level alice bob)/$(merge_ch)
check "after two rescans: still resolution, merge channel 1 ($after)" \
    [ "$after" = "resolution/1" ]
# bob reverts everything: back to clear, but only after the dwell
git -C "$TMP/bob" checkout -q -- .
check "after revert: clear" wait_level alice bob clear
sleep 0.3
kill $WPID 2>/dev/null || true
J="$TMP/events.json"
adv() { jq -s -c '[.[] | select(.type == "advisory") | .data | select((.a=="alice" and .b=="bob")) | .level]' "$J"; }
check "events in order clear->traffic->resolution->traffic?->clear: $(adv)" \
    sh -c "adv_out='$(adv)'; case \$adv_out in '[\"traffic\",\"resolution\",'*'\"clear\"]') true;; *) false;; esac"
check "traffic event names the dependency channel" \
    sh -c "jq -s -e '[.[] | select(.type==\"advisory\" and .data.level==\"traffic\")][0].data.channels.dependency > 0' '$J' > /dev/null"
check "resolution event: hold, steer, contested lines and guidance" \
    sh -c "jq -s -e '[.[] | select(.type==\"advisory\" and .data.level==\"resolution\")][0].data | (.hold != null and .steer != null and .hold != .steer and (.contested[0].path == \"src/net/conn.c\") and (.guidance | test(\"resolution advisory\")))' '$J' > /dev/null"
# the dwell: resolution is not left the instant the risk drops
t_res=$(jq -s '[.[] | select(.type=="advisory" and .data.level=="resolution")][0].ts' "$J")
t_clear=$(jq -s '[.[] | select(.type=="advisory" and .data.level=="clear" and .data.from != null)][-1].ts' "$J")
check "left after the dwell ($t_res -> $t_clear)" [ $((t_clear - t_res)) -ge 400 ]
finish

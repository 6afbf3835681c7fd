# worktrees_lib.sh - sourced by the daemon benchmarks that run binaries in
# turn on one large repository (rescan_stall.sh, edit_read.sh): a clone
# of SRC at $T/r with WORKTREES worktrees $T/w1.., each with one change in
# a file git tracks; and a daemon started there and left to settle.
# Needs T (a scratch directory).

# bench_worktrees SRC N: and with AHEAD=K in the environment, w1 has K
# commits ahead of its base, each changing one more tracked C file
bench_worktrees() {
    git clone -q "$1" "$T/r"
    i=1
    while [ "$i" -le "$2" ]; do
        git -C "$T/r" worktree add -q -b "w$i" "$T/w$i"
        f=$(git -C "$T/w$i" ls-files | sed -n "$((i * 7 + 1))p")
        echo "/* w$i */" >> "$T/w$i/$f"
        i=$((i + 1))
    done
    git -C "$T/w1" ls-files -- '*.c' | sed -n "1,${AHEAD:-0}p" | while read -r f; do
        echo "/* ahead */" >> "$T/w1/$f"
        git -C "$T/w1" -c user.name=bench -c user.email=bench@localhost \
            commit -qam "ahead: $f"
    done
}

# bench_serve BIN: the daemon of $T/r in the background (pid in DPID,
# socket in S), once its import graph is built and its first reads done
bench_serve() {
    bin=$1
    case $bin in /*) ;; */*) bin=$(pwd)/$bin ;; esac
    (cd "$T/r" && exec "$bin" serve --log-stderr 2> "$T/log") &
    DPID=$!
    S="$T/r/.git/airspace/sock"
    until curl -sf --unix-socket "$S" http://a/v1/status 2> /dev/null |
        jq -e '.index.state == "ready"' > /dev/null 2>&1; do
        kill -0 "$DPID" 2> /dev/null || { cat "$T/log" >&2; return 1; }
        sleep 0.2
    done
    sleep 10 # the first reads (and the one after the graph) settle
}

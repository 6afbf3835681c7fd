# t76-watch-dirs.sh - directories made (mkdir, mkdir -p) or moved into a
# worktree are watched at once: a file created in them reaches the working
# set long before the periodic rescan.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
printf 'r\n' > "$R/README"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"

start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 600000

# has PATH: poll (up to 5 s) until the main worktree's agent has PATH in
# its working set.
has() {
    n=0
    while [ $n -lt 50 ]; do
        api GET /v1/agents/main
        jqt "$TMP/body" ".files | map(.path) | index(\"$1\") != null" && return 0
        sleep 0.1
        n=$((n + 1))
    done
    return 1
}

mkdir newdir
sleep 0.4 # the directory's own event is handled first
printf 'f\n' > newdir/f.txt
check "a file in a new directory is seen" has newdir/f.txt

mkdir -p a/b/c
sleep 0.4
printf 'g\n' > a/b/c/g.txt
check "a file deep in mkdir -p is seen" has a/b/c/g.txt

mkdir -p "$TMP/outside/x"
mv "$TMP/outside" moved
sleep 0.4
printf 'h\n' > moved/x/h.txt
check "a file in a directory moved in is seen" has moved/x/h.txt

mv moved renamed
sleep 0.4
printf 'i\n' > renamed/x/i.txt
check "a file in a directory renamed inside is seen" has renamed/x/i.txt

rm -rf newdir
mkdir newdir
sleep 0.4
printf 'j\n' > newdir/j.txt
check "a directory made again after removal is watched" has newdir/j.txt

api POST /v1/stop
wait "$DPID" 2>/dev/null || true
finish

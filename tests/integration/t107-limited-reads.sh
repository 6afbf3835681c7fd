# t107-limited-reads.sh - an edit's read is limited to the paths the watch
# named and those the last read found changed: after each kind of change
# (a mode, a file made a directory, a symlink, a directory made a file, a
# plain mv) the daemon's working set is the one a full rescan reads, and
# the reads were limited ones.
. "$(dirname "$0")/lib.sh"
new_repo "$TMP/repo"
cd "$TMP/repo"
seq -f 'line %g' 1 40 > t.txt
echo "#!/bin/sh" > run.sh
mkdir d && echo a > d/a.txt
commit 00:00 C0
git worktree add -q -b bob "$TMP/bob" main
start_daemon --debounce-ms 50 --rescan-ms 600000

files() { api GET /v1/agents/bob && jq -c '[.files[] | {path, status, newPath, lines}]' "$TMP/body"; }
limited() { api GET /v1/status && jq -r .watch.limitedReads "$TMP/body"; }
# step NAME WANT [COND]: bob's files become WANT (paths; and the jq COND
# holds), read limited, and a full rescan reads the same
step() {
    n=0
    until { [ "$(files | jq -r 'map(.path) | join(" ")')" = "$2" ] &&
        files | jq -e "${3:-true}" > /dev/null; } || [ $n -ge 50 ]; do
        sleep 0.1
        n=$((n + 1))
    done
    lim=$(files)
    check "$1: bob's paths ($lim)" [ "$(printf '%s' "$lim" | jq -r 'map(.path) | join(" ")')" = "$2" ]
    check "$1: read limited ($(limited) from $L)" [ "$(limited)" -gt "$L" ]
    api POST /v1/refresh
    check "$1: a full rescan reads the same" [ "$(files)" = "$lim" ]
    L=$(limited)
}
L=$(limited)
chmod +x "$TMP/bob/run.sh"
step "mode" "run.sh"
check "mode: a mode change" [ "$(files | jq -r '.[0].status')" = mode ]
rm "$TMP/bob/t.txt" && mkdir "$TMP/bob/t.txt" && echo x > "$TMP/bob/t.txt/inner"
step "file made a directory" "run.sh t.txt t.txt/inner"
ln -s d/a.txt "$TMP/bob/link"
step "symlink" "link run.sh t.txt t.txt/inner"
rm -rf "$TMP/bob/d" && echo y > "$TMP/bob/d"
step "directory made a file" "d d/a.txt link run.sh t.txt t.txt/inner"
mv "$TMP/bob/run.sh" "$TMP/bob/run2.sh"
step "plain mv" "d d/a.txt link run.sh t.txt t.txt/inner" '.[] | select(.path == "run.sh") | .newPath == "run2.sh"'
check "plain mv: a rename" [ "$(files | jq -r '.[] | select(.path == "run.sh") | .newPath')" = run2.sh ]
finish

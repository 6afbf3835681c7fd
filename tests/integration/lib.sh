# lib.sh - helpers for integration tests: temp repos, assertions.
# Sourced by tests/integration/t*.sh; AIRSPACE_BIN is the binary under test.
set -eu
: "${AIRSPACE_BIN:?AIRSPACE_BIN must point at the airspace binary}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/airspace-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export GIT_AUTHOR_NAME=tester GIT_AUTHOR_EMAIL=t@example.invalid
export GIT_COMMITTER_NAME=tester GIT_COMMITTER_EMAIL=t@example.invalid
export GIT_AUTHOR_DATE="2026-01-01T10:00:00Z" GIT_COMMITTER_DATE="2026-01-01T10:00:00Z"
export GIT_CONFIG_NOSYSTEM=1 HOME="$TMP/home" NO_COLOR=1
export XDG_CONFIG_HOME="$HOME/.config" # no user config file leaks in
mkdir -p "$HOME"
PASSED=0
FAILED=0

ok() {
    PASSED=$((PASSED + 1))
}

fail() {
    echo "FAIL: $*" >&2
    FAILED=$((FAILED + 1))
}

# check NAME CONDITION-COMMAND...: record a named assertion.
check() {
    name=$1
    shift
    if "$@"; then ok; else fail "$name"; fi
}

# jqt FILE FILTER: true when the jq filter yields true on FILE.
jqt() {
    [ "$(jq -r "$2" "$1")" = "true" ]
}

# jqsame FILTER A B: jq FILTER runs on both files and gives the same,
# non-empty output (a filter jq rejects fails, not two empty strings)
jqsame() {
    _ja=$(jq -cS "$1" "$2") && _jb=$(jq -cS "$1" "$3") &&
        [ -n "$_ja" ] && [ "$_ja" = "$_jb" ]
}

as() {
    "$AIRSPACE_BIN" "$@"
}

new_repo() {
    git -c init.defaultBranch=main init -q "$1"
}

# base_repo DIR: a new repository whose one commit ("base") holds the file
# x, and move into it.
base_repo() {
    new_repo "$1"
    echo x > "$1/x"
    git -C "$1" add -A
    git -C "$1" commit -qm base
    cd "$1"
}

# at HH:MM: author and committer dates (2026-01-01, UTC) for the next git
# commands; commit HH:MM MESSAGE: commit everything at that time.
at() {
    export GIT_AUTHOR_DATE="2026-01-01T$1:00Z" GIT_COMMITTER_DATE="2026-01-01T$1:00Z"
}
commit() {
    at "$1"
    git add -A
    git commit -qm "$2"
}

finish() {
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}

# start_daemon [SERVE-OPTIONS...]: run `airspace serve` for the repository
# in the current directory in the background (DPID, SOCK), logging to
# $TMP/daemon.log, wait until it answers, and stop it when the test exits.
start_daemon() {
    SOCK="$(git rev-parse --git-common-dir)/airspace/sock"
    case $SOCK in /*) ;; *) SOCK="$(pwd)/$SOCK" ;; esac
    "$AIRSPACE_BIN" serve --log-stderr "$@" 2>> "$TMP/daemon.log" &
    DPID=$!
    # the daemon is stopped and gone before its files are removed (it
    # writes its last state on the way out: rm racing it fails)
    trap 'kill $DPID 2>/dev/null && wait $DPID 2>/dev/null; rm -rf "$TMP"' EXIT
    n=0
    # answering, and done with its first index (jq -e is true on no input)
    until st=$(curl -sf --unix-socket "$SOCK" http://a/v1/status 2> /dev/null) &&
        printf '%s' "$st" | jq -e '.index.state != "indexing"' > /dev/null 2>&1; do
        sleep 0.05
        n=$((n + 1))
        [ $n -lt 600 ] || { echo "daemon did not start" >&2; cat "$TMP/daemon.log" >&2; return 1; }
    done
}

# api METHOD PATH [JSON]: one request on the daemon's socket; the body goes
# to $TMP/body and the HTTP status to CODE.
# lock_token AGENT PATTERN: the fencing token of AGENT's live lock on
# PATTERN (0 if none), for releases and renewals, which must carry it.
lock_token() {
    curl -s --unix-socket "$SOCK" http://a/v1/locks |
        jq --arg a "$1" --arg p "$2" \
            '[.locks[] | select(.holder == $a and .pattern == $p) | .token][0] // 0'
}

api() {
    if [ $# -ge 3 ]; then
        CODE=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$SOCK" \
            -X "$1" -H 'Content-Type: application/json' --data "$3" "http://a$2")
    else
        CODE=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$SOCK" \
            -X "$1" "http://a$2")
    fi
}

# merge_case NAME WANT 'base commands' 'A commands' 'B commands': in
# $TMP/NAME, a base commit, branches A and B each one commit on it, and M
# merging B into A; then check that replay's label and conflicted paths agree
# with `git merge-tree --write-tree` (WANT, git's label, is asserted too so a
# changed git is seen). git moves the file of a file/directory conflict
# aside as "path~A"; airspace lists it as "path".
merge_case() {
    cname=$1 cwant=$2
    new_repo "$TMP/$cname"
    (
        cd "$TMP/$cname"
        eval "$3"
        commit 00:00 base
        git checkout -qb A
        eval "$4"
        commit 01:00 A
        git checkout -q main
        git checkout -qb B
        eval "$5"
        commit 02:00 B
        git checkout -qb m A
        at 03:00
        git merge -q --no-ff -m M B > /dev/null 2>&1 || {
            git add -A
            git commit -qm M
        }
    )
    R="$TMP/$cname"
    if git -C "$R" merge-tree --write-tree --name-only A B > "$TMP/mt" 2> /dev/null; then
        git_label=false
    else
        git_label=true
    fi
    # --name-only: the tree, the conflicted paths, a blank line, messages
    awk 'NR > 1 && /^$/ { exit } NR > 1' "$TMP/mt" | sed 's/~[AB]$//' | sort -u |
        jq -R . | jq -sc . > "$TMP/git_paths"
    as replay --repo "$R" --json --per-merge > "$TMP/out.json"
    check "$cname: git says conflicted=$cwant" [ "$git_label" = "$cwant" ]
    check "$cname: label agrees with git merge-tree" jqt "$TMP/out.json" \
        "(.merges | length) == 1 and .merges[0].conflicted == $git_label"
    check "$cname: conflicted paths agree with git merge-tree" jq -e \
        --slurpfile g "$TMP/git_paths" '.merges[0].conflicted_paths == $g[0]' \
        "$TMP/out.json" > /dev/null || {
        echo "  git: $(cat "$TMP/git_paths")" >&2
        echo "  airspace: $(jq -c '.merges[0].conflicted_paths' "$TMP/out.json")" >&2
    }
}

# imports_repo DIR: a repository with C files (src/util.h and src/util.c
# defining add and sub, src/main.c) and TypeScript ones (tsconfig.json,
# lib/a.ts, app/main.ts), committed as "base": the agents' own view of the
# import graph, scan's (t14) and the daemon's (t39).
imports_repo() {
    new_repo "$1"
    mkdir -p "$1/src" "$1/lib" "$1/app"
    cat > "$1/src/util.h" <<'C'
#ifndef UTIL_H
#define UTIL_H
int add(int a, int b);
int sub(int a, int b);
#endif
C
    cat > "$1/src/util.c" <<'C'
#include "util.h"

int
add(int a, int b)
{
    return a + b;
}

int
sub(int a, int b)
{
    return a - b;
}
C
    cat > "$1/src/main.c" <<'C'
int
main(void)
{
    return 0;
}
C
    echo '{ "compilerOptions": { "baseUrl": "." } }' > "$1/tsconfig.json"
    cat > "$1/lib/a.ts" <<'J'
export function f(x: number): number {
    return x + 1;
}
J
    echo 'export const main = 1;' > "$1/app/main.ts"
    git -C "$1" add -A
    git -C "$1" commit -qm base
}

# hook_agent PREFIX SESSION: the agent id the hooks give a session that has
# no worktree agent's name: PREFIX-<8 hex digits of FNV-1a of SESSION>.
hook_agent() {
    python3 -c 'import sys
h = 1469598103934665603
for c in sys.argv[2].encode():
    h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
print("%s-%08x" % (sys.argv[1], (h ^ (h >> 32)) & 0xFFFFFFFF))' "$1" "$2"
}

# A client process that lives on: client_start NAME starts one (python3,
# not a shell, as the agent clients are; its pid in $TMP/NAME.pid) that
# runs every command client_run NAME COMMAND gives it through sh -c, as
# its child, one at a time, as a client runs its hooks and its shell
# tool's commands; client_run returns when the command is done (up to
# 20 s). client_stop NAME ends it; client_kill NAME kills it with
# SIGKILL (a crashed client: no SessionEnd). client_spawn NAME COMMAND
# starts COMMAND as its child and returns at once (a client's MCP server,
# which lives as long as the client).
client_start() {
    mkfifo "$TMP/$1.in"
    python3 -c 'import signal, subprocess, sys
signal.alarm(600)  # a test that failed midway leaves none behind for long
fifo, done = sys.argv[1:3]
while True:
    with open(fifo) as f:
        cmd = f.read()
    if cmd == "quit":
        break
    if cmd.startswith("&"):
        subprocess.Popen(["sh", "-c", cmd[1:]])
    else:
        subprocess.call(["sh", "-c", cmd])
    open(done, "w").close()' "$TMP/$1.in" "$TMP/$1.done" &
    echo $! > "$TMP/$1.pid"
}
client_run() {
    rm -f "$TMP/$1.done"
    printf '%s' "$2" > "$TMP/$1.in"
    _n=0
    while [ ! -e "$TMP/$1.done" ] && [ $_n -lt 400 ]; do
        sleep 0.05
        _n=$((_n + 1))
    done
}
client_spawn() {
    client_run "$1" "&$2"
}
client_stop() {
    printf quit > "$TMP/$1.in"
    wait "$(cat "$TMP/$1.pid")" 2> /dev/null || true
}
client_kill() {
    kill -9 "$(cat "$TMP/$1.pid")"
    wait "$(cat "$TMP/$1.pid")" 2> /dev/null || true
}

# An MCP server fed line by line: the test writes requests to fd 3 and the
# server answers into $TMP/out. mcp_send ID TOOL ARGS-JSON sends a
# tools/call and waits for its answer (in $TMP/r-ID); mcp_text ID is the
# answer's text.
mcp_send() {
    printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' \
        "$1" "$2" "$3" >&3
    _n=0
    # (jq -e is true on no input: the answer is there when r-ID is not empty)
    until { jq -c "select(.id == $1)" "$TMP/out" > "$TMP/r-$1" 2> /dev/null && [ -s "$TMP/r-$1" ]; } ||
        [ $_n -gt 400 ]; do
        sleep 0.05
        _n=$((_n + 1))
    done
}
mcp_text() {
    jq -r '.result.content[0].text // .error.message' "$TMP/r-$1"
}

# fleet_tmux NAME: a fleet test's own tmux server (SKIP without tmux), also
# when the tests run inside tmux, and MARK, a marker unique to this run of
# test NAME.
fleet_tmux() {
    if ! command -v tmux > /dev/null; then
        echo "SKIP: no tmux"
        exit 0
    fi
    unset TMUX
    export TMUX_TMPDIR="$TMP"
    MARK="$1mark$$"
}

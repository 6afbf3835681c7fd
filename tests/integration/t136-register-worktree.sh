# t136-register-worktree.sh - POST /v1/agents takes a `worktree` only when
# it is the top of a worktree of this repository (the daemon reads the
# agent's work there): a path that does not exist, a plain directory, a
# directory inside a worktree or another repository is 400 bad_path, and
# nothing is registered (nor read, nor logged at each refresh). The main
# worktree, a linked one and a symbolic link to one are taken.
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
base_repo "$R"
mkdir -p sub "$TMP/plain"
echo s > sub/s.txt
commit 00:01 sub
git worktree add -q -b side "$TMP/side"
new_repo "$TMP/other"
git -C "$TMP/other" commit -q --allow-empty -m other
ln -s "$TMP/side" "$TMP/link"
start_daemon --rescan-ms 60000

refused() { # refused ID WORKTREE WHAT
    api POST /v1/agents "{\"id\":\"$1\",\"client\":\"test\",\"worktree\":\"$2\"}"
    check "$3: 400 bad_path (got $CODE)" jqt "$TMP/body" '.error.code == "bad_path"'
    check "... naming it" jqt "$TMP/body" ".error.message | contains(\"'$2'\")"
    api GET "/v1/agents/$1"
    check "... nothing registered" [ "$CODE" = 404 ]
}
refused dave /src/proj-alice "a path that does not exist"
refused erin "$TMP/plain" "a plain directory"
refused finn "$R/sub" "a directory inside the main worktree"
refused gail "$TMP/other" "another repository"

taken() { # taken ID WORKTREE WHAT
    api POST /v1/agents "{\"id\":\"$1\",\"client\":\"test\",\"worktree\":\"$2\"}"
    check "$3: taken (got $CODE)" [ "$CODE" = 200 ]
}
taken alice "$R" "the main worktree"
taken bob "$TMP/side" "a linked worktree"
taken carl "$TMP/link/" "a symbolic link to one, with a slash"
api GET /v1/agents/carl
check "... registered at the real path" jqt "$TMP/body" ".worktree == \"$TMP/side\""

api POST /v1/refresh '{"git":true}'
api POST /v1/refresh
check "no refresh error is logged" [ -z "$(grep 'cannot open worktree' "$TMP/daemon.log")" ]
finish

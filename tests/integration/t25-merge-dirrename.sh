# t25-merge-dirrename.sh - directory renames, which git's merge applies and
# libgit2's does not: replay's label and conflicted paths must agree with
# `git merge-tree --write-tree` on each case, and the live merge channel
# must see the same conflict between two worktrees.
#
# Each case: base d/a.txt, d/b.txt, d/sub/s.txt, top.txt; branch A and
# branch B each make one commit; M merges B into A.
. "$(dirname "$0")/lib.sh"

# case_ NAME WANT 'A commands' 'B commands' ['base commands']: merge_case
# (lib.sh) over the base above unless another is given.
DIRBASE='mkdir -p d/sub; seq 1 10 > d/a.txt; seq 11 20 > d/b.txt
    seq 21 30 > d/sub/s.txt; seq 31 40 > top.txt'
case_() {
    merge_case "$1" "$2" "${5:-$DIRBASE}" "$3" "$4"
}

case_ location true 'git mv d e' 'echo n > d/c.txt'
case_ nested true 'git mv d e' 'echo n > d/sub/n.txt'
case_ split true 'mkdir e f g; git mv d/a.txt e/a.txt; git mv d/b.txt f/b.txt; git mv d/sub g/sub' 'echo n > d/c.txt'
case_ deleted-dir false 'git rm -rq d' 'echo n > d/c.txt'
case_ partial false 'mkdir e; git mv d/a.txt e/a.txt' 'echo n > d/c.txt'
case_ majority true 'mkdir e f; git mv d/a.txt e/a.txt; git mv d/b.txt e/b.txt; git mv d/sub f/sub' 'echo n > d/c.txt'
case_ modify false 'git mv d e' 'echo more >> d/a.txt'
case_ sub-renamed true 'git mv d/sub e' 'echo n > d/sub/n.txt'
case_ renamed-into true 'git mv d e' 'git mv top.txt d/top.txt'
case_ deeper-target true 'mkdir e; git mv d e/d' 'echo n > d/c.txt'
case_ split-no-add false 'mkdir e f; git mv d/a.txt e/a.txt; git mv d/b.txt f/b.txt; git rm -rq d/sub' 'echo more >> top.txt'
case_ add-same true 'git mv d e; echo n > e/c.txt' 'echo n > d/c.txt'
case_ other-deletes true 'git mv d e' 'git rm -q d/a.txt; echo n > d/c.txt'
case_ reverse true 'echo n > d/c.txt' 'git mv d e'
# Which directories take part (merge-ort: those the other side added a file
# directly in, and those below them), and two paths sent to one place.
case2() { # case2 NAME WANT 'base commands' 'A commands' 'B commands'
    case_ "$1" "$2" "$4" "$5" "$3"
}
case2 sibling-moved false 'mkdir -p d/y d/z; seq 1 10 > d/y/f; seq 11 20 > d/z/g; seq 21 30 > d/z/h' \
    'git rm -q d/y/f; mkdir e; git mv d/z e/z' 'echo n > d/y/new'
case2 split-not-taking-part false 'mkdir -p d/y; seq 1 10 > d/a; seq 11 20 > d/b; seq 21 30 > d/y/f' \
    'mkdir e f; git mv d/a e/a; git mv d/b f/b; git rm -q d/y/f' 'echo n > d/y/new'
case2 split-below true 'mkdir -p d/x; seq 1 10 > d/x/a; seq 11 20 > d/x/b; seq 21 30 > d/f' \
    'mkdir p q; git mv d/x/a p/a; git mv d/x/b q/b; git rm -q d/f' 'echo n > d/new'
case2 split-deeper true 'mkdir -p d/x/y; seq 1 10 > d/x/y/a; seq 11 20 > d/x/y/b; seq 21 30 > d/f' \
    'mkdir p q; git mv d/x/y/a p/a; git mv d/x/y/b q/b; git rm -q d/f' 'echo n > d/new'
case2 split-sibling false 'mkdir -p d/x d/z; seq 1 10 > d/x/a; seq 11 20 > d/x/b; seq 21 30 > d/z/f' \
    'mkdir p q; git mv d/x/a p/a; git mv d/x/b q/b; git rm -q d/z/f' 'echo n > d/z/new'
case2 collision true 'mkdir d1 d2; seq 1 10 > d1/a; seq 11 20 > d2/b' \
    'mkdir e; git mv d1/a e/a; git mv d2/b e/b' 'echo n > d1/c; echo m > d2/c'
# A directory replaced by a file on one side, a file added in it on the
# other: file/directory (libgit2 sees it only when the base had neither).
case2 dir-replaced-by-file true 'mkdir d; seq 1 10 > d/a; seq 11 20 > d/b' \
    'git rm -rq d; echo f > d' 'echo n > d/c'
case2 file-replaced-by-dir false 'mkdir d; seq 1 10 > d/a; seq 11 20 > f' \
    'echo n > f2' 'git rm -q f; mkdir f; echo n > f/inner'
case2 file-changed-and-replaced true 'mkdir d; seq 1 10 > d/a; seq 11 20 > f' \
    'echo more >> f' 'git rm -q f; mkdir f; echo n > f/inner'
case2 both-replace-dir true 'mkdir d; seq 1 10 > d/a' \
    'git rm -rq d; echo f > d' 'git rm -rq d; mkdir -p d/x; echo n > d/x/c'
# One side changes only a binary file's mode, the other only its content:
# git takes both (libgit2 tries a content merge and fails on binary).
case2 binary-mode-and-content false 'printf "\000\001\002" > bin; seq 1 5 > x' \
    'chmod +x bin' 'printf "\000\003\004" > bin'
case2 binary-both-content true 'printf "\000\001\002" > bin; seq 1 5 > x' \
    'printf "\000\005" > bin' 'printf "\000\003\004" > bin'
# A file made a symbolic link on one side, renamed on the other: git
# counts the type change as a deletion (modify/delete at the new name).
case2 symlink-vs-rename true 'seq 1 10 > f; seq 1 5 > x' \
    'rm f; ln -s target f' 'git mv f g'
case2 rename-vs-symlink true 'seq 1 10 > f; seq 1 5 > x' \
    'git mv f g' 'rm f; ln -s target f'
case2 symlink-vs-edit-elsewhere false 'seq 1 10 > f; seq 1 5 > x' \
    'rm f; ln -s target f' 'echo more >> x'
# git declines to move other/c into dumb/, which the adding side renamed
case2 target-renamed-too true 'mkdir dumb other; seq 1 10 > dumb/a; seq 11 20 > other/b; seq 21 30 > other/x' \
    'git mv other/b dumb/b; git rm -q other/x' 'mkdir smrt; git mv dumb/a smrt/a; echo n > other/c'

# Live: two worktrees, one moved d/ to e/ (uncommitted), the other added
# d/c.txt: they share no path, yet the merge channel must run (the gate
# knows directory renames) and see the conflict git would report.
R="$TMP/live"
new_repo "$R"
cd "$R"
mkdir -p d
seq 1 10 > d/a.txt
seq 11 20 > d/b.txt
commit 00:00 base
git worktree add -q -b mover "$TMP/mover"
git worktree add -q -b adder "$TMP/adder"
(cd "$TMP/mover" && git mv d e)
(cd "$TMP/adder" && echo n > d/c.txt && git add d/c.txt)
as scan --repo "$R" --json > "$TMP/scan.json"
check "live: the pair's merge channel runs and sees git's directory-rename conflict" jqt "$TMP/scan.json" \
    '[.pairs[] | select(.a == "adder" and .b == "mover")] | length == 1 and .[0].mergeChecked and .[0].channels.merge == 1 and .[0].level == "resolution"'
finish

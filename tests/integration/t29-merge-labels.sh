# t29-merge-labels.sh - merges where libgit2's merge and git's part ways
# (src/git/merge.c makes up the difference): replay's label and conflicted
# paths must agree with `git merge-tree --write-tree` on each case.
#   empty files     git never takes an empty file for a rename's source or
#                   target; libgit2 pairs removed and added empty files
#   many renames    more than 500 files renamed and edited on a side (over
#                   libgit2's default rename limit, within git's 7000)
#   add/add modes   both sides add a path, one executable, one not
#   dir -> file     a side replaces a directory by a file while the other
#                   edits a file in it, whatever else the directory holds
#
# Each case: branch A and branch B each make one commit on the base; M
# merges B into A.
. "$(dirname "$0")/lib.sh"

# case_ NAME WANT 'base commands' 'A commands' 'B commands': merge_case
# (lib.sh) over a base that also holds the file k.
case_() {
    merge_case "$1" "$2" "echo x > k; $3" "$4" "$5"
}

# Empty files: not renamed, so moved means deleted.
case_ empty-moved-dir true 'mkdir pkg; : > pkg/__init__.py; seq 1 30 > pkg/mod.py' \
    'mkdir lib; git mv pkg lib/pkg' 'echo "from .mod import x" > pkg/__init__.py'
case_ empty-renamed-edited true ': > e' 'git mv e f' 'echo hello > e'
case_ empty-renamed-apart false ': > e' 'git mv e g' 'git mv e f'
case_ empty-renamed-deleted false ': > e' 'git rm -q e' 'git mv e f'
case_ empty-renamed-kept false ': > e; : > e2' 'git mv e f' 'echo more >> k'
case_ empty-chmod-deleted true ': > e' 'chmod +x e' 'git rm -q e'
case_ nonempty-renamed-edited false 'seq 1 20 > e' 'git mv e f' 'echo more >> e'

# More renames than libgit2's default limit (1000 entries in all).
many='mkdir d; for i in $(seq 1 501); do
    printf "file %s\nline a\nline b\nline c\nline d\nline e\nline f\nline g\n" $i > d/f$i
done'
case_ renames-501 false "$many" \
    'mkdir e; for i in $(seq 1 501); do sed "s/line g/line G/" d/f$i > e/g$i; rm d/f$i; done' \
    'sed -i "s/line a/line A/" d/f7'

# add/add in two modes.
case_ add-add-mode-same true '' 'echo same > n' 'echo same > n; chmod +x n'
case_ add-add-mode-merges true '' 'echo y > n' ': > n; chmod +x n'
case_ add-add-same false '' 'echo same > n; chmod +x n' 'echo same > n; chmod +x n'

# A directory replaced by a file, a file in it edited on the other side,
# with entries sorting before the edited one or not.
dirbase() { # dirbase DIR FILES...: the base's files, each of 12 lines
    for f in "$@"; do
        mkdir -p "$(dirname "$f")"
        seq 1 12 | sed "s|^|$f-|" > "$f"
    done
}
tofile='git rm -rq d; rm -rf d; echo f > d'
case_ dir-file-before true 'dirbase d/f1 d/f2' "$tofile" 'echo more >> d/f2'
case_ dir-file-around true 'dirbase d/f1 d/f2 d/s/g b/h top' "$tofile" 'echo more >> d/f2'
case_ dir-file-only true 'dirbase d/f2' "$tofile" 'echo more >> d/f2'
case_ dir-file-deleted false 'dirbase d/f1 d/f2' "$tofile" 'git rm -q d/f1'
case_ dir-file-renamed-away false 'dirbase d/f1 d/f2' \
    'mkdir e; git mv d/f2 e/f2; '"$tofile" 'echo more >> d/f2'
finish

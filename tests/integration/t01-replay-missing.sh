# t01-replay-missing.sh - git mode on a repository that lacks an object (a
# snapshot without its largest blobs): the merge that needs it is skipped
# and counted as missing_object with a note on stderr, and every other
# merge is replayed exactly as in the complete repository.
#   one     a.txt line 5 on both sides, merged 03:00     conflict
#   two     adds big.dat (its blob is then deleted from  skipped:
#           .git/objects), removes it again; main edits  missing_object
#           b.txt; merged 06:00
#   three   a.txt line 20 vs line 28, merged 09:00       clean
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
new_repo "$R"
cd "$R"
merge() { # merge HH:MM BRANCH: merge, resolving conflicts with theirs
    at "$1"
    if ! git merge -q --no-ff -m "merge $2" "$2" > /dev/null 2>&1; then
        git checkout -q --theirs . 2> /dev/null || true
        git add -A
        git commit -qm "merge $2"
    fi
}
seq 1 30 > a.txt
seq 101 130 > b.txt
seq 201 230 > c.txt
commit 00:00 base

git checkout -qb one
sed -i 's/^5$/five/' a.txt
commit 01:00 "one 1"
git checkout -q main
sed -i 's/^5$/FIVE/' a.txt
commit 02:00 "main: five"
merge 03:00 one

git checkout -qb two
seq 1 5000 | sed 's/^/large line /' > big.dat
commit 04:00 "two 1"
BLOB=$(git rev-parse HEAD:big.dat)
git rm -q big.dat
sed -i 's/^210$/ten/' c.txt
commit 04:30 "two 2"
git checkout -q main
sed -i 's/^110$/TEN/' b.txt
commit 05:00 "main: b"
merge 06:00 two
M2=$(git rev-parse HEAD)

git checkout -qb three
sed -i 's/^20$/twenty/' a.txt
commit 07:00 "three 1"
git checkout -q main
sed -i 's/^28$/TWENTY-EIGHT/' a.txt
commit 08:00 "main: 28"
merge 09:00 three

cp -r "$R" "$TMP/whole"
as replay --repo "$TMP/whole" --json > "$TMP/whole.json"
check "complete: three merges replayed" jqt "$TMP/whole.json" \
    '.merges_read == 3 and .skipped_by_reason.missing_object == 0'

OBJ=".git/objects/$(echo "$BLOB" | cut -c1-2)/$(echo "$BLOB" | cut -c3-)"
check "setup: the blob is a loose object" [ -f "$OBJ" ]
rm -f "$OBJ"
check "setup: git cannot read it" sh -c "! git cat-file -e $BLOB 2> /dev/null"

set +e
as replay --repo "$R" --json > "$TMP/out.json" 2> "$TMP/err"
rc=$?
set -e
check "lacking an object: exit 0" [ "$rc" -eq 0 ]
check "merge two skipped as missing_object" jqt "$TMP/out.json" \
    '.merges_read == 2 and .skipped_by_reason.missing_object == 1 and .merges_seen == 3'
check "the other two replayed" jqt "$TMP/out.json" '.merges | length == 2'
check "merge two absent from the rows" jqt "$TMP/out.json" \
    "[.merges[].merge | select(. == \"$M2\")] == []"
check "a note names the merge and the object" \
    grep -q "note: merge $M2 skipped: it needs object $BLOB" "$TMP/err"
# every other merge exactly as in the complete repository
jq -S '[.merges[] | select(.merge != "'"$M2"'")]' "$TMP/whole.json" > "$TMP/a"
jq -S '.merges' "$TMP/out.json" > "$TMP/b"
check "the others' figures as in the complete repository" cmp -s "$TMP/a" "$TMP/b"
check "the conflict is still labelled" jqt "$TMP/out.json" \
    '[.merges[] | select(.conflicted)] | length == 1'

# the table says it too
as replay --repo "$R" > "$TMP/table" 2> /dev/null
check "table: missing_object 1" grep -q "missing_object 1" "$TMP/table"
finish

# t119-glob-names.sh - a file whose name holds '[', ']', '*', '?' or '\'
# (a Next.js route app/[locale]/page.tsx) is a name, not a glob: the lock
# check (POST /v1/locks/check, `airspace commit`) matches each lock's glob
# against it as spelled, so `*.md` or `q\[1\].txt` held by someone else does
# not refuse it; the file itself, or a lock covering it, still does. Such a
# file is locked literally by escaping its wildcards
# (`airspace lock 'app/\[locale\]/page.tsx'`), while the same text unescaped
# is a glob ([locale] a class of one character) that never matches it.
. "$(dirname "$0")/lib.sh"

base_repo "$TMP/repo"
R=$(pwd -P)
mkdir -p 'app/[locale]' app/l docs
echo route > 'app/[locale]/page.tsx'
echo other > app/l/page.tsx
echo star > 'star*.txt'
echo q > 'q[1].txt'
echo doc > docs/a.md
git add -A
git commit -qm files
start_daemon --tick-ms 50 --rescan-ms 60000
api POST /v1/agents '{"id":"racer","client":"test"}'
api POST /v1/agents "{\"id\":\"carol\",\"client\":\"test\",\"worktree\":\"$R\"}"
as lock --agent racer '*.md' > /dev/null
as lock --agent racer 'q\[1\].txt' > /dev/null

# check NAME PATH WANT-FREE: carol's lock check of PATH answers free WANT
free_is() {
    api POST /v1/locks/check "$(jq -cn --arg p "$2" '{agent: "carol", path: $p}')"
    check "$1 ($CODE $(cat "$TMP/body"))" \
        sh -c "[ $CODE = 200 ] && jq -e '.free == $3' '$TMP/body' > /dev/null"
}
free_is "app/[locale]/page.tsx is no Markdown file" 'app/[locale]/page.tsx' true
free_is "star*.txt is not q[1].txt" 'star*.txt' true
free_is "a name with an unterminated '[' is a name too" 'a[b.txt' true
free_is "q[1].txt itself is held" 'q[1].txt' false
check "... by the escaped lock" jq -e '.holder.pattern == "q\\[1\\].txt"' "$TMP/body" > /dev/null
check "... named as spelled ($(jq -r .message "$TMP/body"))" \
    jq -e '.message | startswith("'"'q[1].txt'"' is locked by '"'racer'"'")' "$TMP/body" > /dev/null
free_is "a Markdown file with '[' in its name is held by *.md" 'docs/b[1].md' false
free_is "the escaped lock is anchored: sub/q[1].txt is free" 'sub/q[1].txt' true

# airspace commit checks each file the same way
echo route2 > 'app/[locale]/page.tsx'
echo star2 > 'star*.txt'
as commit --agent carol -m route 'app/[locale]/page.tsx' 'star*.txt' > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "commit of app/[locale]/page.tsx and star*.txt while *.md is held ($rc: $(cat "$TMP/err"))" [ "$rc" -eq 0 ]
echo q2 > 'q[1].txt'
as commit --agent carol -m q 'q[1].txt' > /dev/null 2> "$TMP/err" && rc=0 || rc=$?
check "commit of q[1].txt is refused ($rc)" [ "$rc" -eq 1 ]
check "... naming racer's lock" grep -q "held by racer.*q\\\\\[1\\\\\]\.txt" "$TMP/err"

# locking the route literally: escaped, it is that file and nothing else
as lock --agent racer --json 'app/\[locale\]/page.tsx' > "$TMP/lock.json"
check "an escaped path is locked as a file" \
    jq -e '.pattern == "app/\\[locale\\]/page.tsx" and .file == true' "$TMP/lock.json" > /dev/null
free_is "the route is now held" 'app/[locale]/page.tsx' false
free_is "its directory is held (a directory covers what is inside)" 'app/[locale]' false
free_is "app/l/page.tsx is another file" 'app/l/page.tsx' true
# unescaped, the same text is a glob: [locale] is one character of l, o, c ...
as lock --agent racer --json 'app/[locale]/page.tsx' > "$TMP/glob.json"
check "an unescaped pattern is a glob" jq -e '.file == false' "$TMP/glob.json" > /dev/null
free_is "... which matches app/l/page.tsx" 'app/l/page.tsx' false
check "... named by its pattern" jq -e '.holder.pattern == "app/[locale]/page.tsx"' "$TMP/body" > /dev/null

finish

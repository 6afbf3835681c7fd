# t13-scan-stable.sh - `airspace scan` on what must not move a pair: lines
# appended after a definition are no change to it (no symbol evidence, no
# resolution), while lines inserted inside a body still are; and right of
# way does not flip when an agent re-saves (touches) a file.
. "$(dirname "$0")/lib.sh"

J="$TMP/scan.json"
pair() { # pair A B FILTER-on-the-pair
    jq -r --arg a "$1" --arg b "$2" \
        "[.pairs[] | select((.a==\$a and .b==\$b) or (.a==\$b and .b==\$a))][0] | $3" "$J"
}

# 1. Appends after the last definition. a/x.h declares f and g; a/n.c calls
# g. bob appends a declaration to x.h, alice edits the call in n.c.
# src/a.ts and src/b.ts import each other; carol and dave each append a
# comment to one of them, erin inserts a line inside a()'s body.
# lib.py: gina changes g(), hank appends a function after f(), which
# calls g() on its last line.
R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/a" "$R/src"
printf 'int f(void);\nint g(void);\n' > "$R/a/x.h"
printf '#include "x.h"\n\nint\nn(void)\n{\n    return g();\n}\n' > "$R/a/n.c"
cat > "$R/src/a.ts" <<'X'
import { b } from "./b";

export function a(n: number): number {
  return n > 0 ? b(n - 1) : 0;
}
X
cat > "$R/src/b.ts" <<'X'
import { a } from "./a";

export function b(n: number): number {
  return n > 0 ? a(n - 1) : 1;
}
X
cat > "$R/lib.py" <<'X'
def g(x):
    return x + 1


def f(x):
    return g(x)
X
cd "$R"
commit 10:00 base
for w in alice bob carol dave erin gina hank; do
    git -C "$R" worktree add -q -b $w "$TMP/$w" main
done
printf 'int g2(void);\n' >> "$TMP/bob/a/x.h"
sed -i 's/return g();/return g() + 1;/' "$TMP/alice/a/n.c"
echo '// carol was here' >> "$TMP/carol/src/a.ts"
echo '// dave was here' >> "$TMP/dave/src/b.ts"
sed -i '3a\  n = n + 0;' "$TMP/erin/src/a.ts"
sed -i 's/return x + 1/return x + 2/' "$TMP/gina/lib.py"
printf '\n\ndef h():\n    return 0\n' >> "$TMP/hank/lib.py"

as scan --repo "$R" --json --explain > "$J"
check "bob's append is still recorded at line 2 (overlap unchanged)" jqt "$J" \
    '[.agents[] | select(.id=="bob") | .files[] | {path, lines}] == [{"path": "a/x.h", "lines": [[2, 2]]}]'
check "alice-bob: an append after g() is no change to g: no symbols" \
    [ "$(pair alice bob '.evidence.dependency.symbols // [] | length')" = 0 ]
check "alice-bob: sigma is sigma0" [ "$(pair alice bob '.evidence.dependency.sigma')" = 0.3 ]
check "alice-bob: symbol channel 0" [ "$(pair alice bob .channels.symbol)" = 0 ]
check "alice-bob: not resolution ($(pair alice bob .risk))" \
    [ "$(pair alice bob .level)" != resolution ]
check "carol-dave: appended comments touch no definition" \
    [ "$(pair carol dave '.evidence.symbol // [] | length')" = 0 ]
check "carol-dave: not resolution ($(pair carol dave .risk))" \
    [ "$(pair carol dave .level)" != resolution ]
check "erin-dave: a line inserted inside a() changes a()" \
    [ "$(pair erin dave '.evidence.dependency.symbols | index("a") != null')" = true ]
check "erin-dave: resolution" [ "$(pair erin dave .level)" = resolution ]
check "gina-hank: the unchanged last line of f() is no use of g()" \
    [ "$(pair gina hank '.evidence.symbol // [] | length')" = 0 ]
check "gina-hank: clear ($(pair gina hank .risk))" [ "$(pair gina hank .level)" = clear ]

# 2. Right of way holds still when a file is re-saved. zed's worktree is
# made first and zed edits first; amy (whose id sorts first) edits the same
# line a second later. zed holds, and still holds after its file is
# touched: a start time is no file's modification time.
R="$TMP/row"
new_repo "$R"
seq 1 5 > "$R/t.txt"
cd "$R"
commit 10:00 base
git -C "$R" worktree add -q -b zed "$TMP/zed" main
sleep 1
git -C "$R" worktree add -q -b amy "$TMP/amy" main
sed -i 's/^3$/zed/' "$TMP/zed/t.txt"
touch -d '2026-01-01T11:00:00Z' "$TMP/zed/t.txt"
sed -i 's/^3$/amy/' "$TMP/amy/t.txt"
touch -d '2026-01-01T11:00:01Z' "$TMP/amy/t.txt"
started() { jq -r --arg a "$1" '.agents[] | select(.id==$a) | .startedAt' "$J"; }
as scan --repo "$R" --json --now 1767268800000 > "$J"
check "zed-amy: resolution" [ "$(pair zed amy .level)" = resolution ]
check "zed-amy: zed holds" [ "$(pair zed amy .hold)" = zed ]
check "zed-amy: amy steers" [ "$(pair zed amy .steer)" = amy ]
zs=$(started zed)
as_=$(started amy)
check "zed's start ($zs) is before amy's ($as_)" [ "$zs" -lt "$as_" ]
touch -d '2026-01-01T11:00:05Z' "$TMP/zed/t.txt"
as scan --repo "$R" --json --now 1767268800000 > "$J"
check "after touching zed's file zed still holds" [ "$(pair zed amy .hold)" = zed ]
check "after touching zed's file its start is unchanged" [ "$(started zed)" = "$zs" ]
touch -d '2026-01-01T10:59:00Z' "$TMP/amy/t.txt"
as scan --repo "$R" --json --now 1767268800000 > "$J"
check "after back-dating amy's file zed still holds" [ "$(pair zed amy .hold)" = zed ]
check "after back-dating amy's file its start is unchanged" [ "$(started amy)" = "$as_" ]

finish

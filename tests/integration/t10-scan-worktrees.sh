# t10-scan-worktrees.sh - `airspace scan` on real worktrees: overlap,
# dependency through an import two directories away, symbol evidence, the
# symbol channel inside one file, the merge channel, untracked files, renames.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/net" "$R/src/app" "$R/src/ui" "$R/lib"
cat > "$R/src/net/conn.h" <<'C'
#ifndef CONN_H
#define CONN_H
struct conn { int fd; };
int conn_open(struct conn *c, int port);
void conn_close(struct conn *c);
#endif
C
cat > "$R/src/net/conn.c" <<'C'
#include "conn.h"

int
conn_open(struct conn *c, int port)
{
    c->fd = port;
    return 0;
}

void
conn_close(struct conn *c)
{
    c->fd = -1;
}
C
cat > "$R/src/app/page.c" <<'C'
#include "../net/conn.h"

int
page_fetch(void)
{
    struct conn c;
    return conn_open(&c, 80);
}

int
page_status(void)
{
    return 200;
}
C
cat > "$R/src/ui/status.c" <<'C'
#include "../net/conn.h"

void
status_close(struct conn *c)
{
    conn_close(c);
}

int
status_code(void)
{
    return 1;
}
C
# lib/big.c: compute() at the top, 200 filler lines, then a tail function.
{
    printf 'int\ncompute(int x)\n{\n    return x * 2;\n}\n\n'
    i=0
    while [ $i -lt 200 ]; do
        printf 'int filler_%d(void) { return %d; }\n' $i $i
        i=$((i + 1))
    done
    printf '\nint\ntail(int y)\n{\n    return y + 1;\n}\n'
} > "$R/lib/big.c"
printf 'old name\n' > "$R/src/old.txt"
git -C "$R" add -A
git -C "$R" commit -qm base

add_wt() {
    git -C "$R" worktree add -q -b "$1" "$TMP/$1" main
}
for w in alice bob carol dave erin frank; do add_wt $w; done

# alice changes conn_open's body (line 6), uncommitted
sed -i 's/    c->fd = port;/    c->fd = port + 1;/' "$TMP/alice/src/net/conn.c"
# bob changes the line right after (line 7), uncommitted: adjacent lines
sed -i 's/    return 0;/    return 1;/' "$TMP/bob/src/net/conn.c"
# carol changes the caller of conn_open, two directories away
sed -i 's/    return conn_open(&c, 80);/    return conn_open(\&c, 8080);/' "$TMP/carol/src/app/page.c"
# dave changes a file that includes conn.h but only uses conn_close
sed -i 's/    return 1;/    return 2;/' "$TMP/dave/src/ui/status.c"
# erin changes compute() in lib/big.c, frank adds a call to it 200 lines below
sed -i 's/    return x \* 2;/    return x * 3;/' "$TMP/erin/lib/big.c"
sed -i 's/    return y + 1;/    return y + compute(y);/' "$TMP/frank/lib/big.c"
# frank also adds an untracked file and renames src/old.txt
printf 'new\n' > "$TMP/frank/src/new.txt"
git -C "$TMP/frank" mv src/old.txt src/renamed.txt

cd "$TMP/carol"
as scan --json --explain > "$TMP/scan.json"
J="$TMP/scan.json"
pair() { # pair A B FILTER-on-the-pair
    jq -r --arg a "$1" --arg b "$2" \
        "[.pairs[] | select((.a==\$a and .b==\$b) or (.a==\$b and .b==\$a))][0] | $3" "$J"
}

check "7 agents (main + 6 worktrees)" jqt "$J" '.agents | length == 7'
check "alice-bob resolution (adjacent lines, margin 1)" \
    [ "$(pair alice bob .level)" = resolution ]
check "alice-bob contested range names conn.c" \
    [ "$(pair alice bob '.evidence.contested[0].path')" = src/net/conn.c ]
check "alice-bob merge channel is 1 (git conflicts on adjacent lines)" \
    [ "$(pair alice bob .channels.merge)" = 1 ]
check "alice-bob merge evidence lists conn.c" \
    [ "$(pair alice bob '.evidence.merge.paths[0]')" = src/net/conn.c ]
lvl=$(pair alice carol .level)
check "alice-carol at least traffic ($lvl)" [ "$lvl" = traffic -o "$lvl" = resolution ]
check "alice-carol dependency > 0" jqt "$J" "$(printf '[.pairs[] | select((.a=="alice" and .b=="carol") or (.a=="carol" and .b=="alice"))][0].channels.dependency > 0')"
check "alice-carol chain names page.c, conn.h and conn.c" \
    [ "$(pair alice carol '.evidence.dependency.chain | join(" ")')" = "src/app/page.c src/net/conn.h src/net/conn.c" ]
as scan --explain > "$TMP/explain.txt" 2>&1 || true
check "--explain says page.c depends on conn.c, through the header (no import of a .c)" \
    grep -q "dependency src/app/page.c (carol) depends on src/net/conn.c (alice): src/app/page.c -> src/net/conn.h -> src/net/conn.c" "$TMP/explain.txt"
check "alice-carol symbol evidence names conn_open" \
    [ "$(pair alice carol '.evidence.dependency.symbols | index("conn_open") != null')" = true ]
rc=$(pair alice carol .risk)
rd=$(pair alice dave .risk)
check "mere importer (dave $rd) lower than caller (carol $rc)" \
    [ "$(echo "$rd < $rc" | bc -l 2>/dev/null || awk "BEGIN{print ($rd < $rc)}")" = 1 ]
lvl=$(pair erin frank .level)
check "erin-frank same-file caller 200 lines away: at least traffic ($lvl)" \
    [ "$lvl" = traffic -o "$lvl" = resolution ]
check "erin-frank symbol channel names compute" \
    [ "$(pair erin frank '[.evidence.symbol[].name] | index("compute") != null')" = true ]
check "untracked new file in frank's working set" jqt "$J" \
    '[.agents[] | select(.id=="frank") | .files[] | select(.path=="src/new.txt" and .status=="added")] | length == 1'
check "rename in frank's working set" jqt "$J" \
    '[.agents[] | select(.id=="frank") | .files[] | select(.path=="src/old.txt" and .status=="renamed" and .newPath=="src/renamed.txt")] | length == 1'
check "dave-erin clear" [ "$(pair dave erin .level)" = clear ]

# unrelated edits 200 lines apart in one file stay clear
git -C "$R" worktree add -q -b gina "$TMP/gina" main
git -C "$R" worktree add -q -b hank "$TMP/hank" main
sed -i 's/int filler_3(void) { return 3; }/int filler_3(void) { return 33; }/' "$TMP/gina/lib/big.c"
sed -i 's/    return y + 1;/    return y + 2;/' "$TMP/hank/lib/big.c"
as scan --json --explain > "$J"
check "gina-hank same file 200 lines apart, no relation: clear" \
    [ "$(pair gina hank .level)" = clear ]

# --fail-on and exit codes
set +e
as scan --fail-on resolution > /dev/null; rc1=$?
as scan --fail-on bogus > /dev/null 2>&1; rc2=$?
as scan --no-such-option > /dev/null 2>&1; rc3=$?
set -e
check "--fail-on resolution exits 1" [ "$rc1" = 1 ]
check "bad --fail-on value exits 2" [ "$rc2" = 2 ]
check "unknown option exits 2" [ "$rc3" = 2 ]
check "human table names the resolution" sh -c "'$AIRSPACE_BIN' scan | grep -q 'RESOLUTION'"

# a committed textual conflict (both sides committed) -> merge channel 1
git -C "$R" worktree add -q -b ivy "$TMP/ivy" main
git -C "$R" worktree add -q -b jack "$TMP/jack" main
sed -i 's/    return 200;/    return 201;/' "$TMP/ivy/src/app/page.c"
git -C "$TMP/ivy" commit -qam ivy
sed -i 's/    return 200;/    return 404;/' "$TMP/jack/src/app/page.c"
git -C "$TMP/jack" commit -qam jack
as scan --json --explain > "$J"
check "ivy-jack committed conflict: merge 1" [ "$(pair ivy jack .channels.merge)" = 1 ]
check "ivy-jack resolution" [ "$(pair ivy jack .level)" = resolution ]
check "no index was touched by the scan" sh -c "! ls '$R/.git/worktrees/ivy/index.lock' 2>/dev/null"
finish

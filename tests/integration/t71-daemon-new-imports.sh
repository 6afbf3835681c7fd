# t71-daemon-new-imports.sh - the daemon sees what an agent's own copy
# imports, as `airspace scan` does (t14): a file bob adds in his worktree
# that includes util.h and calls add() is an edge of bob's view of the
# graph, so alice's change of add() in util.c reaches bob through the
# dependency and symbol channels (docs/risk-model.md, "the agent's view").
# The same for a file added while the daemon runs (inotify) and for an
# import through a tsconfig path alias the agent itself added; one agent's
# added files and configuration never resolve another agent's imports.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
imports_repo "$R"
for w in alice bob carol dave erin frank gina; do
    git -C "$R" worktree add -q -b "$w" "$TMP/$w" main
done

# alice changes add()'s body and signature, uncommitted
sed -i 's/^add(int a, int b)$/add(int a, int b, int c)/; s/    return a + b;/    return a + b + c;/' \
    "$TMP/alice/src/util.c"
# bob adds a new file that includes util.h and calls add(), and a util.h
# of his own in a new directory
cat > "$TMP/bob/src/extra.c" <<'C'
#include "util.h"

int
extra(void)
{
    return add(1, 2);
}
C
mkdir -p "$TMP/bob/src/sub"
cat > "$TMP/bob/src/sub/util.h" <<'C'
int bob_util(void);
C
# dave adds a file with a same-named add() of its own and no include
cat > "$TMP/dave/src/other.c" <<'C'
static int
add(int a, int b)
{
    return a * b;
}

int
other(void)
{
    return add(2, 3);
}
C
# erin includes util.h in main.c but calls only sub(), which alice did not
# change: a dependency, no symbol hit
cat > "$TMP/erin/src/main.c" <<'C'
#include "util.h"

int
main(void)
{
    return sub(0, 0);
}
C
# frank changes f(); gina maps "@lib/*" to lib/ in tsconfig.json and adds
# a file importing "@lib/a"
sed -i 's/return x + 1;/return x + 2;/' "$TMP/frank/lib/a.ts"
cat > "$TMP/gina/tsconfig.json" <<'J'
{ "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["lib/*"] } } }
J
cat > "$TMP/gina/app/b.ts" <<'J'
import { f } from "@lib/a";
export const b = f(1);
J

cd "$R"
start_daemon --tick-ms 50 --debounce-ms 50 --rescan-ms 60000

channel() { # channel A B CHANNEL: the pair's channel value ("none": no pair)
    curl -s --unix-socket "$SOCK" 'http://a/v1/advisories?all=1' |
        jq -r --arg a "$1" --arg b "$2" --arg c "$3" \
            '[.advisories[] | select((.a==$a and .b==$b) or (.a==$b and .b==$a))][0].channels[$c] // "none"'
}
positive() { # positive A B CHANNEL
    v=$(channel "$1" "$2" "$3")
    [ "$v" != none ] && [ "$(awk "BEGIN{print ($v > 0)}")" = 1 ]
}
zero() { # zero A B CHANNEL
    [ "$(channel "$1" "$2" "$3")" = 0 ]
}
wait_for() { # wait_for COMMAND...: up to 10 s
    n=0
    while ! "$@" && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
    "$@"
}

api GET /v1/agents/bob
check "bob's extra.c is an added file" jqt "$TMP/body" \
    '[.files[] | select(.path=="src/extra.c" and .status=="added")] | length == 1'
check "alice-bob dependency > 0 (bob's new file includes util.h)" \
    wait_for positive alice bob dependency
check "alice-bob symbol > 0 (bob's new file calls add)" \
    positive alice bob symbol
# controls
check "alice-dave: no dependency (no include)" zero alice dave dependency
check "alice-dave: no symbol (a same-named add elsewhere)" \
    zero alice dave symbol
check "alice-erin dependency > 0 (includes util.h)" \
    positive alice erin dependency
check "alice-erin: no symbol (uses sub only)" zero alice erin symbol
check "frank-gina dependency > 0 (gina's own path alias)" \
    positive frank gina dependency

# while the daemon runs, carol adds a file calling add() through util.h,
# in the directory where bob (not carol) has a util.h: in carol's view it
# is src/util.h
mkdir -p "$TMP/carol/src/sub"
cat > "$TMP/carol/src/sub/late.c" <<'C'
#include "util.h"

int
late(void)
{
    return add(3, 4);
}
C
check "alice-carol dependency > 0 after a live edit" \
    wait_for positive alice carol dependency
check "alice-carol symbol > 0 after a live edit" positive alice carol symbol
# ... and a file importing "@lib/a", an alias only gina's tsconfig has
cat > "$TMP/carol/app/c.ts" <<'J'
import { f } from "@lib/a";
export const c = f(2);
J
carol_has_c() {
    api GET /v1/agents/carol
    jqt "$TMP/body" '[.files[] | select(.path=="app/c.ts")] | length == 1'
}
check "carol's app/c.ts is seen" wait_for carol_has_c
check "frank-carol: no dependency (gina's alias is not carol's)" \
    zero frank carol dependency
# a full rescan keeps the views as they were
api POST /v1/refresh
check "refresh answers 200" [ "$CODE" = 200 ]
check "alice-bob dependency > 0 after a rescan" positive alice bob dependency
check "alice-carol dependency > 0 after a rescan" \
    positive alice carol dependency
check "alice-erin: still no symbol after a rescan" zero alice erin symbol
check "frank-gina dependency > 0 after a rescan" positive frank gina dependency
check "frank-carol: still no dependency after a rescan" \
    zero frank carol dependency

# A file parsed once is not parsed again while its content and context
# stay (view/gitview.h, the names kept): what changes must still count.
# carol's late.c stops calling add() (its include stays), her c.ts is
# untouched
sed -i 's/    return add(3, 4);/    return 7;/' "$TMP/carol/src/sub/late.c"
check "alice-carol: no symbol once late.c no longer calls add" \
    wait_for zero alice carol symbol
check "alice-carol: the dependency stays (the include)" \
    positive alice carol dependency
# carol maps "@lib/*" herself: her unchanged c.ts now imports lib/a.ts
cat > "$TMP/carol/tsconfig.json" <<'J'
{ "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["lib/*"] } } }
J
check "frank-carol dependency > 0 once her own tsconfig maps @lib" \
    wait_for positive frank carol dependency
finish

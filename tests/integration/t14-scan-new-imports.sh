# t14-scan-new-imports.sh - `airspace scan` sees what an agent's own copy
# imports: a new file that includes a header, and a new #include added to a
# file that had no import path to it on the integration branch, are edges
# from that agent's files for the dependency and symbol channels
# (docs/risk-model.md, "the agent's view of the graph").
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
imports_repo "$R"
for w in alice bob carol dave erin fay frank gina hank; do
    git -C "$R" worktree add -q -b "$w" "$TMP/$w" main
done

# alice changes add()'s body and signature, uncommitted
sed -i 's/^add(int a, int b)$/add(int a, int b, int c)/; s/    return a + b;/    return a + b + c;/' \
    "$TMP/alice/src/util.c"
# bob adds a new file that includes util.h and calls add() (repro 1)
cat > "$TMP/bob/src/extra.c" <<'C'
#include "util.h"

int
extra(void)
{
    return add(1, 2);
}
C
# carol adds #include "util.h" and a call of add() to main.c, which had no
# import path to util.h (repro 2)
cat > "$TMP/carol/src/main.c" <<'C'
#include "util.h"

int
main(void)
{
    return add(0, 0);
}
C
# dave adds a file with a same-named add() of its own and no include: no
# path, so neither channel
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
# change: a dependency with sigma0, no symbol hit
cat > "$TMP/erin/src/main.c" <<'C'
#include "util.h"

int
main(void)
{
    return sub(0, 0);
}
C
# frank changes f(); gina maps "@lib/*" to lib/ in her tsconfig.json and
# adds a file importing "@lib/a"; fay and hank (read before and after gina)
# delete tsconfig.json and add the same import, which then resolves for
# gina only
sed -i 's/return x + 1;/return x + 2;/' "$TMP/frank/lib/a.ts"
cat > "$TMP/gina/tsconfig.json" <<'J'
{ "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["lib/*"] } } }
J
for w in fay gina hank; do
    cat > "$TMP/$w/app/$w.ts" <<'J'
import { f } from "@lib/a";
export const v = f(1);
J
done
rm "$TMP/fay/tsconfig.json" "$TMP/hank/tsconfig.json"

J="$TMP/scan.json"
as scan --repo "$R" --json --explain > "$J"
pair() { # pair A B FILTER-on-the-pair
    jq -r --arg a "$1" --arg b "$2" \
        "[.pairs[] | select((.a==\$a and .b==\$b) or (.a==\$b and .b==\$a))][0] | $3" "$J"
}
pos() { # pos A B CHANNEL: the channel is > 0
    jqt "$J" "[.pairs[] | select((.a==\"$1\" and .b==\"$2\") or (.a==\"$2\" and .b==\"$1\"))][0].channels.$3 > 0"
}

check "bob's extra.c is an added file" jqt "$J" \
    '[.agents[] | select(.id=="bob") | .files[] | select(.path=="src/extra.c" and .status=="added")] | length == 1'
# repro 1: new file
check "alice-bob dependency > 0 (new file includes util.h)" pos alice bob dependency
check "alice-bob chain extra.c -> util.h -> util.c" \
    [ "$(pair alice bob '.evidence.dependency.chain | join(" ")')" = "src/extra.c src/util.h src/util.c" ]
check "alice-bob dependency symbols name add" \
    [ "$(pair alice bob '.evidence.dependency.symbols | index("add") != null')" = true ]
check "alice-bob symbol > 0" pos alice bob symbol
check "alice-bob symbol hit: add used in bob's extra.c" \
    [ "$(pair alice bob '[.evidence.symbol[] | select(.name=="add" and .usedIn=="src/extra.c")] | length > 0')" = true ]
lvl=$(pair alice bob .level)
check "alice-bob at least traffic ($lvl)" [ "$lvl" = traffic -o "$lvl" = resolution ]
# repro 2: new include in an existing file
check "alice-carol dependency > 0 (new include in main.c)" pos alice carol dependency
check "alice-carol chain main.c -> util.h -> util.c" \
    [ "$(pair alice carol '.evidence.dependency.chain | join(" ")')" = "src/main.c src/util.h src/util.c" ]
check "alice-carol symbol > 0" pos alice carol symbol
check "alice-carol symbol hit: add used in carol's main.c" \
    [ "$(pair alice carol '[.evidence.symbol[] | select(.name=="add" and .usedIn=="src/main.c")] | length > 0')" = true ]
# controls
check "alice-dave: no dependency (no include)" [ "$(pair alice dave .channels.dependency)" = 0 ]
check "alice-dave: no symbol (a same-named add elsewhere)" [ "$(pair alice dave .channels.symbol)" = 0 ]
check "alice-erin dependency > 0 (includes util.h)" pos alice erin dependency
check "alice-erin sigma is sigma0 (uses sub only)" \
    [ "$(pair alice erin '(.evidence.dependency.sigma - 0.3) | fabs < 1e-9')" = true ]
check "alice-erin no symbol hit" [ "$(pair alice erin .channels.symbol)" = 0 ]
dc=$(pair alice carol .channels.dependency)
de=$(pair alice erin .channels.dependency)
check "caller (carol $dc) coupled more than mere includer (erin $de)" \
    [ "$(awk "BEGIN{print ($de < $dc)}")" = 1 ]
# the new edges are bob's and carol's own: bob's added file is not seen as
# imported by anyone, and carol's include does not couple erin to alice
# through main.c
check "bob-carol: no dependency" [ "$(pair bob carol .channels.dependency)" = 0 ]
# one agent's configuration is its own: gina's path alias resolves her
# import, never fay's or hank's
check "frank-gina dependency > 0 (gina's own path alias)" pos frank gina dependency
check "frank-fay: no dependency (gina's alias is not fay's)" \
    [ "$(pair frank fay .channels.dependency)" = 0 ]
check "frank-hank: no dependency (gina's alias is not hank's)" \
    [ "$(pair frank hank .channels.dependency)" = 0 ]
finish

# t08-scan-snapshot.sh - a warm `airspace scan` takes the import graph from
# its snapshot (graph.snap in the airspace, dir-HASH.snap in the cache for
# a plain directory) and reports exactly what a scan that builds it does;
# a damaged snapshot is refused and rebuilt, and none is used without the
# facts cache (deleted to parse everything again); a new commit on the
# integration branch, a changed configuration file or a changed file of a
# plain directory is seen at once (lang/graphsnap.h).
. "$(dirname "$0")/lib.sh"

# same A B: the two reports are the same but for the build's own figures
same() {
    jqsame 'del(.graph.buildMs, .graph.parsed, .graph.cached)' "$1" "$2"
}

R="$TMP/repo"
imports_repo "$R"
for w in alice bob carol; do
    git -C "$R" worktree add -q -b "$w" "$TMP/$w" main
done
sed -i 's/    return a + b;/    return a + b + 0;/' "$TMP/alice/src/util.c"
cat > "$TMP/bob/src/main.c" <<'C'
#include "util.h"

int
main(void)
{
    return add(0, 0);
}
C
sed -i 's/x + 1/x + 2/' "$TMP/carol/lib/a.ts"
SNAP="$R/.git/airspace/graph.snap"
scan() {
    as scan --repo "$R" --json --explain --now 1767261600000 > "$1"
}

scan "$TMP/cold.json"
check "the first scan parses" jqt "$TMP/cold.json" '.graph.parsed > 0'
check "and keeps a snapshot" [ -s "$SNAP" ]
scan "$TMP/warm.json"
check "the next takes the graph from it (nothing parsed)" jqt "$TMP/warm.json" \
    '.graph.parsed == 0 and .graph.cached > 0'
check "with the same report" same "$TMP/cold.json" "$TMP/warm.json"
check "pairs with a dependency (bob's new include)" jqt "$TMP/warm.json" \
    '[.pairs[] | select(.channels.dependency > 0)] | length > 0'

# damaged: truncated, then garbage, then emptied: refused, rebuilt, same
size=$(wc -c < "$SNAP")
truncate -s $((size / 2)) "$SNAP"
scan "$TMP/t1.json"
check "a truncated snapshot is refused" same "$TMP/cold.json" "$TMP/t1.json"
check "and written again whole" [ "$(wc -c < "$SNAP")" -eq "$size" ]
head -c "$size" /dev/urandom > "$SNAP"
scan "$TMP/t2.json"
check "garbage is refused" same "$TMP/cold.json" "$TMP/t2.json"
python3 - "$SNAP" <<'P'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
for i in range(200, len(b), 97):  # past the header: counts, ids, offsets
    b[i] ^= 0xff
open(p, 'wb').write(b)
P
scan "$TMP/t3.json"
check "changed bytes are refused" same "$TMP/cold.json" "$TMP/t3.json"
: > "$SNAP"
scan "$TMP/t4.json"
check "an empty file is refused" same "$TMP/cold.json" "$TMP/t4.json"
check "the snapshot is whole again" jqt /dev/stdin '.graph.parsed == 0' <<EOF
$(scan /dev/stdout)
EOF

# deleting the facts cache still makes the next scan parse everything
rm -f "$R/.git/airspace/graph.cache"*
scan "$TMP/nocache.json"
check "without the facts cache the snapshot is not used" jqt "$TMP/nocache.json" \
    '.graph.parsed > 0'
check "and the report is the same" same "$TMP/cold.json" "$TMP/nocache.json"

# a new commit on main: app/main.ts imports lib/a.ts -> one more edge
edges=$(jq .graph.edges "$TMP/cold.json")
cat > "$R/app/main.ts" <<'J'
import { f } from "../lib/a";
export const main = f(1);
J
git -C "$R" add -A
git -C "$R" commit -qm "main imports a"
scan "$TMP/new.json"
check "a new tree is a new graph" jqt "$TMP/new.json" ".graph.edges == $((edges + 1))"
scan "$TMP/new2.json"
check "kept again" same "$TMP/new.json" "$TMP/new2.json"
# a configuration file: baseUrl moves, "lib/a" resolves no more from app/
echo '{ "compilerOptions": { "baseUrl": "app" } }' > "$R/tsconfig.json"
sed -i 's|"../lib/a"|"lib/a"|' "$R/app/main.ts"
git -C "$R" add -A
git -C "$R" commit -qm "baseUrl"
scan "$TMP/cfg.json"
check "a changed configuration is seen" jqt "$TMP/cfg.json" ".graph.edges == $edges"

# a plain directory: the snapshot lives with the facts in the cache
export XDG_CACHE_HOME="$TMP/cache"
D="$TMP/plain"
mkdir -p "$D/src"
cp "$R/src/util.h" "$R/src/util.c" "$D/src/"
printf 'int\nmain(void)\n{\n    return 0;\n}\n' > "$D/src/main.c"
# files changed within 2 s of a scan are racily fresh: no snapshot then
touch -d '1 minute ago' "$D/src/"*
cat > "$TMP/agents.json" <<'J'
[ {"agentId": "u", "files": [{"path": "src/util.h", "lines": [[3, 3]]}]},
  {"agentId": "m", "files": [{"path": "src/main.c", "lines": [[4, 4]]}]} ]
J
plain() {
    as scan --agents "$TMP/agents.json" --repo "$D" --json --now 1767261600000 > "$1"
}
plain "$TMP/p1.json"
check "a plain directory's snapshot is kept" sh -c "ls '$TMP'/cache/airspace/dir-*.snap > /dev/null"
plain "$TMP/p2.json"
check "and used" jqt "$TMP/p2.json" '.graph.parsed == 0'
check "with the same report" same "$TMP/p1.json" "$TMP/p2.json"
check "no dependency yet" jqt "$TMP/p2.json" '.pairs[0].channels.dependency == 0'
printf '#include "util.h"\nint\nmain(void)\n{\n    return add(1, 2);\n}\n' > "$D/src/main.c"
plain "$TMP/p3.json"
check "a changed file is seen at once" jqt "$TMP/p3.json" \
    '.graph.parsed == 1 and .pairs[0].channels.dependency > 0'

finish

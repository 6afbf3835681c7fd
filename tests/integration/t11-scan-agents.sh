# t11-scan-agents.sh - `airspace scan --agents FILE`: the engine driven from
# a file (ecc-26 through the CLI), --repo graph, and bad input refused.
. "$(dirname "$0")/lib.sh"

cat > "$TMP/ecc26.json" <<'J'
[
  {"agentId": "a", "files": [{"path": "src/api/users.js", "lines": [[1, 50]]}]},
  {"agentId": "b", "files": [{"path": "src/api/users.js", "lines": [[1, 50]]}]},
  {"agentId": "c", "files": [{"path": "docs/guide.md"}]}
]
J
J="$TMP/out.json"
as scan --agents "$TMP/ecc26.json" --model ecc --json > "$J"
check "ecc-26: 3 agents" jqt "$J" '.agents | length == 3'
check "ecc-26: 1 advisory" jqt "$J" '[.pairs[] | select(.level != "clear")] | length == 1'
check "ecc-26: a-b resolution R 1 hold a steer b" jqt "$J" \
    '.pairs[0] | .a == "a" and .b == "b" and .level == "resolution" and .risk == 1 and .hold == "a" and .steer == "b"'
check "ecc-26: links a-c and b-c R 0" jqt "$J" \
    '[.pairs[] | select(.b == "c") | .risk] == [0, 0]'

# a graph from --repo: ecc-19 shape through real JS files
mkdir -p "$TMP/js/apps/web" "$TMP/js/packages/core"
printf 'import { util } from "../../packages/core/util.js";\nutil();\n' > "$TMP/js/apps/web/page.js"
printf 'export function util() {\n  return 1;\n}\n' > "$TMP/js/packages/core/util.js"
cat > "$TMP/dep.json" <<'J'
[
  {"agentId": "A", "files": [{"path": "packages/core/util.js"}]},
  {"agentId": "B", "files": [{"path": "apps/web/page.js"}]}
]
J
as scan --agents "$TMP/dep.json" --model ecc --repo "$TMP/js" --json > "$J"
check "ecc-19 via --repo: dependency 1, R 0.9, resolution" jqt "$J" \
    '.pairs[0] | .channels.dependency == 1 and (.risk - 0.9 | fabs) < 1e-9 and .level == "resolution"'
as scan --agents "$TMP/dep.json" --model ecc --json > "$J"
check "ecc-19 without the graph: R 0" jqt "$J" '.pairs[0].risk == 0'

# bad input: clear message, exit 2
bad() { # bad NAME JSON EXPECTED-SUBSTRING
    printf '%s' "$2" > "$TMP/bad.json"
    set +e
    as scan --agents "$TMP/bad.json" > "$TMP/bad.out" 2> "$TMP/bad.err"
    rc=$?
    set -e
    check "$1: exit 2 ($rc)" [ "$rc" = 2 ]
    check "$1: message mentions '$3'" grep -qF -- "$3" "$TMP/bad.err"
    check "$1: nothing on stdout" [ ! -s "$TMP/bad.out" ]
}
bad "malformed JSON" '[{"agentId": "a",' "bad.json:"
bad "not an array" '{"agentId": "a"}' "expected a JSON array"
bad "missing files" '[{"agentId": "a"}]' "'files' must be an array"
bad "duplicate id" '[{"agentId":"a","files":[]},{"agentId":"a","files":[]}]' "duplicate agentId 'a'"
bad "line zero" '[{"agentId":"a","files":[{"path":"x","lines":[[0,3]]}]}]' "lines[0]"
bad "escaping path" '[{"agentId":"a","files":[{"path":"../etc/passwd"}]}]' "escapes the repository"
bad "absolute path" '[{"agentId":"a","files":[{"path":"/abs/a.c"}]}]' "'/abs/a.c' is absolute"
bad "absolute intent" '[{"agentId":"a","files":[],"intent":["/abs/*"]}]' "intent[0] '/abs/*' is absolute"
bad "unknown key" '[{"agentId":"a","files":[],"flies":1}]' "unknown key 'flies'"
bad "bad status" '[{"agentId":"a","files":[{"path":"x","status":"moved"}]}]' "'status' must be one of"
bad "weight out of range" '[{"agentId":"a","files":[{"path":"x","weight":2}]}]' "'weight'"
set +e
as scan --agents "$TMP/missing.json" 2> "$TMP/bad.err"; rc=$?
as scan --agents "$TMP/ecc26.json" --set nosuch=1 2> "$TMP/bad2.err"; rc2=$?
set -e
check "missing file: exit 2" [ "$rc" = 2 ]
check "missing file: names it" grep -q "missing.json" "$TMP/bad.err"
check "unknown --set key: exit 2" [ "$rc2" = 2 ]
check "unknown --set key: names it" grep -q "nosuch" "$TMP/bad2.err"
finish

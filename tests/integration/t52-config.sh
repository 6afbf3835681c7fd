# t52-config.sh - the configuration files (docs/config.md) on a real
# repository: a repository .airspace/config changes scan's risk for a pair
# as computed by hand, the local file overrides it, --set overrides both;
# the user file sits below them; a malformed file or an unknown key is exit
# 2 naming it, with no output; [airspace] integration; [daemon] stale-ms
# makes the daemon (run by hand or started on demand) mark a silent agent
# stale after that time; replay reads the files in git mode only.
. "$(dirname "$0")/lib.sh"

export XDG_CONFIG_HOME="$TMP/xdg"
R="$TMP/repo"
new_repo "$R"
seq 1 10 | sed 's/^/line /' > "$R/a.c"
git -C "$R" add -A
git -C "$R" commit -qm base
git -C "$R" branch dev
git -C "$R" worktree add -q -b one "$TMP/one"
git -C "$R" worktree add -q -b two "$TMP/two"
# both change line 3 of a.c: overlap r = 1 (oc 1, file weights 1 with a
# recency floor of 1), the only channel with a weight below
sed -i 's/^line 3$/one 3/' "$TMP/one/a.c"
sed -i 's/^line 3$/two 3/' "$TMP/two/a.c"
cd "$R"

# risk FILE: the one~two pair's risk in scan's JSON
risk() {
    jq -r '.pairs[] | select([.a, .b] | sort == ["one", "two"]) | .risk' "$1"
}
# near GOT WANT: |GOT - WANT| < 1e-9
near() {
    awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; exit !(d < 1e-9 && d > -1e-9) }'
}

# built-in defaults: every channel weighs in, so not 0.5
as scan --json > "$TMP/def.json"
def=$(risk "$TMP/def.json")
check "defaults: pair scored ($def)" [ -n "$def" ]
check "defaults: margin 1, tau.traffic 0.35" jqt "$TMP/def.json" \
    '.model.margin == 1 and .model.tauTraffic == 0.35'

# user file: margin only
mkdir -p "$XDG_CONFIG_HOME/airspace"
printf '[risk]\n\tmargin = 5\n' > "$XDG_CONFIG_HOME/airspace/config"

# repository file: overlap alone, weight 0.5 => R = 1 - (1 - 0.5 * 1) = 0.5
mkdir -p "$R/.airspace"
cat > "$R/.airspace/config" <<'EOF'
# team policy
[risk "weight"]
	overlap = 0.5
	merge = 0
	dependency = 0
	symbol = 0
	intent = 0
	context = 0
	topic = 0
	tree = 0
[risk "recency"]
	floor = 1
[risk "tau"]
	traffic = 0.4
[core]
	whatever = ignored
EOF
as scan --json > "$TMP/repo.json"
got=$(risk "$TMP/repo.json")
check "repository file: risk 0.5 by hand (got $got)" near "$got" 0.5
check "repository file: the effective model is printed" jqt "$TMP/repo.json" \
    '.model.margin == 5 and .model.tauTraffic == 0.4'

# local file over the repository file: overlap 0.25 => R = 0.25
mkdir -p "$R/.git/airspace"
printf '[risk "weight"]\n\toverlap = 0.25\n[risk]\n\tmargin = 2\n' \
    > "$R/.git/airspace/config"
as scan --json > "$TMP/local.json"
got=$(risk "$TMP/local.json")
check "local file overrides: risk 0.25 (got $got)" near "$got" 0.25
check "local file overrides the user's margin" jqt "$TMP/local.json" '.model.margin == 2'

# --set over both: overlap 0.8 => R = 0.8
as scan --json --set weight.overlap=0.8 --set margin=0 > "$TMP/set.json"
got=$(risk "$TMP/set.json")
check "--set overrides the files: risk 0.8 (got $got)" near "$got" 0.8
check "--set margin shows" jqt "$TMP/set.json" '.model.margin == 0'
# a linked worktree's scan reads the same files
(cd "$TMP/one" && as scan --json > "$TMP/wt.json")
got=$(risk "$TMP/wt.json")
check "from a linked worktree: same risk 0.25 (got $got)" near "$got" 0.25

# --model: the built-in model, the files' [risk] settings do not apply
as scan --json --model airspace > "$TMP/model.json"
check "--model airspace ignores [risk] (same as defaults)" \
    [ "$(risk "$TMP/model.json")" = "$def" ]

# integration branch: repository file, then local file, then the flag
printf '[airspace]\n\tintegration = dev\n' >> "$R/.airspace/config"
as scan --json > "$TMP/i1.json"
check "[airspace] integration from the repository file" jqt "$TMP/i1.json" \
    '.integration == "dev"'
printf '[airspace]\n\tintegration = main\n' >> "$R/.git/airspace/config"
as scan --json > "$TMP/i2.json"
check "the local file's integration wins" jqt "$TMP/i2.json" '.integration == "main"'
as scan --json --integration dev > "$TMP/i3.json"
check "--integration wins over both" jqt "$TMP/i3.json" '.integration == "dev"'

# errors: exit 2, naming the file (and line, or key and value), no output
cp "$R/.airspace/config" "$TMP/good-config"
printf '[risk "weight"]\n\toverlap = 0.5\n[risk\n' > "$R/.airspace/config"
rc=0
as scan --json > "$TMP/bad.out" 2> "$TMP/bad.err" || rc=$?
check "malformed file: exit 2 (got $rc)" [ "$rc" = 2 ]
check "malformed file: nothing printed" [ ! -s "$TMP/bad.out" ]
check "malformed file: names file and line" \
    grep -q "$R/.airspace/config:3" "$TMP/bad.err"
rc=0
as replay --json > "$TMP/rbad.out" 2> "$TMP/rbad.err" || rc=$?
check "replay (git mode) reads it too: exit 2 (got $rc)" [ "$rc" = 2 ]
check "replay: names the file" grep -q "$R/.airspace/config" "$TMP/rbad.err"
check "replay: nothing printed" [ ! -s "$TMP/rbad.out" ]
rc=0
as replay --records "$AIRSPACE_SOURCE_DIR/tests/cases/records/four.jsonl" \
    --json > "$TMP/rrec.json" 2> "$TMP/rrec.err" || rc=$?
check "replay --records reads no config file (rc $rc)" [ "$rc" = 0 ]
cp "$TMP/good-config" "$R/.airspace/config"

printf '[risk "weight"]\n\tovrlap = 0.5\n' >> "$R/.git/airspace/config"
rc=0
as scan --json > "$TMP/bad.out" 2> "$TMP/bad.err" || rc=$?
check "unknown key: exit 2 (got $rc)" [ "$rc" = 2 ]
check "unknown key: nothing printed" [ ! -s "$TMP/bad.out" ]
check "unknown key: names file, key and value" \
    grep -q "$R/.git/airspace/config.*risk.weight.ovrlap = 0.5" "$TMP/bad.err"
printf '[risk "weight"]\n\toverlap = 0.25\n[daemon]\n\tstale-ms = 0\n' \
    > "$R/.git/airspace/config"
rc=0
as scan --json > "$TMP/bad.out" 2> "$TMP/bad.err" || rc=$?
check "bad timer: exit 2 (got $rc)" [ "$rc" = 2 ]
check "bad timer: names key and value" grep -q "daemon.stale-ms = 0" "$TMP/bad.err"
rc=0
as serve --log-stderr > /dev/null 2> "$TMP/serve.err" || rc=$?
check "serve with a bad file: exit 2 (got $rc)" [ "$rc" = 2 ]
check "serve: names the file" grep -q "$R/.git/airspace/config" "$TMP/serve.err"
check "serve: no socket left" [ ! -S "$R/.git/airspace/sock" ]
printf '[risk "weight"]\n\toverlap = 0.25\n' > "$R/.git/airspace/config"

# [daemon] stale-ms from the repository file: a silent agent goes stale
printf '[daemon]\n\tstale-ms = 300\n\ttick-ms = 50\n\trescan-ms = 600000\n' \
    >> "$R/.airspace/config"
stop_daemon() {
    api POST /v1/stop
    wait "$DPID" 2> /dev/null || true
}
# wait_status ID STATUS: poll (at most 10 s) until the agent has STATUS
wait_status() {
    n=0
    until api GET "/v1/agents/$1" && jqt "$TMP/body" ".status == \"$2\""; do
        sleep 0.1
        n=$((n + 1))
        [ $n -lt 100 ] || return 1
    done
}
start_daemon
api POST /v1/agents '{"id":"dave"}'
check "dave registered (got $CODE)" [ "$CODE" = 200 ]
check "silent dave goes stale after the file's stale-ms" wait_status dave stale
stop_daemon

# --stale-ms beats the file: still active well after 300 ms
start_daemon --stale-ms 600000
api POST /v1/agents '{"id":"carl"}'
sleep 1.5
api GET /v1/agents/carl
check "--stale-ms overrides the file: carl active" jqt "$TMP/body" '.status == "active"'
stop_daemon

# the daemon started on demand reads the same files
trap '"$AIRSPACE_BIN" stop --repo "$R" > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
as api POST /v1/agents '{"id":"erin"}' > /dev/null
check "on-demand daemon started" [ -S "$R/.git/airspace/sock" ]
n=0
until as api --no-start GET /v1/agents/erin > "$TMP/erin.json" 2> /dev/null &&
    jqt "$TMP/erin.json" '.status == "stale"'; do
    sleep 0.1
    n=$((n + 1))
    [ $n -lt 100 ] || break
done
check "on-demand daemon: erin goes stale after the file's stale-ms" \
    jqt "$TMP/erin.json" '.status == "stale"'
as stop > /dev/null 2>&1 || true

# a bad file: the command that would start the daemon on demand reads the
# file first and exits 2 (a usage error, not an unreachable daemon),
# saying why (the file, the key), and starts nothing
printf '[daemon]\n\tstale-ms = soon\n' > "$R/.git/airspace/config"
: > "$R/.git/airspace/daemon.log"
rc=0
as status > /dev/null 2> "$TMP/err" || rc=$?
check "a bad file: the command exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "it names the file and the key" grep -q "airspace/config'.*stale-ms = soon" "$TMP/err"
check "nothing serves" [ ! -S "$R/.git/airspace/sock" ]
check "no daemon was started (its log is empty)" [ ! -s "$R/.git/airspace/daemon.log" ]
rm -f "$R/.git/airspace/config"

finish

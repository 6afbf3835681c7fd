# map_lib.sh - what the live map's tests (t81-t84) share: the browser
# (Debian's chromium driven by playwright-core from tests/browser, both
# installed by scripts/setup.sh --clients), a small repository with two
# agents' worktrees, and the map's address. Sourced after lib.sh.
BROWSER_DIR="$AIRSPACE_SOURCE_DIR/tests/browser"
ARTEFACTS="$(dirname "$AIRSPACE_BIN")/test-artefacts"

# need_browser: SKIP (exit 0) when chromium or playwright-core is missing
need_browser() {
    if ! command -v chromium > /dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
        echo "SKIP: chromium is not installed (scripts/setup.sh --clients installs it)"
        exit 0
    fi
    if [ ! -f "$BROWSER_DIR/node_modules/playwright-core/package.json" ]; then
        echo "SKIP: playwright-core is not installed in tests/browser (scripts/setup.sh --clients)"
        exit 0
    fi
    mkdir -p "$ARTEFACTS"
}

# map_repo DIR: 23 files in four top directories, committed, and the
# worktrees $TMP/alice and $TMP/bob (branches alice, bob); cd into DIR
map_repo() {
    new_repo "$1"
    mkdir -p "$1/src/core" "$1/src/cli" "$1/docs" "$1/web"
    i=1
    while [ $i -le 12 ]; do
        printf 'int\nf%d(void)\n{\n    return %d;\n}\n' $i $i > "$1/src/core/m$i.c"
        i=$((i + 1))
    done
    i=1
    while [ $i -le 5 ]; do
        printf '#include "../core/m%d.c"\n' $i > "$1/src/cli/c$i.c"
        i=$((i + 1))
    done
    for i in 1 2 3; do
        echo "# notes $i" > "$1/docs/d$i.md"
        echo "export const w$i = $i;" > "$1/web/w$i.js"
    done
    git -C "$1" add -A
    git -C "$1" commit -qm base
    git -C "$1" worktree add -q -b alice "$TMP/alice" main
    git -C "$1" worktree add -q -b bob "$TMP/bob" main
    cd "$1"
}

# map_url: the map's address from `airspace open --no-browser` (URL, PORT,
# TOKEN)
map_url() {
    URL=$(as open --no-browser 2> "$TMP/open.err")
    PORT=$(printf '%s' "$URL" | sed -n 's|^http://127\.0\.0\.1:\([0-9]*\)/#token=.*|\1|p')
    TOKEN=${URL##*#token=}
}

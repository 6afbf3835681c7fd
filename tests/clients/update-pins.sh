#!/bin/sh
# update-pins.sh - move the pinned agent clients the end-to-end tests run
# (tests/clients/package.json) to new versions, and record their hook
# inputs again.
#
#   tests/clients/update-pins.sh [--dry-run] [--claude VERSION] [--codex VERSION] [--gemini VERSION]
#
# For each of @anthropic-ai/claude-code, @openai/codex and
# @google/gemini-cli: the VERSION given, else the newest on the npm
# registry (`npm view PKG version`). It writes the versions (exact, no
# range) into package.json, regenerates package-lock.json and node_modules
# (`npm install --ignore-scripts --no-audit --no-fund`), runs the three
# recorders (fixtures/claude-code/record.sh, fixtures/codex/record.sh,
# record-gemini-fixtures.sh) with the built airspace ($AIRSPACE_BIN, else
# build/release/airspace), and prints what changed under tests/clients.
# --dry-run prints the versions it would pin and what it would run, and
# changes nothing. Nothing is committed: read the new recordings, run the
# tests that use them and update the documents that quote them.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)

usage() {
    echo "usage: tests/clients/update-pins.sh [--dry-run] [--claude VERSION] [--codex VERSION] [--gemini VERSION]" >&2
    exit 2
}
DRY=0 WANT_CLAUDE="" WANT_CODEX="" WANT_GEMINI=""
while [ $# -gt 0 ]; do
    case $1 in
    --dry-run | -n) DRY=1 ;;
    --claude | --codex | --gemini)
        [ $# -ge 2 ] && [ -n "$2" ] || usage
        case $1 in
        --claude) WANT_CLAUDE=$2 ;;
        --codex) WANT_CODEX=$2 ;;
        --gemini) WANT_GEMINI=$2 ;;
        esac
        shift
        ;;
    --claude=* | --codex=* | --gemini=*)
        v=${1#*=}
        [ -n "$v" ] || usage
        case $1 in
        --claude=*) WANT_CLAUDE=$v ;;
        --codex=*) WANT_CODEX=$v ;;
        --gemini=*) WANT_GEMINI=$v ;;
        esac
        ;;
    -h | --help)
        sed -n '2,/^set -eu$/{/^set -eu$/d;s/^# \{0,1\}//;p;}' "$0"
        exit 0
        ;;
    *) usage ;;
    esac
    shift
done
for v in "$WANT_CLAUDE" "$WANT_CODEX" "$WANT_GEMINI"; do
    [ -z "$v" ] || printf '%s' "$v" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$' ||
        { echo "update-pins.sh: '$v' is not an exact version (X.Y.Z)" >&2; exit 2; }
done

for c in jq npm git; do
    command -v $c > /dev/null 2>&1 || { echo "update-pins.sh: $c not found (scripts/setup.sh installs it)" >&2; exit 1; }
done
PJ="$HERE/package.json"

# version PKG WANT: the version to pin for PKG: WANT (checked to be a
# published version), else the newest published one
version() {
    if [ -n "$2" ]; then
        vv=$(timeout 60 npm view "$1@$2" version 2> /dev/null) || vv=""
        [ "$vv" = "$2" ] || { echo "update-pins.sh: $1 has no published version $2" >&2; return 1; }
    else
        vv=$(timeout 60 npm view "$1" version 2> /dev/null) || vv=""
        [ -n "$vv" ] || { echo "update-pins.sh: could not ask the npm registry for $1's newest version" >&2; return 1; }
    fi
    printf '%s\n' "$vv"
}

CHANGED="" # the pins that move, "PKG OLD NEW" a line
NEW_CLAUDE="" NEW_CODEX="" NEW_GEMINI=""
for k in CLAUDE CODEX GEMINI; do
    case $k in
    CLAUDE) pkg=@anthropic-ai/claude-code want=$WANT_CLAUDE ;;
    CODEX) pkg=@openai/codex want=$WANT_CODEX ;;
    GEMINI) pkg=@google/gemini-cli want=$WANT_GEMINI ;;
    esac
    old=$(jq -r --arg p "$pkg" '.devDependencies[$p] // ""' "$PJ")
    new=$(version "$pkg" "$want") || exit 1
    eval "NEW_$k=\$new"
    if [ "$old" = "$new" ]; then
        printf '%-26s %s (unchanged)\n' "$pkg" "$old"
    else
        printf '%-26s %s -> %s\n' "$pkg" "${old:-(none)}" "$new"
        CHANGED="$CHANGED$pkg $old $new
"
    fi
done

BIN=${AIRSPACE_BIN:-$SRC/build/release/airspace}
HAVE_BIN=0
if [ -x "$BIN" ] && [ -x "$(dirname "$BIN")/airspace-hook" ]; then
    BIN=$(realpath "$BIN")
    HAVE_BIN=1
fi
RECORDERS="tests/clients/fixtures/claude-code/record.sh, tests/clients/fixtures/codex/record.sh, tests/clients/record-gemini-fixtures.sh"

# stale: the files under docs/ and tests/ that still name a version that moves
stale() {
    printf '%s' "$CHANGED" | while read -r pkg old new; do
        [ -n "$old" ] || continue
        files=$(cd "$SRC" && grep -rlF --exclude-dir=node_modules --exclude=package.json \
            --exclude=package-lock.json -e "$old" docs tests 2> /dev/null | tr '\n' ' ')
        [ -z "$files" ] || echo "  $pkg $old is still named in: $files"
    done
}

if [ $DRY = 1 ]; then
    if [ -z "$CHANGED" ]; then
        echo "dry run: the pins stay as they are; would still run npm install and the recorders"
    else
        echo "dry run: would write these versions into tests/clients/package.json"
    fi
    echo "would run: (cd tests/clients && npm install --ignore-scripts --no-audit --no-fund)"
    if [ $HAVE_BIN = 1 ]; then
        echo "would record with $BIN: $RECORDERS"
    else
        echo "would record with $BIN, which is not there (or has no airspace-hook beside it): build it first"
    fi
    stale
    exit 0
fi

if [ $HAVE_BIN = 0 ]; then
    echo "update-pins.sh: no built airspace at '$BIN' (with airspace-hook beside it); the recorders need one:" >&2
    echo "  build it (cmake --build build/release) or set AIRSPACE_BIN, then run this again; nothing was changed" >&2
    exit 1
fi

# the pins, then the lock and node_modules; on failure both files are put back
cp "$PJ" "$PJ.bak"
cp "$HERE/package-lock.json" "$HERE/package-lock.json.bak"
jq --arg cl "$NEW_CLAUDE" --arg cx "$NEW_CODEX" --arg gm "$NEW_GEMINI" '
    .devDependencies["@anthropic-ai/claude-code"] = $cl
    | .devDependencies["@openai/codex"] = $cx
    | .devDependencies["@google/gemini-cli"] = $gm' "$PJ.bak" > "$PJ"
echo "== npm install in tests/clients"
if ! (cd "$HERE" && npm install --ignore-scripts --no-audit --no-fund); then
    mv "$PJ.bak" "$PJ"
    mv "$HERE/package-lock.json.bak" "$HERE/package-lock.json"
    echo "update-pins.sh: npm install failed; package.json and package-lock.json are as they were (node_modules may not be: scripts/setup.sh --clients)" >&2
    exit 1
fi
rm -f "$PJ.bak" "$HERE/package-lock.json.bak"

FAILED=""
echo "== recording Claude Code"
"$HERE/fixtures/claude-code/record.sh" "$BIN" || FAILED="$FAILED claude-code"
echo "== recording Codex"
"$HERE/fixtures/codex/record.sh" "$BIN" || FAILED="$FAILED codex"
echo "== recording Gemini CLI"
AIRSPACE_BIN="$BIN" AIRSPACE_SOURCE_DIR="$SRC" sh "$HERE/record-gemini-fixtures.sh" || FAILED="$FAILED gemini"

echo "== git status --short tests/clients"
(cd "$SRC" && git status --short tests/clients)
[ -z "$FAILED" ] || echo "the recording failed for:$FAILED (its fixtures are as they were or incomplete: see above)"
cat << EOF
Next: read the new recordings (git diff tests/clients/fixtures), run the
tests that use them,
  (cd build/release && ctest --output-on-failure -R 'integration/t(44|60|61|62)-')
and update docs/hooks.md and the fixtures' README.md files (the versions
they name, what each client sends and accepts) where the recordings changed.
EOF
stale
[ -z "$FAILED" ]

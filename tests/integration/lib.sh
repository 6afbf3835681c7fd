# lib.sh - helpers for integration tests: temp repos, assertions.
# Sourced by tests/integration/t*.sh; AIRSPACE_BIN is the binary under test.
set -eu
: "${AIRSPACE_BIN:?AIRSPACE_BIN must point at the airspace binary}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/airspace-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export GIT_AUTHOR_NAME=tester GIT_AUTHOR_EMAIL=t@example.invalid
export GIT_COMMITTER_NAME=tester GIT_COMMITTER_EMAIL=t@example.invalid
export GIT_AUTHOR_DATE="2026-01-01T10:00:00Z" GIT_COMMITTER_DATE="2026-01-01T10:00:00Z"
export GIT_CONFIG_NOSYSTEM=1 HOME="$TMP/home" NO_COLOR=1
mkdir -p "$HOME"
PASSED=0
FAILED=0

ok() {
    PASSED=$((PASSED + 1))
}

fail() {
    echo "FAIL: $*" >&2
    FAILED=$((FAILED + 1))
}

# check NAME CONDITION-COMMAND...: record a named assertion.
check() {
    name=$1
    shift
    if "$@"; then ok; else fail "$name"; fi
}

# jqt FILE FILTER: true when the jq filter yields true on FILE.
jqt() {
    [ "$(jq -r "$2" "$1")" = "true" ]
}

as() {
    "$AIRSPACE_BIN" "$@"
}

new_repo() {
    git -c init.defaultBranch=main init -q "$1"
}

finish() {
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}

#!/bin/sh
# check-format.sh - fail when a C file differs from .clang-format's layout.
# Run with --fix to reformat in place.
set -eu
cd "$(dirname "$0")/.."
files=$(git ls-files -co --exclude-standard -- 'src/*.[ch]' 'tests/*.[ch]' \
    'bench/*.[ch]' 'fuzz/*.[ch]')
[ -n "$files" ] || exit 0
if [ "${1:-}" = "--fix" ]; then
    echo "$files" | xargs clang-format -i
else
    echo "$files" | xargs clang-format --dry-run --Werror
fi

#!/bin/sh
# check-exports.sh BUILD_DIR - fail when a function or object of the library
# is exported (external linkage) but no other unit refers to it: the
# library, the two programs, the unit tests, fuzz targets and benchmarks
# together. Such a symbol is dead, or should be static. Reads the objects
# of BUILD_DIR with nm; an object whose source file is gone is skipped.
set -eu
cd "$(dirname "$0")/.."
build=${1:?usage: check-exports.sh BUILD_DIR}
[ -d "$build/CMakeFiles" ] || { echo "check-exports: $build is not a build directory" >&2; exit 2; }
find "$build/CMakeFiles" -name '*.c.o' | while read -r o; do
    src=$(echo "$o" | sed 's,.*\.dir/,,; s,\.o$,,')
    [ -f "$src" ] || continue
    nm "$o" | awk -v o="$o" -v src="$src" '
        NF == 3 && $2 ~ /^[TDBR]$/ { print "D", $3, src }
        NF == 2 && $1 == "U" { print "U", $2, src }'
done | awk '
    $1 == "D" && $2 !~ /^__/ && $3 ~ /^src\// && $3 !~ /^src\/(cli\/main|hooks\/hook_main)\.c$/ { def[$2] = $3 }
    $1 == "U" { use[$2] = use[$2] " " $3 }
    END {
        for (s in def) {
            n = split(use[s], u, " ")
            alive = 0
            for (i = 1; i <= n; i++) if (u[i] != def[s]) alive = 1
            if (!alive) print def[s] ": " s
        }
    }' | sort -u > "$build/dead-exports.txt"
if [ -s "$build/dead-exports.txt" ]; then
    echo "exported but used by no other unit (make it static or remove it):" >&2
    cat "$build/dead-exports.txt" >&2
    exit 1
fi

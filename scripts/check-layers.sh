#!/bin/sh
# check-layers.sh - keep the dependency picture true:
#   cli -> broker/hooks -> git/store/lang -> core -> util
# core includes only util/ and core/; util only util/; lang and git never
# include each other, cli, or anything above them. Every .c file includes
# util/banned.h.
set -eu
cd "$(dirname "$0")/.."
fail=0
check() {
    layer=$1
    allowed=$2
    for f in $(git ls-files -co --exclude-standard -- "src/$layer/*.[ch]"); do
        grep -o '#include "[a-z]*/' "$f" | sed 's/#include "//; s,/,,' |
            while read -r dep; do
                case " $allowed " in
                *" $dep "*) ;;
                *) echo "layering: $f includes $dep/ (allowed: $allowed)" ;;
                esac
            done
    done
}
out=$(
    check util "util"
    check core "core util"
    check lang "lang core util"
    check git "git core util"
    check store "store core util"
    check broker "broker store git lang core util"
)
if [ -n "$out" ]; then
    echo "$out" >&2
    fail=1
fi
for f in $(git ls-files -co --exclude-standard -- 'src/*.c'); do
    if ! grep -q '#include "util/banned.h"' "$f"; then
        echo "banned: $f does not include util/banned.h" >&2
        fail=1
    fi
done
exit $fail

#!/bin/sh
# check-layers.sh - keep the dependency picture of docs/architecture.md true:
#
#   cli ─▶ mcp, hooks ─▶ ops ─▶ client ─▶ git
#   cli ─▶ broker ─▶ view ─▶ store, git, lang ─▶ core ─▶ util
#          broker ─▶ airspace ─▶ core
#   cli ─▶ eval   ─▶ view
#
# Each folder of src/ lists the folders it may include; a folder missing
# from the list fails the check, so a new folder must take its place in the
# picture. core includes only util/ and core/; util only util/. Every .c
# file includes util/banned.h.
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
    check airspace "airspace core util"
    check lang "lang core util"
    check git "git core util"
    check store "store core util"
    check view "view git lang core util"
    check broker "broker airspace view store git lang core util"
    check eval "eval view git lang core util"
    check client "client git util"
    check ops "ops client git util"
    check hooks "hooks client util"
    check mcp "mcp ops client git util"
    check cli "cli mcp hooks ops client eval broker airspace view store git lang core util"
    for d in src/*/; do
        d=${d#src/}
        d=${d%/}
        case " util core airspace lang git store view broker eval client ops hooks mcp cli " in
        *" $d "*) ;;
        *) echo "layering: src/$d/ has no place in the picture (add it to check-layers.sh)" ;;
        esac
    done
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
# The daemon's routes are spelled by the daemon and by the typed client
# (src/client/api.c) only: everything else builds its requests there.
if git ls-files -co --exclude-standard -- 'src/*.[ch]' |
    grep -v '^src/broker/\|^src/client/api\.[ch]$' |
    xargs grep -n '"/v1/' >&2; then
    echo "api: a \"/v1/\" path outside src/client/api.c (use its builders)" >&2
    fail=1
fi
exit $fail
